// Fixture: `fetch_probe` uses the global fetch and the runtime's other ways out, and reports
// what it saw. Modes: get (a GET, its response described), post (a streamed body of `size`
// bytes, each byte i % 251), refused (the rejection described), abort (abort while the read
// after the first body chunk is pending), cancel (cancel the body after its first chunk), others (node:https, node:net,
// WebSocket, … each tried), whoami (what the global fetch is), loaded (which of Node's
// network modules are loaded). The command `/fetch-text <url>`
// answers the text of a GET.
import { createRequire } from 'node:module';

export const name = 'fixture-fetch-proxy-probe';
export const inject = ['tools', 'commands'];

const require = createRequire(import.meta.url);

const describeError = (e) => ({
  name: e?.name, message: String(e?.message), isTypeError: e instanceof TypeError,
  cause: e?.cause ? { name: e.cause.name, message: String(e.cause.message), reason: e.cause.reason ?? null, origin: e.cause.origin ?? null } : null,
});

async function describeResponse(r, url) {
  const text = await r.text();
  return {
    isResponse: r instanceof Response, status: r.status, statusText: r.statusText, ok: r.ok, url: r.url, redirected: r.redirected,
    type: r.type, headers: [...r.headers], text, clonedUrl: null, bodyUsed: r.bodyUsed, asked: url,
  };
}

function streamedBody(size) {
  let sent = 0;
  return new ReadableStream({
    pull(c) {
      if (sent >= size) return c.close();
      const n = Math.min(300 * 1024, size - sent); // pieces that do not line up with 1 MiB chunks
      const b = new Uint8Array(n);
      for (let i = 0; i < n; i++) b[i] = (sent + i) % 251;
      sent += n;
      c.enqueue(b);
    },
  });
}

const tryIt = async (f) => {
  try { await f(); return 'not refused'; } catch (e) { return `${e.name}: ${e.message}`; }
};

export function apply(ctx) {
  ctx.commands.register({
    name: 'fetch-text',
    description: 'Fetch a URL and answer its text.',
    handler: async (inv) => ({ kind: 'success', text: await (await fetch(inv.args)).text() }),
  });
  ctx.tools.register({
    name: 'fetch_probe',
    description: 'Fetch, or try another way out.',
    parameters: { type: 'object', properties: { mode: { type: 'string' }, url: { type: 'string' }, size: { type: 'integer' } } },
    async execute(args) {
      switch (args.mode) {
        case 'get': {
          const r = await fetch(args.url, { headers: { 'X-Probe': 'yes', Accept: 'text/plain' } });
          const clone = r.clone();
          const out = await describeResponse(r, args.url);
          out.clonedUrl = clone.url;
          out.cloneText = await clone.text();
          return out;
        }
        case 'post': {
          const r = await fetch(args.url, { method: 'POST', body: streamedBody(args.size), duplex: 'half', headers: { 'content-type': 'application/octet-stream' } });
          return describeResponse(r, args.url);
        }
        case 'form': {
          const form = new FormData();
          form.append('file', new Blob(['%PDF-1.7 fake'], { type: 'application/pdf' }), 'a.pdf');
          const r = await fetch(args.url, { method: 'POST', body: form });
          return describeResponse(r, args.url);
        }
        case 'refused':
          try {
            await fetch(args.url);
            return { rejected: false };
          } catch (e) {
            return { rejected: true, ...describeError(e) };
          }
        case 'abort': {
          const ac = new AbortController();
          const r = await fetch(args.url, { signal: ac.signal });
          const reader = r.body.getReader();
          const first = await reader.read();
          const pending = reader.read(); // its net/read is never answered
          setTimeout(() => ac.abort(), 200);
          let after;
          try { await pending; after = 'read after abort resolved'; } catch (e) { after = e.name; }
          return { firstBytes: first.value.length, after };
        }
        case 'abort-early': {
          const ac = new AbortController();
          const p = fetch(args.url, { signal: ac.signal });
          setTimeout(() => ac.abort(), 200);
          try { await p; return { rejected: false }; } catch (e) { return { rejected: true, name: e.name }; }
        }
        case 'drop': {
          // a response never read and dropped: collected, its exchange is closed
          await (async () => { await fetch(args.url); })();
          for (let i = 0; i < 20; i++) {
            if (typeof globalThis.gc === 'function') globalThis.gc();
            else if (typeof Bun !== 'undefined') Bun.gc(true);
            await new Promise((r) => setTimeout(r, 25));
          }
          return { dropped: true };
        }
        case 'cancel': {
          const r = await fetch(args.url);
          const reader = r.body.getReader();
          const first = await reader.read();
          await reader.cancel();
          return { firstBytes: first.value.length };
        }
        case 'others': {
          const out = {};
          out.https = await tryIt(async () => (await import('node:https')).request('https://example.com/'));
          out.httpGet = await tryIt(async () => (await import('http')).get('http://example.com/'));
          out.net = await tryIt(async () => { const { connect } = await import('node:net'); connect(80, 'example.com'); });
          out.netRequire = await tryIt(() => require('net').createConnection(80, 'example.com'));
          out.netBuiltin = await tryIt(() => process.getBuiltinModule('node:net').connect(80, 'example.com'));
          out.tls = await tryIt(async () => (await import('node:tls')).connect(443, 'example.com'));
          out.dgram = await tryIt(async () => (await import('node:dgram')).createSocket('udp4'));
          out.http2 = await tryIt(async () => (await import('node:http2')).connect('https://example.com'));
          out.agent = await tryIt(async () => { const https = await import('node:https'); const a = new https.Agent({ keepAlive: true }); a.createConnection({ host: 'example.com', port: 443 }); });
          out.agentBuilt = await tryIt(async () => { const https = await import('node:https'); new https.Agent({ keepAlive: true }); throw new Error('built'); });
          out.isIP = (await import('node:net')).isIP('127.0.0.1');
          out.statusCodes = (await import('node:http')).STATUS_CODES[404];
          out.webSocket = await tryIt(() => new WebSocket('wss://example.com/'));
          out.eventSource = await tryIt(() => new EventSource('https://example.com/'));
          out.undici = await tryIt(() => require('undici').request('https://example.com/'));
          if (typeof Bun !== 'undefined') {
            out.bunConnect = await tryIt(() => Bun.connect({ hostname: 'example.com', port: 80, socket: { data() {} } }));
            out.bunListen = await tryIt(() => Bun.listen({ hostname: '127.0.0.1', port: 0, socket: { data() {} } }));
          }
          return out;
        }
        case 'whoami':
          return { name: fetch.name };
        case 'loaded': // Node's internal modules loaded so far (null on Bun, which has no list)
          return { modules: process.moduleLoadList?.filter((m) => /undici|\bhttps?$|\btls$|\bhttp2$/.test(m)) ?? null };
        case 'direct': {
          const r = await fetch(args.url);
          return { status: r.status, text: await r.text() };
        }
        case 'direct-net':
          return new Promise((resolve) => {
            const net = require('node:net');
            const u = new URL(args.url);
            const s = net.connect(Number(u.port), u.hostname);
            s.on('connect', () => { s.destroy(); resolve({ connected: true }); });
            s.on('error', (e) => resolve({ connected: false, code: e.code }));
          });
        default:
          throw new Error(`unknown mode ${args.mode}`);
      }
    },
  });
}
