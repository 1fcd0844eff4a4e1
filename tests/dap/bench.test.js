// `amddwarf dap` on a whole GPU stop: the 2,560 waves of
// bench/gpu_stop_workload.c (8 frames each, 8 variables in the leaf), written
// by gpu_stop_write, then 1,000 requests one after another, cycling through
// stackTrace, scopes, the leaf's locals, an evaluate, an outer frame's
// variables and amdgpu/lanes on waves spread over the stop. Prints the launch
// time and the median and 90th percentile response times (BENCHMARKS.md).
'use strict';
const { test } = require('node:test');
const assert = require('node:assert/strict');
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const { startAdapter } = require('./adapter');

const amddwarf = process.env.AMDDWARF;
const work = process.env.DAP_WORK;
const REQUESTS = 1000;

test('1,000 requests to a stop of 2,560 waves', async () => {
  fs.mkdirSync(work, { recursive: true });
  execFileSync(process.env.GPU_STOP_WRITE, [work]);
  const dc = await startAdapter(amddwarf);
  // A guard against a hung adapter, far above the launch time on a loaded machine.
  dc.defaultTimeout = 300000;
  try {
    await dc.initializeRequest({ adapterID: 'amddwarf' });
    let t0 = process.hrtime.bigint();
    await dc.launchRequest({
      program: path.join(work, 'gpu_stop.elf'), stop: path.join(work, 'gpu_stop.json'),
    });
    const launchMs = Number(process.hrtime.bigint() - t0) / 1e6;
    await dc.configurationDoneRequest();
    t0 = process.hrtime.bigint();
    const threads = await dc.threadsRequest();
    const threadsMs = Number(process.hrtime.bigint() - t0) / 1e6;
    assert.equal(threads.body.threads.length, 2560);
    assert.equal(threads.body.threads[5].name, 'wg(1,0,0) wave 1 gfx900 59/64 lanes at ??');

    const times = [];
    const kinds = ['stackTrace', 'scopes', 'locals', 'evaluate', 'outer', 'lanes'];
    for (let i = 0; i < REQUESTS; i++) {
      const wave = (i * 37) % 2560;
      const threadId = wave + 1;
      const frameId = wave * 4096 + 1;
      const kind = kinds[i % kinds.length];
      const start = process.hrtime.bigint();
      let r;
      if (kind === 'stackTrace') {
        r = await dc.stackTraceRequest({ threadId });
        assert.equal(r.body.totalFrames, 8);
      } else if (kind === 'scopes') {
        r = await dc.scopesRequest({ frameId });
      } else if (kind === 'locals') {
        const scopes = await dc.scopesRequest({ frameId });
        const locals = scopes.body.scopes[0].variablesReference;
        const t = process.hrtime.bigint();
        r = await dc.variablesRequest({ variablesReference: locals });
        times.push(Number(process.hrtime.bigint() - t) / 1e6);
        assert.equal(r.body.variables.find((v) => v.name === 'count').value, String(1000 + wave));
        continue;
      } else if (kind === 'evaluate') {
        r = await dc.evaluateRequest({ expression: 'lane_id', frameId, context: 'watch' });
        assert.equal(r.body.result, String(wave * 64));
      } else if (kind === 'outer') {
        r = await dc.evaluateRequest({ expression: 'lane_id @lanes all', frameId, context: 'repl' });
      } else {
        r = await dc.customRequest('amdgpu/lanes', { threadId });
        assert.equal(r.body.lanes.length, 64);
      }
      times.push(Number(process.hrtime.bigint() - start) / 1e6);
    }
    times.sort((a, b) => a - b);
    const median = times[Math.floor(times.length / 2)];
    const p90 = times[Math.floor(times.length * 0.9)];
    console.log(`amddwarf dap, 2,560-wave stop: launch ${launchMs.toFixed(1)} ms, threads ` +
      `${threadsMs.toFixed(1)} ms, ${REQUESTS} requests: median ${median.toFixed(3)} ms, ` +
      `p90 ${p90.toFixed(3)} ms`);
    assert.equal(times.length, REQUESTS);
  } finally {
    await dc.stop();
  }
});
