// Shared helpers for the fake extension hosts: raw CWX1 framing on the channel's descriptors
// (fd 3 in, fd 4 out, as the shim gives them) and a correct host/hello, so each scenario
// script only says how it misbehaves. Nothing here validates; the core must catch every
// mistake.
import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream, readFileSync } from 'node:fs';
import { Socket } from 'node:net';

export const tier = (process.argv.find((a) => a.startsWith('--tier=')) ?? '--tier=').slice(7);
export const runtime = typeof Bun !== 'undefined'
  ? { name: 'bun', version: Bun.version }
  : { name: 'node', version: process.versions.node };
export const bundleSHA256 = createHash('sha256').update(readFileSync(process.argv[1])).digest('hex');
// the real host's table of builtin modules, which the core pins (a fake host reports it too)
export const builtinModules = JSON.parse(readFileSync(new URL('../../nodeshim/jshost/dist/builtin-modules.json', import.meta.url), 'utf8'));

export function hello(overrides = {}) {
  return {
    protocol: { min: 1, max: 1 },
    host_version: 'fake-0',
    bundle_sha256: bundleSHA256,
    runtime,
    tier,
    builtin_modules: builtinModules,
    ...overrides,
  };
}

export function frame(payload) {
  const body = Buffer.isBuffer(payload) ? payload : Buffer.from(payload);
  const head = Buffer.alloc(8);
  head.write('CWX1', 0, 'ascii');
  head.writeUInt32LE(body.length, 4);
  return Buffer.concat([head, body]);
}

// channelIn and channelOut are the channel, opened as the real host opens it: sockets on
// Node (an fs read stream would keep Node from exiting), fs streams on Bun.
export const channelIn = typeof Bun !== 'undefined'
  ? createReadStream('', { fd: 3 })
  : new Socket({ fd: 3, readable: true, writable: false });
export const channelOut = typeof Bun !== 'undefined'
  ? createWriteStream('', { fd: 4 })
  : new Socket({ fd: 4, readable: false, writable: true });
channelOut.on('error', () => {});

export function writeRaw(buf, cb) {
  return channelOut.write(buf, cb);
}

export function send(msg, cb) {
  return writeRaw(frame(JSON.stringify(msg)), cb);
}

export const notify = (method, params = {}) => send({ jsonrpc: '2.0', method, params });
export const respond = (id, result = {}, cb) => send({ jsonrpc: '2.0', id, result }, cb);

// onMessage calls fn with each decoded message; EOF on fd 3 exits (as the real host does)
// unless exitOnEOF is false.
export function onMessage(fn, { exitOnEOF = true } = {}) {
  let chunks = [];
  let have = 0;
  let need = -1;
  const take = (n) => {
    const all = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, have);
    const out = all.subarray(0, n);
    const rest = all.subarray(n);
    chunks = rest.length ? [rest] : [];
    have = rest.length;
    return out;
  };
  channelIn.on('data', (d) => {
    chunks.push(d);
    have += d.length;
    for (;;) {
      if (need < 0) {
        if (have < 8) return;
        const h = take(8);
        if (h.toString('ascii', 0, 4) !== 'CWX1') process.exit(65);
        need = h.readUInt32LE(4);
      }
      if (have < need) return;
      const body = take(need);
      need = -1;
      fn(JSON.parse(body.toString('utf8')));
    }
  });
  if (exitOnEOF) channelIn.on('end', () => process.exit(0));
}

// serve runs a well-behaved host: the handshake with the given hello overrides, then
// ping/shutdown, ext/activate ok, ext/deactivate clean, tool/call echo (an object input
// {sleep: ms} answers later, {block: ms} blocks the event loop first, naming the owner
// {busy} with host/busy before and, with {clear: true}, clearing it after), and any extra
// handlers (method -> fn(msg)).
export function serve({ helloOverrides = {}, handlers = {}, afterReady, exitOnEOF = true } = {}) {
  onMessage((m) => {
    if (m.method === 'host/initialize') {
      respond(m.id);
      setImmediate(() => {
        notify('host/ready');
        if (afterReady) afterReady();
      });
    } else if (handlers[m.method]) {
      handlers[m.method](m);
    } else if (m.method === 'host/ping') {
      respond(m.id);
    } else if (m.method === 'host/shutdown') {
      respond(m.id, {}, () => process.exit(0));
    } else if (m.method === 'ext/activate') {
      respond(m.id, { status: 'ok', tools: [], commands: [] });
    } else if (m.method === 'ext/deactivate') {
      respond(m.id, { disposed: true, leaked: [] });
    } else if (m.method === 'tool/call') {
      const input = m.params.input;
      const text = typeof input === 'string' ? input : JSON.stringify(input);
      const answer = () => respond(m.id, { content: [{ type: 'text', text }], is_error: false });
      if (input && typeof input === 'object' && input.block) {
        const block = () => {
          const until = Date.now() + input.block; // keeps the event loop busy: no pings answered
          while (Date.now() < until);
          if (input.busy && input.clear) notify('host/busy', {});
          answer();
        };
        // The note is on the channel before the loop blocks, as the real host's watchdog
        // writes it straight to fd 4: a write still queued in the stream would wait for the
        // loop (Bun's write stream always queues).
        if (input.busy) send({ jsonrpc: '2.0', method: 'host/busy', params: { owner: input.busy } }, block);
        else block();
      } else if (input && typeof input === 'object' && input.sleep) {
        setTimeout(answer, input.sleep);
      } else {
        answer();
      }
    }
  }, { exitOnEOF });
  notify('host/hello', hello(helloOverrides));
}
