// `amddwarf dap` on one big code object (bench/gen_object.sh's, 200 copies):
// the first stackTrace, scopes and variables after `stopped`, each timed
// from its request to its response, over RUNS fresh adapters (median).
// The wave of STOP (a snapshot, as bench/oneshot.sh writes) stands in the
// last function of the last unit, so a reader that loads units in order
// pays for all of them.
//
// Usage: node bench/dap_big.js AMDDWARF OBJECT SNAPSHOT [RUNS]
//   with NODE_PATH pointing at tests/dap's node_modules in the build tree.
'use strict';
const { DebugClient } = require('@vscode/debugadapter-testsupport');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const [amddwarf, object, snapshot, runsArg] = process.argv.slice(2);
const runs = Number(runsArg || 5);

async function once() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dap-big-'));
  const stop = path.join(dir, 'stop.json');
  fs.writeFileSync(stop, JSON.stringify({ waves: [{ snapshot: JSON.parse(fs.readFileSync(snapshot)) }] }));
  const dc = new DebugClient(amddwarf, 'dap', 'amddwarf', {}, true);
  await dc.start();
  const ms = (t0) => Number(process.hrtime.bigint() - t0) / 1e6;
  try {
    await dc.initializeRequest({ adapterID: 'amddwarf' });
    let t0 = process.hrtime.bigint();
    const stopped = dc.waitForEvent('stopped');
    await dc.launchRequest({ program: object, stop });
    await dc.configurationDoneRequest();
    const e = await stopped;
    const launch = ms(t0);
    t0 = process.hrtime.bigint();
    const st = await dc.stackTraceRequest({ threadId: e.body.threadId });
    const stack = ms(t0);
    t0 = process.hrtime.bigint();
    const sc = await dc.scopesRequest({ frameId: st.body.stackFrames[0].id });
    const scopes = ms(t0);
    t0 = process.hrtime.bigint();
    const vars = await dc.variablesRequest({ variablesReference: sc.body.scopes[0].variablesReference });
    const variables = ms(t0);
    if (vars.body.variables.length === 0)
      throw new Error('no variables in the first scope');
    return { launch, stack, scopes, variables, frames: st.body.stackFrames.length,
             names: vars.body.variables.map((v) => `${v.name}=${v.value}`).join(' ') };
  } finally {
    await dc.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

(async () => {
  const results = [];
  for (let i = 0; i < runs; i++)
    results.push(await once());
  const median = (key) => {
    const v = results.map((r) => r[key]).sort((a, b) => a - b);
    return v[Math.floor(v.length / 2)];
  };
  const total = results.map((r) => r.stack + r.scopes + r.variables).sort((a, b) => a - b);
  console.log(`# amddwarf dap on ${path.basename(object)}, median of ${runs} adapters`);
  console.log(`frames ${results[0].frames}; first scope: ${results[0].names}`);
  console.log('| launch to stopped | stackTrace | scopes | variables | the three together (target 50 ms) |');
  console.log('|---|---|---|---|---|');
  console.log(`| ${median('launch').toFixed(1)} ms | ${median('stack').toFixed(1)} ms | ` +
              `${median('scopes').toFixed(1)} ms | ${median('variables').toFixed(1)} ms | ` +
              `${total[Math.floor(total.length / 2)].toFixed(1)} ms |`);
})().catch((e) => { console.error(e); process.exit(1); });
