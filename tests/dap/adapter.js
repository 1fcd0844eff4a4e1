// Starts `amddwarf dap` under the test-support client with the adapter's
// stderr shown. An adapter that exits while a test still waits on it would
// otherwise leave only "Promise resolution is still pending": an exit by a
// signal or with a failure status fails the run and names it instead (after a
// disconnect request the adapter exits with status 0).
//
// The client's stop() sends one more disconnect request. After a test has
// already disconnected, the adapter may have exited, and that write would end
// in an EPIPE raised after the test finished: stop() then only waits for the
// exit, and a broken pipe is ignored once the adapter has gone.
'use strict';
const { DebugClient } = require('@vscode/debugadapter-testsupport');

async function startAdapter(amddwarf) {
  const dc = new DebugClient(amddwarf, 'dap', 'amddwarf', {}, true);
  await dc.start();
  let stopping = false;
  // The client keeps its child process private; its exit is what matters here.
  const child = dc._adapterProcess;
  const exited = new Promise((resolve) => child.on('exit', resolve));
  let hasExited = false;
  child.on('exit', (code, signal) => {
    hasExited = true;
    if (!stopping && (signal || code !== 0))
      throw new Error(`amddwarf dap exited while requests were pending: ` +
        (signal ? `signal ${signal}` : `exit code ${code}`));
  });
  child.stdin.on('error', (e) => {
    if (e.code === 'EPIPE' && (hasExited || stopping))
      return;
    throw e;
  });
  const stop = dc.stop.bind(dc);
  const disconnect = dc.disconnectRequest.bind(dc);
  let disconnected = false;
  dc.disconnectRequest = (args) => {
    disconnected = true;
    return disconnect(args);
  };
  dc.stop = async () => {
    stopping = true;
    if (disconnected) {
      // An adapter that does not exit after a disconnect is killed and fails.
      const timer = setTimeout(() => child.kill('SIGKILL'), 10000);
      await exited;
      clearTimeout(timer);
      return;
    }
    return stop();
  };
  return dc;
}

module.exports = { startAdapter };
