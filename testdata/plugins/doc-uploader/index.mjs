// Fixture: the shape of a published document-parsing plugin (a PDF posted with fetch to a
// parsing service, its task polled, its result read), written for cwx's tests. The plugin sends
// no credential of its own: the core adds the one config.toml configures for the service.
import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';

export const name = 'fixture-doc-uploader';
export const inject = ['tools'];

const describe = (e) => ({
  rejected: true, name: e?.name, message: String(e?.message),
  cause: e?.cause ? { name: e.cause.name, message: String(e.cause.message), reason: e.cause.reason ?? null, origin: e.cause.origin ?? null } : null,
});

async function json(r, what) {
  if (!r.ok) throw new Error(`${what} answered ${r.status}: ${await r.text()}`);
  return r.json();
}

export function apply(ctx, config = {}) {
  const base = String(config.baseURL ?? '').replace(/\/+$/, '');
  ctx.tools.register({
    name: 'parse_document',
    description: 'Upload a document to the parsing service and return its markdown.',
    parameters: { type: 'object', properties: { file_path: { type: 'string' } }, required: ['file_path'] },
    async execute(args, exec) {
      const bytes = await readFile(args.file_path); // fails with ENOENT outside a read grant
      const form = new FormData();
      form.append('files', new Blob([bytes], { type: 'application/pdf' }), basename(args.file_path));
      form.append('backend', 'pipeline');
      const task = await json(await fetch(`${base}/tasks`, { method: 'POST', body: form, signal: exec?.signal }), 'POST /tasks');
      for (;;) {
        const st = await json(await fetch(`${base}/tasks/${encodeURIComponent(task.task_id)}`, { signal: exec?.signal }), 'GET /tasks/{id}');
        if (st.status === 'completed') break;
        if (st.status === 'failed') throw new Error(`the task failed: ${st.error}`);
        await new Promise((r) => setTimeout(r, 20));
      }
      const res = await json(await fetch(`${base}/tasks/${encodeURIComponent(task.task_id)}/result`, { signal: exec?.signal }), 'GET result');
      return res.md;
    },
  });
  ctx.tools.register({
    name: 'http_probe',
    description: 'Fetch a URL and report what was seen.',
    parameters: { type: 'object', properties: { mode: { type: 'string' }, url: { type: 'string' }, size: { type: 'integer' } } },
    async execute(args) {
      try {
        switch (args.mode) {
          case 'post': {
            let sent = 0;
            const body = new ReadableStream({
              pull(c) {
                if (sent >= args.size) return c.close();
                const n = Math.min(300 * 1024, args.size - sent);
                sent += n;
                c.enqueue(new Uint8Array(n).fill(7));
              },
            });
            const r = await fetch(args.url, { method: 'POST', body, duplex: 'half', headers: { 'content-type': 'application/octet-stream' } });
            return { status: r.status, text: await r.text(), headers: [...r.headers] };
          }
          case 'abort': {
            const ac = new AbortController();
            const r = await fetch(args.url, { signal: ac.signal });
            const reader = r.body.getReader();
            await reader.read();
            const pending = reader.read();
            setTimeout(() => ac.abort(), 200);
            try { await pending; return { after: 'resolved' }; } catch (e) { return { after: e.name }; }
          }
          default: {
            const r = await fetch(args.url, { headers: { 'X-Probe': 'yes' } });
            return { status: r.status, text: await r.text(), headers: [...r.headers] };
          }
        }
      } catch (e) {
        return describe(e);
      }
    },
  });
}
