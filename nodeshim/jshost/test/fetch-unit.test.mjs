// The proxied fetch in process (src/net/fetch.ts) against an RpcPeer whose frames a scripted
// core answers: the edges of the body chunking, the refusal outside plugin code, what stays in
// the host (data: URLs), a body that is not bytes, failures mid-upload and mid-body, null-body
// statuses and redirect: "error".
import assert from 'node:assert/strict';
import { test } from './harness.mjs';
import { RpcPeer } from '../src/rpc.ts';
import { ownerContext } from '../src/owner.ts';
import { makeFetch } from '../src/net/fetch.ts';
import { Chunker, NET_MAX_CHUNK } from '../src/net/chunks.ts';

const MiB = 1 << 20;
const owner = { ref: { plugin_id: 'unit', generation: 1, owner_token: 'a'.repeat(64) }, pluginName: 'unit', state: 'active', entries: [], entryDirs: [], registrations: new Set(), history: [] };
const head = (o = {}) => ({ status: 200, status_text: 'OK', headers: [], url: 'https://api.example.com/', redirected: false, ...o });

/** payload is the bytes of message a, with a's attachment (when not empty) after a NUL byte. */
function payload(id, a) {
  const { attachment, ...rest } = a;
  const text = Buffer.from(JSON.stringify({ jsonrpc: '2.0', id, ...rest }));
  return attachment?.length > 0 ? Buffer.concat([text, Buffer.from([0]), attachment]) : text;
}

/**
 * proxy is a proxied fetch whose net/* requests answer(msg) answers ({result, attachment?},
 * {error}, 'never' or a payload's raw bytes); sent is every message, fatal every fatal reason.
 */
function proxy(answer, { onFatal = (reason) => { throw new Error(reason); } } = {}) {
  const sent = [];
  const peer = new RpcPeer({
    tier: 'plugin',
    write: (f) => {
      const msg = JSON.parse(Buffer.from(f).subarray(8).toString('utf8'));
      sent.push(msg);
      if (msg.method === undefined || msg.id === undefined) return;
      Promise.resolve(answer(msg)).then((a) => {
        if (a !== 'never') setImmediate(() => peer.receive(Buffer.isBuffer(a) ? a : payload(msg.id, a)));
      });
    },
    onRequest: () => ({}),
    onNotification: () => {},
    onFatal,
  });
  const platform = { fetch: globalThis.fetch, Request, Response, Headers };
  const f = makeFetch(peer, platform);
  return { sent, fetch: (...args) => ownerContext.run(owner, () => f(...args)), bare: f };
}

const methods = (sent) => sent.map((m) => m.method ?? 'answer');
const okBody = (msg) => (msg.method === 'net/read' ? { result: { eof: true } } : msg.method === 'net/fetch' ? { result: head() } : { result: {} });
const bytes = (n) => new Uint8Array(n).fill(7);

test('fetch outside plugin code is a TypeError and sends nothing', async () => {
  const p = proxy(okBody);
  await assert.rejects(p.bare('https://api.example.com/'), (e) => e instanceof TypeError && /outside plugin code/.test(e.message));
  assert.deepEqual(p.sent, []);
});

test('a body of exactly NetMaxChunk travels whole; one byte more is streamed with a 1-byte end', async () => {
  assert.equal(NET_MAX_CHUNK, MiB);
  const whole = proxy(okBody);
  await (await whole.fetch('https://api.example.com/', { method: 'PUT', body: bytes(MiB) })).arrayBuffer();
  const [f] = whole.sent.filter((m) => m.method === 'net/fetch');
  assert.equal(Buffer.from(f.params.body, 'base64').length, MiB);
  assert.equal(f.params.body_streamed, undefined);
  assert.equal(whole.sent.filter((m) => m.method === 'net/write').length, 0);

  const over = proxy(okBody);
  await (await over.fetch('https://api.example.com/', { method: 'PUT', body: bytes(MiB + 1) })).arrayBuffer();
  const [g] = over.sent.filter((m) => m.method === 'net/fetch');
  assert.equal(Buffer.from(g.params.body, 'base64').length, MiB);
  assert.equal(g.params.body_streamed, true);
  const writes = over.sent.filter((m) => m.method === 'net/write');
  assert.deepEqual(writes.map((w) => [Buffer.from(w.params.data, 'base64').length, w.params.end]), [[1, true]]);
});

test('an empty body sends no body field', async () => {
  const p = proxy(okBody);
  await (await p.fetch('https://api.example.com/', { method: 'POST', body: '' })).text();
  const [f] = p.sent.filter((m) => m.method === 'net/fetch');
  assert.equal(f.params.body, undefined);
  assert.equal(f.params.body_streamed, undefined);
});

test('a data: URL is served in the host', async () => {
  const p = proxy(okBody);
  assert.equal(await (await p.fetch('data:text/plain,hi%20there')).text(), 'hi there');
  assert.deepEqual(p.sent, []);
});

test('a streamed body chunk that is not bytes fails before anything is sent', async () => {
  const p = proxy(okBody);
  const body = new ReadableStream({ start(c) { c.enqueue('text, not bytes'); c.close(); } });
  await assert.rejects(p.fetch('https://api.example.com/', { method: 'POST', body, duplex: 'half' }), (e) => {
    assert.equal(e.message, 'fetch failed');
    assert.match(String(e.cause?.message), /not a Uint8Array/);
    return true;
  });
  assert.deepEqual(p.sent, [], 'no net/fetch, and so no net/close');
});

test('a body that fails mid-upload cancels the pending net/fetch and closes the exchange', async () => {
  const p = proxy((msg) => (msg.method === 'net/fetch' ? 'never' : { result: {} }));
  let n = 0;
  const body = new ReadableStream({
    pull(c) {
      if (n++ < 2) return c.enqueue(bytes(MiB));
      c.error(new Error('the disk went away'));
    },
  });
  await assert.rejects(p.fetch('https://api.example.com/', { method: 'POST', body, duplex: 'half' }), (e) => {
    assert.equal(e.message, 'fetch failed');
    assert.equal(e.cause?.message, 'the disk went away');
    return true;
  });
  const fetchId = p.sent.find((m) => m.method === 'net/fetch').id;
  assert.ok(p.sent.some((m) => m.method === '$/cancel' && m.params.id === fetchId), methods(p.sent).join(' '));
  assert.equal(p.sent.filter((m) => m.method === 'net/close').length, 1);
});

test('a net/read error mid-body errors the stream with TypeError("terminated") and the reason', async () => {
  let reads = 0;
  const p = proxy((msg) => {
    if (msg.method === 'net/fetch') return { result: head() };
    if (msg.method === 'net/read') {
      return reads++ === 0 ? { result: { eof: false }, attachment: Buffer.from('part') }
        : { error: { code: -32002, message: 'the response of https://api.example.com passed its 64 MiB cap', data: { reason: 'too_large', origin: 'https://api.example.com' } } };
    }
    return { result: {} };
  });
  const r = await p.fetch('https://api.example.com/big');
  await assert.rejects(r.text(), (e) => {
    assert.equal(e.message, 'terminated');
    assert.equal(e.cause.reason, 'too_large');
    assert.equal(e.cause.origin, 'https://api.example.com');
    return true;
  });
  assert.equal(p.sent.filter((m) => m.method === 'net/close').length, 1);
});

test('a 204 has a null body and closes the exchange; redirect: "error" refuses a redirected head', async () => {
  const p = proxy((msg) => (msg.method === 'net/fetch' ? { result: head({ status: 204, status_text: 'No Content' }) } : { result: {} }));
  const r = await p.fetch('https://api.example.com/gone', { method: 'DELETE' });
  assert.equal(r.status, 204);
  assert.equal(r.body, null);
  assert.equal(p.sent.filter((m) => m.method === 'net/close').length, 1);

  const q = proxy((msg) => (msg.method === 'net/fetch' ? { result: head({ redirected: true, url: 'https://api.example.com/elsewhere' }) } : { result: {} }));
  await assert.rejects(q.fetch('https://api.example.com/moved', { redirect: 'error' }), (e) => e.message === 'fetch failed' && e.cause.reason === 'redirect');
  assert.equal(q.sent.filter((m) => m.method === 'net/close').length, 1);
});

test('a body chunk is the attachment, a plain Uint8Array of its own memory; Chunker cuts unaligned pieces', async () => {
  const p = proxy((msg) => {
    if (msg.method !== 'net/read') return msg.method === 'net/fetch' ? { result: head() } : { result: {} };
    const bytes = payload(msg.id, { result: { eof: true }, attachment: Buffer.from('abc') });
    const shared = Buffer.alloc(bytes.length + 16, 0x55); // a payload in memory shared with other bytes, as a pool's
    bytes.copy(shared, 8);
    return shared.subarray(8, 8 + bytes.length);
  });
  const r = await p.fetch('https://api.example.com/');
  const { value: b } = await r.body.getReader().read();
  assert.equal(b.constructor, Uint8Array);
  assert.equal(Buffer.from(b).toString(), 'abc');
  assert.equal(b.buffer.byteLength, 3, 'copied out of a payload that shares its memory');
  // a payload with memory of its own (as the frame decoder's): the chunk is a view of it, and its
  // buffer holds nothing but zeros (the wiped JSON text) and the chunk
  const q = proxy((msg) => {
    if (msg.method !== 'net/read') return msg.method === 'net/fetch' ? { result: head() } : { result: {} };
    const bytes = payload(msg.id, { result: { eof: true }, attachment: Buffer.from('xyz') });
    return Buffer.from(new Uint8Array(bytes).buffer); // a Buffer over its own ArrayBuffer, exactly its size
  });
  const { value: v } = await (await q.fetch('https://api.example.com/')).body.getReader().read();
  assert.equal(v.constructor, Uint8Array);
  assert.equal(Buffer.from(v).toString(), 'xyz');
  assert.equal(v.byteOffset + v.length, v.buffer.byteLength);
  assert.ok(new Uint8Array(v.buffer, 0, v.byteOffset).every((x) => x === 0), 'the JSON text before it is wiped');
  const pieces = [bytes(700 * 1024), bytes(700 * 1024), bytes(100)];
  const c = new Chunker(new ReadableStream({ pull(ctl) { const p = pieces.shift(); if (p) ctl.enqueue(p); else ctl.close(); } }));
  const a = await c.take();
  const z = await c.take();
  assert.deepEqual([a.bytes.length, a.last, z.bytes.length, z.last], [MiB, false, 1400 * 1024 + 100 - MiB, true]);
});

test('an error says its causes: fetch failed names the refusal', async () => {
  const { describeError } = await import('../src/rpc.ts');
  const refusal = new Error('https://evil.example.test is not in the network grant of p');
  refusal.name = 'FetchProxyError';
  assert.equal(describeError(new TypeError('fetch failed', { cause: refusal })),
    'TypeError: fetch failed; cause: FetchProxyError: https://evil.example.test is not in the network grant of p');
  assert.equal(describeError(new Error('a')), 'Error: a');
  const deep = new Error('1', { cause: new Error('2', { cause: new Error('3', { cause: new Error('4', { cause: new Error('5') }) }) }) });
  assert.equal(describeError(deep), 'Error: 1; cause: Error: 2; cause: Error: 3; cause: Error: 4');
  assert.equal(describeError(new Error('x', { cause: 'plain' })), 'Error: x; cause: Error: plain');
});

test('an attachment anywhere but on a net/fetch or net/read result, or an empty one, is fatal', async () => {
  const cases = [
    ['net/close', (id) => payload(id, { result: {}, attachment: Buffer.from('x') }), 'the result of net/close carries no attachment'],
    ['net/read', (id) => payload(id, { error: { code: -32002, message: 'no' }, attachment: Buffer.from('x') }), 'only a success result carries an attachment'],
    ['net/read', (id) => Buffer.concat([payload(id, { result: { eof: true } }), Buffer.from([0])]), 'empty attachment'],
  ];
  for (const [method, answer, want] of cases) {
    const fatal = [];
    const p = proxy((msg) => (msg.method === method ? answer(msg.id) : msg.method === 'net/fetch' ? { result: head() } : 'never'),
      { onFatal: (reason) => { fatal.push(reason); } });
    const r = await p.fetch('https://api.example.com/');
    if (method === 'net/close') await r.body.cancel();
    else r.arrayBuffer().catch(() => {});
    for (let i = 0; i < 100 && fatal.length === 0; i++) await new Promise((res) => setTimeout(res, 5));
    assert.equal(fatal.length, 1, `${method}: ${want}`);
    assert.match(fatal[0], new RegExp(`^protocol error: .*${want}`));
  }
});

test('the head brings the first bytes: all of a small body (eof) with no net/read, else the rest follows', async () => {
  const whole = proxy((msg) => (msg.method === 'net/fetch' ? { result: head({ eof: true }), attachment: Buffer.from('all of it') } : { result: {} }));
  const r = await whole.fetch('https://api.example.com/');
  assert.equal(await r.text(), 'all of it');
  const f = whole.sent.find((m) => m.method === 'net/fetch');
  assert.equal(f.params.max_bytes, MiB);
  assert.deepEqual(methods(whole.sent).filter((m) => m.startsWith('net/')), ['net/fetch'], 'no net/read, and no net/close after eof');

  const part = proxy((msg) => (msg.method === 'net/fetch' ? { result: head(), attachment: Buffer.from('first ') }
    : msg.method === 'net/read' ? { result: { eof: true }, attachment: Buffer.from('rest') } : { result: {} }));
  const q = await part.fetch('https://api.example.com/');
  assert.equal(part.sent.filter((m) => m.method === 'net/read').length, 0, 'nothing is read before the plugin reads');
  assert.equal(await q.text(), 'first rest');
  assert.deepEqual(methods(part.sent).filter((m) => m.startsWith('net/')), ['net/fetch', 'net/read']);

  const empty = proxy((msg) => (msg.method === 'net/fetch' ? { result: head({ status: 204, status_text: 'No Content', eof: true }) } : { result: {} }));
  const e = await empty.fetch('https://api.example.com/', { method: 'DELETE' });
  assert.equal(e.body, null);
  assert.deepEqual(methods(empty.sent).filter((m) => m.startsWith('net/')), ['net/fetch'], 'the core forgot it at eof: no net/close');

  const h = proxy((msg) => (msg.method === 'net/fetch' ? { result: head() } : { result: {} }));
  await h.fetch('https://api.example.com/', { method: 'HEAD' });
  assert.equal(h.sent.find((m) => m.method === 'net/fetch').params.max_bytes, undefined, 'a HEAD asks for no body');
});
