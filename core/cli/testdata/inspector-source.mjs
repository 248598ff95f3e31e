// Reads one script's source through the inspector protocol: node inspector-source.mjs WS_URL
// SUFFIX prints {"url", "source"} of the last parsed script whose URL ends with SUFFIX (the
// newest generation's, once a reload parsed it again).
const [url, suffix] = process.argv.slice(2);
const ws = new WebSocket(url);
const pending = new Map();
const scripts = [];
let next = 0;
const send = (method, params = {}) =>
  new Promise((resolve, reject) => {
    const id = ++next;
    pending.set(id, { resolve, reject });
    ws.send(JSON.stringify({ id, method, params }));
  });
ws.onmessage = (ev) => {
  const m = JSON.parse(ev.data);
  if (m.id !== undefined) {
    const p = pending.get(m.id);
    pending.delete(m.id);
    if (m.error) p.reject(new Error(m.error.message));
    else p.resolve(m.result);
  } else if (m.method === 'Debugger.scriptParsed') {
    scripts.push(m.params);
  }
};
ws.onerror = (ev) => {
  console.error(`inspector: ${ev.message ?? 'WebSocket error'}`);
  process.exit(3);
};
ws.onopen = async () => {
  await send('Debugger.enable'); // the scripts already parsed are reported before its answer
  const s = scripts.findLast((x) => x.url.endsWith(suffix));
  if (s === undefined) {
    console.error(`no script ends with ${suffix}:`, scripts.map((x) => x.url).filter((u) => u.startsWith('file:')));
    process.exit(2);
  }
  const { scriptSource } = await send('Debugger.getScriptSource', { scriptId: s.scriptId });
  console.log(JSON.stringify({ url: s.url, source: scriptSource }));
  ws.close();
  process.exit(0);
};
