// Holds a runtime paused through the inspector protocol: node inspector-pause.mjs WS_URL MS [run]
// asks for a pause and prints "requested", prints "paused" once the runtime stopped (when it
// next runs JavaScript), resumes it MS later and prints
// "resumed"; it exits non-zero when the connection ends first (the runtime was killed). With
// run, the runtime waits for a debugger (--inspect-brk): it is let run, and stops at once.
const [url, ms, run] = process.argv.slice(2);
const ws = new WebSocket(url);
const pending = new Map();
let next = 0;
let done = false;
const send = (method, params = {}) =>
  new Promise((resolve, reject) => {
    const id = ++next;
    pending.set(id, { resolve, reject });
    ws.send(JSON.stringify({ id, method, params }));
  });
ws.onmessage = async (ev) => {
  const m = JSON.parse(ev.data);
  if (m.id !== undefined) {
    const p = pending.get(m.id);
    pending.delete(m.id);
    if (m.error) p.reject(new Error(m.error.message));
    else p.resolve(m.result);
  } else if (m.method === 'Debugger.paused' && !done) {
    done = true;
    console.log('paused');
    await new Promise((r) => setTimeout(r, Number(ms)));
    await send('Debugger.resume');
    console.log('resumed');
    ws.close();
    process.exit(0);
  }
};
ws.onclose = () => {
  console.error('inspector: the connection ended');
  process.exit(4);
};
ws.onerror = (ev) => {
  console.error(`inspector: ${ev.message ?? 'WebSocket error'}`);
  process.exit(3);
};
ws.onopen = async () => {
  await send('Debugger.enable');
  await send('Debugger.pause'); // takes effect when the runtime next runs JavaScript
  console.log('requested');
  if (run === 'run') await send('Runtime.runIfWaitingForDebugger');
};
