// The fetch proxy's host side against a scripted fake core (src/net/): with fetch_proxy the
// global fetch goes over net/* (a GET read in two chunks, a 3 MiB streamed POST, a FormData
// upload, a refusal, an abort before the head and in the body, a cancelled body), the other ways
// out refuse naming the fetch proxy and the grant, and without fetch_proxy nothing changes.
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { gzipSync } from 'node:zlib';
import { IS_BUN, plugin, runtimeArgs, test, withCore } from './harness.mjs';

const TICKET = 'tkt-' + 'F'.repeat(40);
const entry = plugin('fetch-proxy-probe', 'index.mjs');
const MiB = 1 << 20;
/** chunk is a net/read answer: eof, and the body's bytes as its attachment. */
const chunk = (bytes, eof) => ({ result: { eof }, attachment: Buffer.from(bytes) });
const head = (o = {}) => ({ status: 200, status_text: 'OK', headers: [{ name: 'content-type', value: 'text/plain' }], url: 'https://api.example.com/final', redirected: false, ...o });
const proxied = { init: { fetch_proxy: true } };

/** probe runs fetch_probe with args (and the ticket) and resolves with its structured result. */
async function probe(core, args, extra = { ticket: TICKET }) {
  const res = await core.callTool(core.handleOf('fetch_probe'), args, extra);
  assert.equal(res.error, undefined, `fetch_probe failed: ${JSON.stringify(res.error)}; stderr: ${core.stderr}`);
  return res.result.structured;
}

const sent = (core, method) => core.messages.filter((m) => m.method === method);

test('a GET carries owner, ticket and headers, and its body is pulled in two net/read', async () => {
  const reads = [chunk('hello ', false), chunk('world', true)];
  const net = (method) => {
    if (method === 'net/fetch') return { result: head({ headers: [{ name: 'content-type', value: 'text/plain' }, { name: 'x-a', value: '1' }], redirected: true }) };
    if (method === 'net/read') return reads.shift();
    return { result: {} };
  };
  await withCore({ ...proxied, net }, async (core) => {
    const { owner } = await core.activate(entry);
    const r = await probe(core, { mode: 'get', url: 'https://api.example.com/start?q=1' });
    assert.equal(r.isResponse, true);
    assert.deepEqual([r.status, r.statusText, r.ok, r.url, r.redirected, r.type], [200, 'OK', true, 'https://api.example.com/final', true, 'basic']);
    assert.deepEqual(r.headers, [['content-type', 'text/plain'], ['x-a', '1']]);
    assert.equal(r.text, 'hello world');
    assert.equal(r.clonedUrl, 'https://api.example.com/final');
    assert.equal(r.cloneText, 'hello world');
    const [f] = sent(core, 'net/fetch');
    assert.deepEqual(f.params, {
      owner, request_id: f.params.request_id, ticket: TICKET, method: 'GET', url: 'https://api.example.com/start?q=1',
      headers: [{ name: 'accept', value: 'text/plain' }, { name: 'x-probe', value: 'yes' }], max_bytes: MiB,
    });
    const rs = sent(core, 'net/read');
    assert.equal(rs.length, 2);
    for (const m of rs) assert.deepEqual(m.params, { owner, request_id: f.params.request_id, max_bytes: MiB });
    assert.equal(sent(core, 'net/close').length, 0, 'after eof the core has forgotten the exchange');
    // outside a tool call with a ticket: no ticket
    reads.push(chunk('again', true), chunk('', true));
    await probe(core, { mode: 'get', url: 'https://api.example.com/x' }, {});
    assert.equal(sent(core, 'net/fetch')[1].params.ticket, undefined);
  });
});

test("a command's fetch carries its ticket too", async () => {
  const net = (method) => {
    if (method === 'net/fetch') return { result: head() };
    if (method === 'net/read') return chunk('from a command', true);
    return { result: {} };
  };
  await withCore({ ...proxied, net }, async (core) => {
    const { owner } = await core.activate(entry);
    const res = await core.runCommand(core.handleOf('fetch-text', 'command'), 'https://api.example.com/c', { ticket: TICKET });
    assert.deepEqual(res.result, { kind: 'success', text: 'from a command' });
    const [f] = sent(core, 'net/fetch');
    assert.deepEqual([f.params.owner, f.params.ticket, f.params.url], [owner, TICKET, 'https://api.example.com/c']);
  });
});

test('a gzip body is decoded as the platform decodes it, and the header stays', async () => {
  const net = (method) => {
    if (method === 'net/fetch') return { result: head({ headers: [{ name: 'content-encoding', value: 'gzip' }] }) };
    if (method === 'net/read') return chunk(gzipSync('hello gzip'), true);
    return { result: {} };
  };
  await withCore({ ...proxied, net }, async (core) => {
    await core.activate(entry);
    const r = await probe(core, { mode: 'get', url: 'https://api.example.com/z' });
    assert.equal(r.text, 'hello gzip');
    assert.equal(r.cloneText, 'hello gzip');
    assert.deepEqual(r.headers, [['content-encoding', 'gzip']]);
  });
});

test('a response dropped unread is closed once the collector takes it', async () => {
  const net = (method) => {
    if (method === 'net/fetch') return { result: head() };
    return { result: {} };
  };
  // Node's collector is called by the fixture through --expose-gc, Bun's through Bun.gc
  const args = IS_BUN ? undefined : [...runtimeArgs(), '--expose-gc'];
  await withCore({ ...proxied, net, ...(args ? { runtimeArgs: args } : {}) }, async (core) => {
    await core.activate(entry);
    assert.deepEqual(await probe(core, { mode: 'drop', url: 'https://api.example.com/unread' }), { dropped: true });
    const close = await core.waitFor((m) => m.method === 'net/close', 5000, 'net/close of the dropped exchange');
    assert.equal(close.params.request_id, sent(core, 'net/fetch')[0].params.request_id);
    assert.equal(sent(core, 'net/read').length, 0);
  });
});

test('a 3 MiB streamed POST: 1 MiB in net/fetch, the rest in net/write one at a time, the last with end', async () => {
  const body = [];
  let inFlight = 0;
  let overlapped = false;
  let headAnswer;
  const headSent = new Promise((r) => { headAnswer = r; });
  const net = async (method, params) => {
    if (method === 'net/fetch') {
      body.push(Buffer.from(params.body, 'base64'));
      assert.equal(params.body_streamed, true);
      await headSent;
      return { result: head({ status: 201, status_text: 'Created' }) };
    }
    if (method === 'net/write') {
      if (++inFlight > 1) overlapped = true;
      await new Promise((r) => setTimeout(r, 30));
      body.push(Buffer.from(params.data, 'base64'));
      inFlight--;
      if (params.end) setTimeout(headAnswer, 10);
      return { result: {} };
    }
    if (method === 'net/read') return chunk(`got ${body.reduce((n, b) => n + b.length, 0)}`, true);
    return { result: {} };
  };
  await withCore({ ...proxied, net }, async (core) => {
    await core.activate(entry);
    const r = await probe(core, { mode: 'post', url: 'https://api.example.com/upload', size: 3 * MiB });
    assert.equal(r.status, 201);
    assert.equal(r.text, `got ${3 * MiB}`);
    assert.equal(overlapped, false, 'a second net/write was sent before the first was answered');
    assert.deepEqual(body.map((b) => b.length), [MiB, MiB, MiB]);
    const writes = sent(core, 'net/write');
    assert.deepEqual(writes.map((w) => w.params.end ?? false), [false, true]);
    const all = Buffer.concat(body);
    for (let i = 0; i < all.length; i += 4093) assert.equal(all[i], i % 251, `byte ${i}`);
    const [f] = sent(core, 'net/fetch');
    assert.equal(f.params.method, 'POST');
    assert.ok(f.params.headers.some((h) => h.name === 'content-type' && h.value === 'application/octet-stream'));
  });
});

test('a FormData body travels whole, as the platform encodes it', async () => {
  let upload;
  const net = (method, params) => {
    if (method === 'net/fetch') {
      upload = params;
      return { result: head() };
    }
    if (method === 'net/read') return chunk('', true);
    return { result: {} };
  };
  await withCore({ ...proxied, net }, async (core) => {
    await core.activate(entry);
    await probe(core, { mode: 'form', url: 'https://parse.example.com/v1/pdf' });
    assert.equal(upload.body_streamed, undefined);
    const type = upload.headers.find((h) => h.name === 'content-type')?.value ?? '';
    assert.match(type, /^multipart\/form-data; ?boundary=/);
    const text = Buffer.from(upload.body, 'base64').toString('latin1');
    assert.ok(text.includes('filename="a.pdf"') && text.includes('%PDF-1.7 fake'), text);
  });
});

test('a refusal is TypeError("fetch failed") whose cause has the core message, reason and origin', async () => {
  const message = 'https://evil.example is not in the network grant of fixture: add it to network under [plugins."fixture"] in config.toml';
  const net = () => ({ error: { code: -32002, message, data: { reason: 'not_granted', origin: 'https://evil.example' } } });
  await withCore({ ...proxied, net }, async (core) => {
    await core.activate(entry);
    const r = await probe(core, { mode: 'refused', url: 'https://evil.example/steal' });
    assert.deepEqual(r, {
      rejected: true, name: 'TypeError', message: 'fetch failed', isTypeError: true,
      cause: { name: 'FetchProxyError', message, reason: 'not_granted', origin: 'https://evil.example' },
    });
  });
});

test('an abort before the head sends $/cancel of net/fetch and net/close, and rejects AbortError', async () => {
  const net = (method) => (method === 'net/fetch' ? 'never' : { result: {} });
  await withCore({ ...proxied, net }, async (core) => {
    await core.activate(entry);
    const r = await probe(core, { mode: 'abort-early', url: 'https://slow.example.com/' });
    assert.deepEqual(r, { rejected: true, name: 'AbortError' });
    const [f] = sent(core, 'net/fetch');
    await core.waitFor((m) => m.method === '$/cancel' && m.params.id === f.id, 5000, '$/cancel of net/fetch');
    const close = await core.waitFor((m) => m.method === 'net/close', 5000, 'net/close');
    assert.equal(close.params.request_id, f.params.request_id);
  });
});

test('an abort while a net/read is pending cancels it, closes the exchange and errors the body', async () => {
  let n = 0;
  const net = (method) => {
    if (method === 'net/fetch') return { result: head() };
    if (method === 'net/read') return n++ === 0 ? chunk('first', false) : 'never';
    return { result: {} };
  };
  await withCore({ ...proxied, net }, async (core) => {
    await core.activate(entry);
    const r = await probe(core, { mode: 'abort', url: 'https://api.example.com/big' });
    assert.deepEqual(r, { firstBytes: 5, after: 'AbortError' });
    const second = sent(core, 'net/read')[1];
    assert.ok(second, 'the second net/read was sent');
    await core.waitFor((m) => m.method === '$/cancel' && m.params.id === second.id, 5000, '$/cancel of net/read');
    await core.waitFor((m) => m.method === 'net/close', 5000, 'net/close');
    assert.equal(sent(core, 'net/close').length, 1);
  });
});

test('a body cancelled by the plugin sends net/close', async () => {
  const net = (method) => {
    if (method === 'net/fetch') return { result: head() };
    if (method === 'net/read') return chunk('0123456789', false);
    return { result: {} };
  };
  await withCore({ ...proxied, net }, async (core) => {
    await core.activate(entry);
    const r = await probe(core, { mode: 'cancel', url: 'https://api.example.com/stream' });
    assert.equal(r.firstBytes, 10);
    const close = await core.waitFor((m) => m.method === 'net/close', 5000, 'net/close');
    assert.equal(close.params.request_id, sent(core, 'net/fetch')[0].params.request_id);
    assert.equal(sent(core, 'net/read').length, 1, 'nothing is read ahead of the plugin');
  });
});

test('node:https, node:net, WebSocket and the other ways out refuse, naming the fetch proxy and the grant', async () => {
  await withCore(proxied, async (core) => {
    await core.activate(entry);
    const r = await probe(core, { mode: 'others' });
    const grant = `the origin must be in the plugin's network grant ([plugins."fixture"] network in config.toml)`;
    const refusals = ['https', 'httpGet', 'net', 'netRequire', 'netBuiltin', 'tls', 'dgram', 'http2', 'agent', 'webSocket', 'eventSource', 'undici'];
    if (IS_BUN) refusals.push('bunConnect', 'bunListen');
    for (const k of refusals) {
      assert.ok(r[k].startsWith('NetworkRefused: '), `${k}: ${r[k]}`);
      assert.ok(r[k].includes("is not available in a sandboxed cwx host: use fetch, which goes through cwx's fetch proxy"), `${k}: ${r[k]}`);
      assert.ok(r[k].includes(grant), `${k}: ${r[k]}`);
    }
    assert.match(r.https, /^NetworkRefused: `node:https` \(`https.request`\)/);
    assert.match(r.webSocket, /^NetworkRefused: `WebSocket`/);
    assert.equal(r.agentBuilt, 'Error: built', 'an Agent is still built');
    assert.equal(r.isIP, 4);
    assert.equal(r.statusCodes, 'Not Found');
    const who = await probe(core, { mode: 'whoami' });
    assert.equal(who.name, 'fetch');
    assert.equal(sent(core, 'net/fetch').length, 0);
  });
});

test('without fetch_proxy the runtime keeps its own fetch and sockets', async () => {
  const server = createServer((req, res) => res.end(`direct ${req.method}`));
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${server.address().port}/`;
  try {
    await withCore({}, async (core) => {
      await core.activate(entry);
      assert.deepEqual(await probe(core, { mode: 'direct', url }), { status: 200, text: 'direct GET' });
      assert.deepEqual(await probe(core, { mode: 'direct-net', url }), { connected: true });
      assert.equal(core.messages.filter((m) => m.method?.startsWith('net/')).length, 0);
    });
  } finally {
    server.close();
  }
});

// Node only: Bun has no list of loaded modules, and its fetch classes cost nothing to read
if (!IS_BUN) test("installing the proxy loads none of Node's fetch or network modules: the first fetch does", async () => {
  const net = (method) => {
    if (method === 'net/fetch') return { result: head() };
    if (method === 'net/read') return chunk('late', true);
    return { result: {} };
  };
  await withCore({ ...proxied, net }, async (core) => {
    await core.activate(entry);
    const before = await probe(core, { mode: 'loaded' });
    assert.deepEqual(before.modules, [], 'loaded at initialize: ~45 ms of every sandboxed start');
    assert.equal((await probe(core, { mode: 'get', url: 'https://api.example.com/late' })).text, 'late');
    const after = await probe(core, { mode: 'loaded' });
    assert.ok(after.modules.some((m) => m.includes('undici')), `after a fetch: ${after.modules}`);
  });
});
