// Starts `amddwarf dap` under the test-support client with the adapter's
// stderr shown. An adapter that exits while a test still waits on it would
// otherwise leave only "Promise resolution is still pending": an exit by a
// signal or with a failure status fails the run and names it instead (after a
// disconnect request the adapter exits with status 0).
'use strict';
const { DebugClient } = require('@vscode/debugadapter-testsupport');

async function startAdapter(amddwarf) {
  const dc = new DebugClient(amddwarf, 'dap', 'amddwarf', {}, true);
  await dc.start();
  let stopping = false;
  // The client keeps its child process private; its exit is what matters here.
  dc._adapterProcess.on('exit', (code, signal) => {
    if (!stopping && (signal || code !== 0))
      throw new Error(`amddwarf dap exited while requests were pending: ` +
        (signal ? `signal ${signal}` : `exit code ${code}`));
  });
  const stop = dc.stop.bind(dc);
  dc.stop = () => {
    stopping = true;
    return stop();
  };
  return dc;
}

module.exports = { startAdapter };
