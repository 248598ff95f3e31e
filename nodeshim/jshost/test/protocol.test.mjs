// The channel: framing and validation errors are fatal (65), protocol mismatch (78), requests
// before initialize, host/ping, cancellation in both directions, the 256-request bound.
import assert from 'node:assert/strict';
import { FakeCore, frame, plugin, sleep, test, withCore } from './harness.mjs';
import { RpcPeer, RpcError, cut } from '../src/rpc.ts';
import { BIG_TEXT, FrameDecoder, encodeFrame, encodeJSONFrame, plainText } from '../src/frame.ts';
import { parseStrict } from '../src/strictjson.ts';
import { validateMessage } from '../src/validate.ts';

async function fatal(bytes, pattern) {
  const core = new FakeCore({});
  await core.handshake();
  core.write(bytes);
  const r = await core.exited;
  assert.equal(r.code, 65, core.stderr);
  assert.match(core.stderr, pattern);
}

test('bad magic exits 65', () => fatal(Buffer.from('XXXX\u0002\u0000\u0000\u0000{}'), /bad frame magic/));

test('an oversized length exits 65 before allocating', async () => {
  const h = Buffer.alloc(8);
  h.write('CWX1', 0, 'ascii');
  h.writeUInt32LE(33554433, 4);
  await fatal(h, /exceeds the 33554432-byte limit/);
});

test('a payload that is not JSON exits 65', () => fatal(frame('{not json'), /protocol error: payload is not JSON/));
test('duplicate keys exit 65', () => fatal(frame('{"jsonrpc":"2.0","id":5,"id":6,"method":"host/ping","params":{}}'), /duplicate key/));
test('an unknown method exits 65', () => fatal(frame({ jsonrpc: '2.0', id: 7, method: 'approval/respond', params: {} }), /unknown method/));
test('a builtin-only method on the plugin tier exits 65', () => fatal(frame({ jsonrpc: '2.0', id: 7, method: 'harness/run', params: {} }), /not allowed on the plugin tier/));
test('array params exit 65', () => fatal(frame({ jsonrpc: '2.0', id: 7, method: 'host/ping', params: [] }), /params must be an object/));
test('strict params (host/ping with a field) exit 65', () => fatal(frame({ jsonrpc: '2.0', id: 7, method: 'host/ping', params: { x: 1 } }), /unknown field "x"/));

test('host/initialize with another protocol answers -32602 and exits 78', async () => {
  const core = new FakeCore({});
  await core.waitFor((m) => m.method === 'host/hello');
  const res = await core.request('host/initialize', { protocol: 2, limits: { max_frame: 33554432, max_inflight: 256, activate_deadline_ms: 5000, dispose_deadline_ms: 2000 } });
  assert.equal(res.error.code, -32602);
  assert.match(res.error.message, /unsupported protocol 2/);
  const r = await core.exited;
  assert.equal(r.code, 78);
  assert.match(core.stderr, /core speaks protocol 2, host speaks 1/);
});

test('requests before initialize are refused with -32600', async () => {
  const core = new FakeCore({});
  try {
    await core.waitFor((m) => m.method === 'host/hello');
    const ping = await core.request('host/ping', {});
    assert.equal(ping.error.code, -32600);
    assert.match(ping.error.message, /not initialized/);
    const act = await core.request('ext/activate', { owner: { plugin_id: 'x', generation: 1, owner_token: 't' }, plugin_name: 'x', entry: { path: '/nonexistent', sha256: '00' } });
    assert.equal(act.error.code, -32600);
  } finally {
    await core.close();
  }
});

test('host/ping answers exactly {}', async () => {
  await withCore({}, async (core) => {
    const r = await core.request('host/ping', {});
    assert.deepEqual(r, { jsonrpc: '2.0', id: r.id, result: {} });
  });
});

test('$/cancel aborts the matching inbound request (-32800)', async () => {
  await withCore({}, async (core) => {
    const a = await core.activate(plugin('slow-tool', 'index.mjs'));
    assert.equal(a.result.status, 'ok');
    const call = core.callTool(core.handleOf('slow_wait'), { ms: 30000 });
    await sleep(50);
    const t0 = Date.now();
    core.notify('$/cancel', { id: call.id });
    const r = await call;
    assert.equal(r.error.code, -32800);
    assert.equal(r.error.message, 'cancelled');
    assert.ok(Date.now() - t0 < 1500, 'cancelled promptly (500 ms target; generous bound for loaded machines)');
    core.notify('$/cancel', { id: 99999 }); // unknown ids are ignored
    assert.deepEqual((await core.request('host/ping', {})).result, {});
  });
});

test('the host validates what it sends: every host frame is strict and well formed', async () => {
  await withCore({}, async (core) => {
    await core.activate(plugin('command', 'index.mjs'));
    await core.activate(plugin('tool', 'index.mjs'));
    const answers = new Map([[1, 'host/initialize']]);
    for (const m of core.messages) {
      const reason = validateMessage(m, 'host_to_core', 'plugin', (id) => answers.get(id) ?? (m.method === undefined ? 'ext/activate' : undefined));
      if (m.method !== undefined) assert.equal(reason, null, JSON.stringify(m));
    }
  });
});

// Unit tests of the codec and the peer (sources, run by both runtimes).

test('frame codec round trip, split input, errors', () => {
  const d = new FrameDecoder();
  const a = encodeFrame(Buffer.from('{"a":1}'));
  const b = encodeFrame(Buffer.from('{"b":2}'));
  const all = Buffer.concat([a, b]);
  const out = [...d.push(all.subarray(0, 5)), ...d.push(all.subarray(5, 17)), ...d.push(all.subarray(17))];
  assert.deepEqual(out.map(String), ['{"a":1}', '{"b":2}']);
  assert.equal(d.midFrame(), false);
  assert.throws(() => new FrameDecoder().push(Buffer.from('CWX2\u0000\u0000\u0000\u0000')), /bad frame magic/);
  assert.throws(() => encodeFrame(Buffer.alloc(33554433)), /exceeds/);
});

test('the frame decoder fills a large payload as its pieces arrive and wipes each piece', () => {
  const body = Buffer.alloc(300 * 1024 + 7);
  for (let i = 0; i < body.length; i++) body[i] = i % 251;
  const all = Buffer.concat([encodeFrame(body), encodeFrame(Buffer.alloc(0)), encodeFrame(Buffer.from('{}'))]);
  const d = new FrameDecoder();
  const out = [];
  for (let at = 0; at < all.length; at += 65536) {
    const piece = new Uint8Array(all.subarray(at, at + 65536));
    out.push(...d.push(piece));
    assert.ok(piece.every((b) => b === 0), 'the piece is wiped once copied');
    if (at + 65536 < body.length) assert.equal(d.midFrame(), true);
  }
  assert.deepEqual(out.map((p) => p.length), [body.length, 0, 2]);
  assert.ok(out[0].equals(body));
  assert.equal(out[0].buffer.byteLength, body.length, 'a payload has memory of its own');
  assert.equal(d.midFrame(), false);
  const tooLarge = Buffer.from('CWX1\u0000\u0000\u0000\u0003', 'latin1');
  assert.throws(() => new FrameDecoder().push(tooLarge), /exceeds the 33554432-byte limit/);
});

test('a result frame is JSON.stringify framed, big plain texts copied in as they are', () => {
  const big = (c) => c.repeat(Math.ceil((BIG_TEXT + 1) / c.length));
  const answer = (...texts) => ({ jsonrpc: '2.0', id: 9, result: { content: texts.map((text) => ({ type: 'text', text })), is_error: false } });
  class Block { constructor(text) { this.type = 'text'; this.text = text; } toJSON() { return { type: 'text', text: 'replaced' }; } }
  const spelled = JSON.stringify('\u0001cwx-text-0\u0001'); // a marker's JSON form, as a plugin's string
  const cases = [
    ['small text', answer('hi'), false],
    ['big ASCII', answer(big('x')), true],
    ['big non-ASCII', answer(big('é€')), true],
    ['big with a quote', answer(big('a"b')), false],
    ['big with a backslash', answer(big('a\\b')), false],
    ['big with a control character', answer(big('a\nb')), false],
    ['big with a pair', answer(big('😀')), false],
    ['big with a lone surrogate', answer(big('a') + '\ud800'), false],
    ['two big and a small', answer(big('x'), 'small', big('y')), true],
    ['a plugin string spelling the marker', answer(spelled.slice(1, -1), '"' + '\u0001cwx-text-0\u0001', big('x')), true],
    ['a block with toJSON', { jsonrpc: '2.0', id: 3, result: { content: [new Block(big('x'))], is_error: false } }, true],
    ['structured next to the text', { ...answer(big('x')), result: { ...answer(big('x')).result, structured: { a: [1, 'two'] } } }, true],
    ['an error answer', { jsonrpc: '2.0', id: 4, error: { code: -32603, message: big('x') } }, false],
  ];
  for (const [name, msg, plain] of cases) { // plain: a big text needs no escaping
    const want = encodeFrame(Buffer.from(JSON.stringify(msg), 'utf8'));
    const got = encodeJSONFrame(msg, 32 << 20);
    assert.ok(Buffer.isBuffer(got), name);
    assert.ok(got.equals(want), `${name}: the frame differs from JSON.stringify's`);
    const texts = (msg.result?.content ?? []).map((b) => b.text).filter((t) => t.length >= BIG_TEXT);
    assert.equal(texts.some(plainText), plain, `${name}: plainText`);
  }
  const n = Buffer.byteLength(JSON.stringify(answer(big('x'))));
  assert.equal(encodeJSONFrame(answer(big('x')), n - 1), n, 'over the limit: the length, no frame');
});

test('strict JSON: UTF-8, duplicate keys, depth', () => {
  assert.throws(() => parseStrict(Buffer.from([0x7b, 0x22, 0xff, 0x22, 0x3a, 0x31, 0x7d])), /UTF-8/);
  assert.throws(() => parseStrict(Buffer.from('{"a":{"b":1,"b":2}}')), /duplicate key "b"/);
  assert.deepEqual(parseStrict(Buffer.from('{"a":{"b":1},"b":{"a":2},"s":"{\\"a\\":1,\\"a\\":2}"}')), { a: { b: 1 }, b: { a: 2 }, s: '{"a":1,"a":2}' });
  assert.throws(() => parseStrict(Buffer.from('['.repeat(65) + ']'.repeat(65))), /deeper than 64/);
  assert.doesNotThrow(() => parseStrict(Buffer.from('['.repeat(64) + ']'.repeat(64))));
});

function peerPair() {
  const sent = [];
  const peer = new RpcPeer({
    tier: 'plugin',
    write: (f) => sent.push(JSON.parse(f.subarray(8).toString())),
    onRequest: () => ({}),
    onNotification: () => {},
    onFatal: (r) => { throw new Error(r); },
  });
  return { peer, sent };
}

const owner = { plugin_id: 'p', generation: 1, owner_token: 't' };

test('RpcPeer.request sends $/cancel when its signal aborts', async () => {
  const { peer, sent } = peerPair();
  const ac = new AbortController();
  const p = peer.request('registry/unregister', { owner, handle: 1 }, ac.signal);
  assert.equal(sent[0].id, 1);
  ac.abort();
  await assert.rejects(p, (e) => e instanceof RpcError && e.code === -32800);
  assert.deepEqual(sent[1], { jsonrpc: '2.0', method: '$/cancel', params: { id: 1 } });
  // a late answer to the cancelled id is ignored
  peer.receive(Buffer.from(JSON.stringify({ jsonrpc: '2.0', id: 1, result: {} })));
});

test('RpcPeer bounds outbound requests to 256 in flight', async () => {
  const { peer, sent } = peerPair();
  const all = [];
  for (let i = 0; i < 256; i++) all.push(peer.request('registry/unregister', { owner, handle: i }));
  await assert.rejects(peer.request('registry/unregister', { owner, handle: 999 }), /more than 256 requests in flight/);
  assert.equal(sent.length, 256);
  assert.deepEqual(sent.map((m) => m.id), Array.from({ length: 256 }, (_, i) => i + 1));
  peer.receive(Buffer.from(JSON.stringify({ jsonrpc: '2.0', id: 1, result: {} })));
  await all[0];
  peer.close();
  await Promise.allSettled(all);
});

test('RpcPeer refuses to send an invalid message', () => {
  const { peer } = peerPair();
  assert.throws(() => peer.notify('log', { level: 'info', msg: 'x', extra: 1 }), /unknown field "extra"/);
});

test('the licence generator lists bundled packages and refuses one without a licence', async () => {
  const { licenceNotices } = await import('../scripts/licences.mjs');
  const { mkdtempSync, mkdirSync, writeFileSync, rmSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const { join } = await import('node:path');
  const dir = mkdtempSync(join(tmpdir(), 'cwx-lic-'));
  try {
    for (const [name, licence] of [['@x/good', 'MIT text'], ['bad', null]]) {
      mkdirSync(join(dir, 'node_modules', name, 'lib'), { recursive: true });
      writeFileSync(join(dir, 'node_modules', name, 'package.json'), JSON.stringify({ name, version: '1.0.0', license: 'MIT' }));
      if (licence) writeFileSync(join(dir, 'node_modules', name, 'LICENSE'), licence);
    }
    const good = licenceNotices(dir, { inputs: { 'node_modules/@x/good/lib/a.js': {}, 'src/main.ts': {} } });
    assert.match(good, /@x\/good@1\.0\.0 \(MIT\)\n-+\nMIT text/);
    assert.throws(() => licenceNotices(dir, { inputs: { 'node_modules/bad/lib/a.js': {} } }), /bundled package bad has no licence file/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('cut keeps at most max UTF-8 bytes and whole characters', () => {
  assert.equal(cut('abc', 4096), 'abc');
  assert.equal(Buffer.byteLength(cut('x'.repeat(5000), 4096)), 4096);
  const euro = cut('€'.repeat(2000), 4096); // 3 bytes each
  assert.equal(euro, '€'.repeat(1365));
  assert.ok(!cut('a' + '😀'.repeat(2000), 4096).includes('\ufffd'));
});
