// `amddwarf dap` driven by @vscode/debugadapter-testsupport's DebugClient, the
// client editors' debug adapters are tested with, on a code object written by
// `amddwarf build` from program.json (kernel calls leaf at 0x1080, the wave
// stopped in leaf at 0x1120) and the two-wave stop stop.json. Run by ctest
// (tests/CMakeLists.txt) as `node --test` with AMDDWARF (the binary) and
// DAP_WORK (a scratch directory) in the environment.
'use strict';
const { test, before, after } = require('node:test');
const assert = require('node:assert/strict');
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const { startAdapter } = require('./adapter');

const amddwarf = process.env.AMDDWARF;
const work = process.env.DAP_WORK;
const source = process.env.DAP_SOURCE || __dirname;
const object = path.join(work, 'dap.elf');
const stop = path.join(source, 'stop.json');

let dc;

before(async () => {
  fs.mkdirSync(work, { recursive: true });
  execFileSync(amddwarf, ['build', path.join(source, 'program.json'), '-o', object]);
  dc = await startAdapter(amddwarf);
});

after(async () => {
  await dc.stop();
});

async function variable(ref, name, extra) {
  const r = await dc.variablesRequest({ variablesReference: ref, ...extra });
  const v = r.body.variables.find((x) => x.name === name);
  assert.ok(v, `no variable ${name} in ${JSON.stringify(r.body.variables)}`);
  return v;
}

async function scope(frameId, name) {
  const r = await dc.scopesRequest({ frameId });
  return r.body.scopes.find((s) => s.name === name).variablesReference;
}

test('a session over a stop', async (t) => {
  await t.test('initialize', async () => {
    const r = await dc.initializeRequest({ adapterID: 'amddwarf', linesStartAt1: true });
    assert.equal(r.body.supportsSetVariable, true);
    assert.equal(r.body.supportsReadMemoryRequest, true);
    assert.equal(r.body.supportsAmdgpuLanesRequest, true);
  });

  await t.test('launch, then stopped after configurationDone', async () => {
    const stopped = dc.waitForEvent('stopped');
    await dc.launchRequest({ program: object, stop });
    await dc.configurationDoneRequest();
    const e = await stopped;
    assert.equal(e.body.allThreadsStopped, true);
    assert.equal(e.body.threadId, 1);
  });

  await t.test('threads: one per wave, with place, ISA, active lanes and line', async () => {
    const r = await dc.threadsRequest();
    assert.deepEqual(r.body.threads, [
      { id: 1, name: 'wg(1,0,0) wave 0 gfx900 8/64 lanes at dap.cl:12' },
      { id: 2, name: 'wg(1,0,0) wave 1 gfx900 4/64 lanes at dap.cl:13' },
    ]);
  });

  await t.test('stackTrace: the leaf and its caller', async () => {
    const r = await dc.stackTraceRequest({ threadId: 1 });
    assert.equal(r.body.totalFrames, 2);
    const outer = r.body.stackFrames[1];
    assert.deepEqual(outer, {
      id: 2, name: 'kernel', source: { name: 'dap.cl', path: '/src/dap.cl' },
      line: 5, column: 7, instructionPointerReference: '0x1084',
    });
    assert.equal(r.body.stackFrames[0].instructionPointerReference, '0x1120');
    const paged = await dc.stackTraceRequest({ threadId: 1, startFrame: 1, levels: 1 });
    assert.deepEqual(paged.body.stackFrames, [outer]);
  });

  await t.test('scopes and the outer frame\'s variables', async () => {
    const r = await dc.scopesRequest({ frameId: 1 });
    assert.deepEqual(r.body.scopes.map((s) => s.name), ['Locals', 'Arguments', 'Globals', 'Registers', 'Lanes']);
    const total = await variable(await scope(2, 'Locals'), 'total');
    assert.equal(total.value, '77');
    const n = await variable(await scope(1, 'Arguments'), 'n');
    assert.equal(n.value, '10');
    const regs = await scope(1, 'Registers');
    assert.equal((await variable(regs, 'pc')).value, '0x0000000000001120');
    assert.equal((await variable(regs, 'exec')).value, '0x00000000000000ff');
    assert.equal((await variable(regs, 's33')).value, '0x00002000');
    assert.equal((await variable(regs, 'v1 [lane 0]')).value, '0x00000064');
    const lanes = await scope(1, 'Lanes');
    assert.equal((await variable(lanes, 'active')).value, '0xff (8 of 64 lanes: 0-7; from EXEC)');
    // A group of lanes at a PC reads as its row of the `lanes` table.
    assert.equal((await variable(lanes, '[0-7]')).value, '0x1120 dap.cl:12:5 in leaf');
    const table = await dc.evaluateRequest({ expression: 'lanes', frameId: 1, context: 'repl' });
    assert.match(table.body.result, /\n  0x1120 +dap\.cl:12:5 in leaf +8 lanes: 0-7\n/);
  });

  await t.test('variables: a struct\'s members and an array paged', async () => {
    const locals = await scope(1, 'Locals');
    const s = await variable(locals, 's');
    assert.equal(s.value, '{x = 1, y = 2}');
    assert.equal(s.type, 'S');
    const members = await dc.variablesRequest({ variablesReference: s.variablesReference, filter: 'named' });
    assert.deepEqual(members.body.variables.map((v) => [v.name, v.value, v.evaluateName]),
      [['lanes', '64 lanes', undefined], ['x', '1', 's.x'], ['y', '2', 's.y']]);
    const arr = await variable(locals, 'arr');
    assert.equal(arr.indexedVariables, 10);
    assert.equal(arr.type, 'int[10]');
    const page = await dc.variablesRequest({
      variablesReference: arr.variablesReference, filter: 'indexed', start: 7, count: 3,
    });
    assert.deepEqual(page.body.variables.map((v) => [v.name, v.value, v.evaluateName]),
      [['[7]', '70', 'arr[7]'], ['[8]', '80', 'arr[8]'], ['[9]', '90', 'arr[9]']]);
    // Per-lane values: the lanes node groups lanes whose values agree.
    const lanesNode = members.body.variables[0];
    const groups = await dc.variablesRequest({ variablesReference: lanesNode.variablesReference });
    assert.deepEqual(groups.body.variables.map((v) => [v.name, v.value, v.evaluateName]), [
      ['[0]', '{x = 1, y = 2}', 's @lanes 0'],
      ['[1]', '{x = 11, y = 12}', 's @lanes 1'],
      ['[2-7]', '<unavailable>', 's @lanes 2-7'],
      // EXEC is 0xff: lanes 8-63 are inactive, marked and not read.
      ['[8-63]', '<inactive>', 's @lanes 8-63'],
    ]);
  });

  await t.test('evaluate: two lanes with different values', async () => {
    const lane3 = await dc.evaluateRequest({ expression: 'lane 3', frameId: 1, context: 'repl' });
    assert.equal(lane3.body.result, 'focus: lane 3 of thread 1');
    const a = await dc.evaluateRequest({ expression: 'lane_id', frameId: 1, context: 'watch' });
    assert.equal(a.body.result, '103');
    await dc.evaluateRequest({ expression: 'lane 6', frameId: 1, context: 'repl' });
    const b = await dc.evaluateRequest({ expression: 'lane_id', frameId: 1, context: 'hover' });
    assert.equal(b.body.result, '106');
    const table = await dc.evaluateRequest({ expression: 'lane_id @lanes 0-2', frameId: 1, context: 'repl' });
    assert.equal(table.body.result, 'lane_id (int) at pc 0x1120\nlanes  value\n    0  100\n    1  101\n    2  102\n');
    await dc.evaluateRequest({ expression: 'lane 0', frameId: 1, context: 'repl' });
    const bad = await dc.evaluateRequest({ expression: 's.z', frameId: 1, context: 'repl' })
      .then(() => null, (e) => e);
    assert.equal(bad.message, "s.z: no member 'z' in struct S (not_found)");
  });

  await t.test('inactive lanes: marked in every view as eval marks them, writes refused', async () => {
    // Wave 1: EXEC 0xff, lane_id in v1 is 100 + lane. Lanes 8 and 9 are inactive.
    // Every lane has its own value (100 + lane); lanes 8 and 9 are inactive.
    const table = await dc.evaluateRequest({ expression: 'lane_id @lanes 5-9', frameId: 1, context: 'repl' });
    assert.equal(table.body.result,
      'lane_id (int) at pc 0x1120\nlanes  value\n    5  105\n    6  106\n    7  107\n  8-9  <inactive>\n');
    // The same question through the CLI gets the same answer, text for text.
    const wave = path.join(work, 'wave1.json');
    fs.writeFileSync(wave, JSON.stringify(JSON.parse(fs.readFileSync(stop, 'utf8')).waves[0].snapshot));
    const cli = execFileSync(amddwarf, ['eval', object, '--state', wave, '--lanes', '5-9', 'lane_id'],
      { encoding: 'utf8' });
    assert.equal(cli, table.body.result);
    // One lane at a time, the CLI, hover and the per-lane nodes agree too.
    for (const lane of [6, 9]) {
      const one = execFileSync(amddwarf, ['eval', object, '--state', wave, '--lane', String(lane), 'lane_id'],
        { encoding: 'utf8' });
      await dc.evaluateRequest({ expression: `lane ${lane}`, frameId: 1, context: 'repl' });
      const shown = await dc.evaluateRequest({ expression: 'lane_id', frameId: 1, context: 'hover' });
      assert.equal(one, `lane_id = ${shown.body.result}\n`);
    }
    // Focused on an inactive lane, hover and the Locals scope say so.
    await dc.evaluateRequest({ expression: 'lane 9', frameId: 1, context: 'repl' });
    const hover = await dc.evaluateRequest({ expression: 'lane_id', frameId: 1, context: 'hover' });
    assert.equal(hover.body.result, '<inactive>');
    const locals = await scope(1, 'Locals');
    const laneId = await variable(locals, 'lane_id');
    assert.equal(laneId.value, '<inactive>');
    // Writing the focused inactive lane is refused, and nothing is written.
    const refused = await dc.setVariableRequest({ variablesReference: locals, name: 'lane_id', value: '5' })
      .then(() => null, (e) => e);
    assert.match(refused.message, /^cannot assign '5' to lane_id: lane 9 is inactive: it stands at its own PC, where 'lane_id' may be kept elsewhere; writing inactive lanes must be asked for explicitly/);
    await dc.evaluateRequest({ expression: 'lane 0', frameId: 1, context: 'repl' });
    const groups = (await dc.variablesRequest({ variablesReference: laneId.variablesReference, filter: 'named' }))
      .body.variables[0].variablesReference;
    const group = await dc.setVariableRequest({ variablesReference: groups, name: '[7-8]', value: '5' })
      .then(() => null, (e) => e);
    assert.match(group.message, /lane 8 is inactive/);
    // A lane group answers with its own new value, not the focused lane's (0: 100).
    const written = await dc.setVariableRequest({ variablesReference: groups, name: '[3]', value: '-4' });
    assert.equal(written.body.value, '-4');
    const after = await dc.evaluateRequest({ expression: 'lane_id @lanes 0-3,7', frameId: 1, context: 'repl' });
    assert.equal(after.body.result,
      'lane_id (int) at pc 0x1120\nlanes  value\n    0  100\n    1  101\n    2  102\n    3  -4\n    7  107\n');
  });

  await t.test('amdgpu/lanes', async () => {
    const r = await dc.customRequest('amdgpu/lanes', { threadId: 2 });
    assert.equal(r.body.waveSize, 64);
    assert.equal(r.body.activeMask, '0xf');
    assert.deepEqual(r.body.lanes[3], {
      lane: 3, active: true, pc: '0x1140', source: { name: 'dap.cl', path: '/src/dap.cl' },
      line: 13, column: 3,
    });
    assert.deepEqual(r.body.lanes[4], { lane: 4, active: false, pc: null, reason: 'optimized_out' });
  });

  await t.test('setVariable, then read back', async () => {
    const locals = await scope(1, 'Locals');
    const s = await variable(locals, 's');
    const invalidated = dc.waitForEvent('invalidated');
    const r = await dc.setVariableRequest({ variablesReference: s.variablesReference, name: 'x', value: '42' });
    assert.equal(r.body.value, '42');
    await invalidated;
    assert.equal((await variable(s.variablesReference, 'x')).value, '42');
    assert.equal((await variable(locals, 's')).value, '{x = 42, y = 2}');
    const e = await dc.customRequest('setExpression', { expression: 'arr[1]', value: '-3', frameId: 1 });
    assert.equal(e.body.value, '-3');
    const arr = await dc.evaluateRequest({ expression: 'arr', frameId: 1, context: 'watch' });
    assert.equal(arr.body.result, '{0, -3, 20, 30, 40, 50, 60, 70, 80, 90}');
  });

  await t.test('disassemble with source locations', async () => {
    const r = await dc.disassembleRequest({ memoryReference: '0x1120', instructionOffset: -1, instructionCount: 3 });
    assert.deepEqual(r.body.instructions.map((i) => [i.address, i.instruction, i.instructionBytes, i.line]),
      [['0x111c', 's_nop 0', '000080bf', 10], ['0x1120', 's_nop 0', '000080bf', 12],
       ['0x1124', 's_nop 0', '000080bf', 12]]);
    assert.deepEqual(r.body.instructions[1].location, { name: 'dap.cl', path: '/src/dap.cl' });
    // A function's first instruction is named by its symbol (leaf at 0x1100), no other.
    const entry = await dc.disassembleRequest({ memoryReference: '0x1100', instructionCount: 2 });
    assert.deepEqual(entry.body.instructions.map((i) => i.symbol), ['leaf', undefined]);
  });

  await t.test('readMemory in private_lane and local', async () => {
    const p = await dc.customRequest('readMemory', { memoryReference: '1/private_lane:1:0x80', count: 8 });
    assert.equal(Buffer.from(p.body.data, 'base64').toString('hex'), '0b0000000c000000');
    assert.equal(p.body.address, '0x80');
    const l = await dc.customRequest('readMemory', { memoryReference: '1/local:0x100', offset: 8, count: 8 });
    assert.equal(Buffer.from(l.body.data, 'base64').toString('hex'), '140000001e000000');
    const partial = await dc.customRequest('readMemory', { memoryReference: '1/local:0x120', count: 16 });
    assert.equal(Buffer.from(partial.body.data, 'base64').toString('hex'), '500000005a000000'.slice(0, 16));
    assert.equal(partial.body.unreadableBytes, 8);
    const noLane = await dc.customRequest('readMemory', { memoryReference: '1/private_lane:0x80', count: 4 })
      .then(() => null, (e) => e);
    assert.equal(noLane.message,
      "memoryReference '1/private_lane:0x80': private_lane memory needs a lane: private_lane:LANE:ADDRESS");
  });

  await t.test('writeMemory: an inactive lane only when asked', async () => {
    // Thread 2's EXEC is 0xf: lane 5 is inactive, lane 0 active.
    const refused = await dc.customRequest('writeMemory', { memoryReference: '2/private_lane:5:0x0', data: 'AQID' })
      .then(() => null, (e) => e);
    assert.equal(refused.message, 'writeMemory: private_lane memory of lane 5 at 0x0: the memory of ' +
      'inactive lane 5; writing inactive lanes must be asked for explicitly (invalid_argument)');
    const bad = await dc.customRequest('readMemory', { memoryReference: '2/private_lane:70:0x0', count: 4 })
      .then(() => null, (e) => e);
    assert.equal(bad.message, 'readMemory: lane 70 is not a lane of the wave (0-63) (bad_lane)');
    const w = await dc.customRequest('writeMemory', { memoryReference: '2/private_lane:0:0x80', data: 'CQo=' });
    assert.equal(w.body.bytesWritten, 2);
    const r = await dc.customRequest('readMemory', { memoryReference: '2/private_lane0:0x80', count: 4 });
    assert.equal(Buffer.from(r.body.data, 'base64').toString('hex'), '090a0000');
    const asked = await dc.customRequest('writeMemory', { memoryReference: '2/private_lane:0:0x80', data: 'BQA=',
      inactiveLanes: true });
    assert.equal(asked.body.bytesWritten, 2);
  });

  await t.test('a listing that outgrows the reference table', async () => {
    // References are numbered in order and their table doubles from 64
    // entries. Fill it to 64, then list a scope whose values need references
    // of their own: the table grows in the middle of the listing.
    const frame = await dc.stackTraceRequest({ threadId: 2 });
    const locals = await scope(frame.body.stackFrames[0].id, 'Locals');
    let last = 0;
    for (let i = 0; last < 64 && i < 200; i++) {
      const expression = '*&'.repeat(Math.floor(i / 10)) + `arr[${i % 10}]`;
      last = (await dc.evaluateRequest({ expression, frameId: 1, context: 'repl' })).body.variablesReference;
    }
    assert.equal(last, 64);
    const r = await dc.variablesRequest({ variablesReference: locals });
    assert.deepEqual(r.body.variables.filter((v) => v.variablesReference > 0)
      .map((v) => [v.name, v.variablesReference]),
      [['s', 65], ['lane_id', 66], ['s @ dap.cl:11', 67], ['arr', 68]]);
  });

  await t.test('variables: a shadowed variable listed under where it is declared', async () => {
    // Thread 2 stops in a block of leaf whose int s hides leaf's struct s.
    const frames = await dc.stackTraceRequest({ threadId: 2 });
    const locals = await scope(frames.body.stackFrames[0].id, 'Locals');
    const r = await dc.variablesRequest({ variablesReference: locals });
    assert.deepEqual(r.body.variables.map((v) => [v.name, v.value, v.type, v.evaluateName]), [
      ['s', '88', 'int', 's'],
      ['lane_id', '200', 'int', 'lane_id'],
      ['s @ dap.cl:11', '{x = 5, y = 6}', 'S', undefined],
      ['arr', '<unavailable>', 'int[10]', 'arr'],
    ]);
    const outer = r.body.variables[2];
    const members = await dc.variablesRequest({ variablesReference: outer.variablesReference, filter: 'named' });
    assert.deepEqual(members.body.variables.map((v) => [v.name, v.value, v.evaluateName]),
      [['lanes', '64 lanes', undefined], ['x', '5', undefined], ['y', '6', undefined]]);
    const groups = await dc.variablesRequest({ variablesReference: members.body.variables[0].variablesReference });
    assert.deepEqual(groups.body.variables.map((v) => [v.name, v.value, v.evaluateName]), [
      ['[0]', '{x = 5, y = 6}', undefined],
      ['[1-3]', '<unavailable>', undefined],
      // EXEC is 0xf: lanes 4-63 are inactive.
      ['[4-63]', '<inactive>', undefined],
    ]);
    // Written through the list: the outer variable's member, then the outer variable's own name.
    await dc.setVariableRequest({ variablesReference: outer.variablesReference, name: 'y', value: '-6' });
    assert.equal((await variable(locals, 's @ dap.cl:11')).value, '{x = 5, y = -6}');
    const w = await dc.setVariableRequest({ variablesReference: locals, name: 's', value: '89' });
    assert.equal(w.body.value, '89');
    assert.deepEqual((await dc.variablesRequest({ variablesReference: locals })).body.variables
      .map((v) => v.value), ['89', '200', '{x = 5, y = -6}', '<unavailable>']);
  });

  await t.test('bad requests get error responses and the adapter keeps serving', async () => {
    const unknown = await dc.customRequest('frobnicate', {}).then(() => null, (e) => e);
    assert.equal(unknown.message, "unknown request 'frobnicate'");
    const badThread = await dc.stackTraceRequest({ threadId: 9 }).then(() => null, (e) => e);
    assert.equal(badThread.message, "argument 'threadId' must be a thread id from 1 to 2");
    const zero = await dc.stackTraceRequest({ threadId: 0 }).then(() => null, (e) => e);
    assert.equal(zero.message, "argument 'threadId' must be a thread id from 1 to 2");
    const text = await dc.stackTraceRequest({ threadId: '1' }).then(() => null, (e) => e);
    assert.equal(text.message, "argument 'threadId' must be a thread id from 1 to 2");
    const r = await dc.threadsRequest();
    assert.equal(r.body.threads.length, 2);
  });

  await t.test('registers: written through the library, inactive lanes refused', async () => {
    // Thread 2: EXEC 0xf, v1 = 200-203 in lanes 0-3 (lane_id), s10 the inner s.
    const frame = (await dc.stackTraceRequest({ threadId: 2 })).body.stackFrames[0].id;
    const regs = await scope(frame, 'Registers');
    const w = await dc.setVariableRequest({ variablesReference: regs, name: 'v1 [lane 0]', value: '210' });
    assert.equal(w.body.value, '0x000000d2');
    const lane = await dc.evaluateRequest({ expression: 'lane_id', frameId: frame, context: 'watch' });
    assert.equal(lane.body.result, '210');
    await dc.setVariableRequest({ variablesReference: regs, name: 'v1 [lane 0]', value: '0xc8' });
    assert.equal((await variable(regs, 'v1 [lane 0]')).value, '0x000000c8');
    await dc.evaluateRequest({ expression: 'lane 5', frameId: frame, context: 'repl' });
    const inactive = await dc.setVariableRequest({ variablesReference: regs, name: 'v1 [lane 5]', value: '1' })
      .then(() => null, (e) => e);
    await dc.evaluateRequest({ expression: 'lane 0', frameId: frame, context: 'repl' });
    assert.equal(inactive.message,
      'setVariable: v1 of inactive lane 5: writing inactive lanes must be asked for explicitly (invalid_argument)');
    // EXEC 0x3: lanes 2 and 3 become inactive, and their VGPRs are refused.
    const exec = await dc.setVariableRequest({ variablesReference: regs, name: 'exec', value: '3' });
    assert.equal(exec.body.value, '0x0000000000000003');
    const now = await dc.customRequest('amdgpu/lanes', { threadId: 2 });
    assert.deepEqual(now.body.lanes.filter((l) => l.active).map((l) => l.lane), [0, 1]);
    // A vector register's name says its lane, whichever lane has the focus.
    const lane2 = await dc.setVariableRequest({ variablesReference: regs, name: 'v1 [lane 2]', value: '1' })
      .then(() => null, (e) => e);
    assert.equal(lane2.message,
      'setVariable: v1 of inactive lane 2: writing inactive lanes must be asked for explicitly (invalid_argument)');
    await dc.setVariableRequest({ variablesReference: regs, name: 'exec', value: '0xf' });
    const v1lane2 = await dc.setVariableRequest({ variablesReference: regs, name: 'v1 [lane 2]', value: '0xcb' });
    assert.equal(v1lane2.body.value, '0x000000cb');
    assert.equal((await variable(regs, 'v1 [lane 0]')).value, '0x000000c8');
    const unlisted = await dc.setVariableRequest({ variablesReference: regs, name: 'v1 [lane 64]', value: '1' })
      .then(() => null, (e) => e);
    assert.equal(unlisted.message, "setVariable: no register 'v1 [lane 64]' is listed here");
    assert.equal((await dc.customRequest('amdgpu/lanes', { threadId: 2 })).body.lanes.filter((l) => l.active).length, 4);
    const big = await dc.setVariableRequest({ variablesReference: regs, name: 's10', value: '0x100000000' })
      .then(() => null, (e) => e);
    assert.equal(big.message, "setVariable: '0x100000000' is not a 4-byte unsigned integer (invalid_argument)");
    const s10 = await dc.setVariableRequest({ variablesReference: regs, name: 's10', value: '89' });
    assert.equal(s10.body.value, '0x00000059');
  });

  await t.test('memoryReference: view a variable\'s memory', async () => {
    // Thread 2's outer s (DW_OP_fbreg 0: s33 = 0x2000 is the wave's, 0x2000 >> 6 = 0x80 the
    // lane's private address) is {x = 5, y = -6} after the writes above; the inner s is in s10.
    const frame = (await dc.stackTraceRequest({ threadId: 2 })).body.stackFrames[0].id;
    const locals = await scope(frame, 'Locals');
    const outer = await variable(locals, 's @ dap.cl:11');
    assert.equal(outer.memoryReference, '2/private_lane:0:0x80');
    const r = await dc.customRequest('readMemory', { memoryReference: outer.memoryReference, count: 8 });
    assert.equal(Buffer.from(r.body.data, 'base64').toString('hex'), '05000000faffffff');
    assert.equal((await variable(locals, 's')).memoryReference, undefined);
  });

  await t.test('disconnect', async () => {
    const r = await dc.disconnectRequest({});
    assert.equal(r.success, true);
  });
});

test('unwinding that stops: the label frame is counted and says what `unwind` says', async () => {
  // Wave 0 without s30:s31, which hold leaf's return address.
  const snapshot = JSON.parse(fs.readFileSync(stop, 'utf8')).waves[0].snapshot;
  delete snapshot.registers.s30;
  delete snapshot.registers.s31;
  const state = path.join(work, 'no-return.json');
  fs.writeFileSync(state, JSON.stringify(snapshot));
  const noReturn = path.join(work, 'no-return-stop.json');
  fs.writeFileSync(noReturn, JSON.stringify({ waves: [{ snapshot }] }));
  let cli;
  try {
    execFileSync(amddwarf, ['unwind', object, '--state', state, '--json']);
  } catch (e) {
    cli = JSON.parse(e.stdout.toString());
  }
  assert.ok(cli && cli.end, 'unwind --json exits 1 with an end record');
  const client = await startAdapter(amddwarf);
  try {
    await client.initializeRequest({ adapterID: 'amddwarf' });
    await client.launchRequest({ program: object, stop: noReturn });
    const r = await client.stackTraceRequest({ threadId: 1 });
    assert.equal(r.body.stackFrames.length, cli.frames.length + 1);
    assert.equal(r.body.totalFrames, r.body.stackFrames.length);
    const label = r.body.stackFrames[cli.frames.length];
    assert.equal(label.name, `<unwinding stopped: ${cli.end.message} (${cli.end.status})>`);
    assert.equal(label.presentationHint, 'label');
    const paged = await client.stackTraceRequest({ threadId: 1, startFrame: 1, levels: 1 });
    assert.deepEqual(paged.body.stackFrames, [label]);
    assert.equal(paged.body.totalFrames, 2);
  } finally {
    await client.stop();
  }
});

test('a wave32 stop over a wave64 object: the thread says why it has no frames', async () => {
  const wave32 = path.join(work, 'wave32-stop.json');
  fs.writeFileSync(wave32, '{"waves": [{"snapshot": {"wave_size": 32, "pc": "0x1120"}}]}');
  const client = await startAdapter(amddwarf);
  try {
    await client.initializeRequest({ adapterID: 'amddwarf' });
    await client.launchRequest({ program: object, stop: wave32 });
    const w = await client.stackTraceRequest({ threadId: 1 }).then(() => null, (x) => x);
    assert.match(w.message, /^thread 1 has no frames: .*the wave is wave32, its code object \(gfx900\) has wave64 code only \(wave_mismatch\)$/);
  } finally {
    await client.stop();
  }
});

test('a thread stopped on a line-0 row names the file alone, not line 0', async () => {
  const program = JSON.parse(fs.readFileSync(path.join(source, 'program.json'), 'utf8'));
  program.units[0].lines.push({ offset: 352, line: 0, column: 0 });
  const spec = path.join(work, 'line0.json');
  const elf = path.join(work, 'line0.elf');
  fs.writeFileSync(spec, JSON.stringify(program));
  execFileSync(amddwarf, ['build', spec, '-o', elf]);
  const line0 = path.join(work, 'line0-stop.json');
  fs.writeFileSync(line0, '{"waves": [{"snapshot": {"architecture": "gfx900", "pc": "0x1160", "exec": "0x3"}}]}');
  const client = await startAdapter(amddwarf);
  try {
    await client.initializeRequest({ adapterID: 'amddwarf' });
    await client.launchRequest({ program: elf, stop: line0 });
    const r = await client.threadsRequest();
    assert.deepEqual(r.body.threads, [{ id: 1, name: 'wave #1 gfx900 2/64 lanes at dap.cl' }]);
  } finally {
    await client.stop();
  }
});

test('a stop that does not load is an error response', async () => {
  const bad = path.join(work, 'bad-stop.json');
  fs.writeFileSync(bad, '{"waves": [{"snapshot": {"wave_size": 48}}]}');
  const client = await startAdapter(amddwarf);
  try {
    await client.initializeRequest({ adapterID: 'amddwarf' });
    const e = await client.launchRequest({ program: object, stop: bad }).then(() => null, (x) => x);
    // The snapshot is read when its wave is: the message gives its byte
    // offset in the file ('{"waves": [{"snapshot": ' is 24 bytes).
    assert.equal(e.message, `launch: the stop does not load: ${bad} waves[0].snapshot ` +
      '(at byte 24): wave_size must be 32 or 64 (snapshot_schema)');
    const typo = path.join(work, 'typo-stop.json');
    fs.writeFileSync(typo, '{"waves": [{"snapshot": {"pc": "0x1120", "regsiters": {"s8": 1}}}]}');
    const t = await client.launchRequest({ program: object, stop: typo }).then(() => null, (x) => x);
    assert.equal(t.message, `launch: the stop does not load: ${typo} waves[0].snapshot (at byte 24): ` +
      "'regsiters' is not a snapshot member; the nearest is 'registers' (snapshot_schema)");
    const ok = await client.launchRequest({ program: object, stop });
    assert.equal(ok.success, true);
  } finally {
    await client.stop();
  }
});

// A write that changes the active lanes: leaf's DW_AT_LLVM_active_lane is
// s10:s11, which the variable `active` also names. After setVariable
// writes 3 there, the lanes are read again: lanes 0 and 1 active (the
// mask written), where EXEC and the 0xf before the write said 0-3.
test('lanes are read again after a write that changes them', async () => {
  const program = JSON.parse(fs.readFileSync(path.join(source, 'program.json'), 'utf8'));
  const unit = program.units[0];
  const mask = 'DW_OP_regx s10; DW_OP_piece 4; DW_OP_regx s11; DW_OP_piece 4';
  unit.types.push({ id: 'mask', kind: 'base', name: 'unsigned long', byte_size: 8,
                    encoding: 'unsigned' });
  const leaf = unit.functions[1];
  leaf.active_lane = mask;
  leaf.variables.push({ name: 'active', type: 'mask', location: mask });
  delete leaf.blocks;
  const programFile = path.join(work, 'lanes-program.json');
  const elf = path.join(work, 'lanes.elf');
  fs.writeFileSync(programFile, JSON.stringify(program));
  execFileSync(amddwarf, ['build', programFile, '-o', elf]);
  const stopFile = path.join(work, 'lanes-stop.json');
  fs.writeFileSync(stopFile, JSON.stringify({ waves: [{ snapshot: {
    architecture: 'gfx900', pc: '0x1120', exec: '0xff', lane: 0,
    registers: { v1: [100, 101, 102, 103, 104, 105, 106, 107], s8: 10, s10: '0xf', s11: 0,
                 s30: '0x1084', s31: 0, s32: '0x4000', s33: '0x2000' } } }] }));
  const client = await startAdapter(amddwarf);
  try {
    await client.initializeRequest({ adapterID: 'amddwarf' });
    await client.launchRequest({ program: elf, stop: stopFile });
    let lanes = await client.customRequest('amdgpu/lanes', { threadId: 1 });
    assert.equal(lanes.body.activeMask, '0xf');
    const scopes = await client.scopesRequest({ frameId: 1 });
    const locals = scopes.body.scopes.find((x) => x.name === 'Locals').variablesReference;
    const set = await client.setVariableRequest({ variablesReference: locals, name: 'active',
                                                  value: '3' });
    assert.equal(set.success, true);
    lanes = await client.customRequest('amdgpu/lanes', { threadId: 1 });
    assert.equal(lanes.body.activeMask, '0x3');
    assert.deepEqual(lanes.body.lanes.slice(0, 3).map((l) => l.active), [true, true, false]);
    const threads = await client.threadsRequest();
    assert.equal(threads.body.threads[0].name, 'wave #1 gfx900 2/64 lanes at dap.cl:12');
  } finally {
    await client.stop();
  }
});

// A stop of 70 waves, more than the 64 the adapter keeps open: visiting
// them all closes the first ones, which must come back as they were left,
// the focused lane of thread 1 (lane 3: v1's 103 in stop.json) and the
// write to thread 2 (lane_id = 55), and their names.
test('waves let go and opened again keep their focus, writes and names', async () => {
  const wave = JSON.parse(fs.readFileSync(stop, 'utf8')).waves[0].snapshot;
  const many = path.join(work, 'many-stop.json');
  fs.writeFileSync(many, JSON.stringify({ waves: Array.from({ length: 70 }, () => ({ snapshot: wave })) }));
  const client = await startAdapter(amddwarf);
  try {
    await client.initializeRequest({ adapterID: 'amddwarf' });
    await client.launchRequest({ program: object, stop: many });
    let threads = await client.threadsRequest();
    assert.equal(threads.body.threads.length, 70);
    assert.equal(threads.body.threads[0].name, 'wave #1 gfx900 8/64 lanes at dap.cl:12');
    assert.equal(threads.body.threads[1].name, 'wave #2 (not read yet)');
    const focus = await client.evaluateRequest({ expression: 'lane 3', frameId: 1, context: 'repl' });
    assert.equal(focus.body.result, 'focus: lane 3 of thread 1');
    const scopes = await client.scopesRequest({ frameId: 4097 });
    const locals = scopes.body.scopes.find((x) => x.name === 'Locals').variablesReference;
    await client.setVariableRequest({ variablesReference: locals, name: 'lane_id', value: '55' });
    for (let t = 3; t <= 70; t++)
      assert.equal((await client.stackTraceRequest({ threadId: t })).body.totalFrames, 2);
    threads = await client.threadsRequest();
    assert.equal(threads.body.threads[1].name, 'wave #2 gfx900 8/64 lanes at dap.cl:12');
    const again = await client.variablesRequest({ variablesReference: locals });
    assert.equal(again.body.variables.find((v) => v.name === 'lane_id').value, '55');
    const lane = await client.evaluateRequest({ expression: 'lane_id', frameId: 1, context: 'watch' });
    assert.equal(lane.body.result, '103');
  } finally {
    await client.stop();
  }
});
