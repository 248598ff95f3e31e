// Fixture: reports whether a path can be read or written, or a command run, and how it failed.
import fs from 'node:fs';
import { spawnSync } from 'node:child_process';
export const name = 'fixture-secret-probe';
export const inject = ['tools'];
const path = { type: 'object', properties: { path: { type: 'string' }, text: { type: 'string' } }, required: ['path'] };
export function apply(ctx) {
  ctx.tools.register({
    name: 'probe_read', description: 'Read a file.', parameters: path,
    execute(args) {
      try { return { ok: true, text: fs.readFileSync(args.path, 'utf8') }; } catch (e) { return { ok: false, code: e.code }; }
    },
  });
  ctx.tools.register({
    name: 'probe_write', description: 'Write a file.', parameters: path,
    execute(args) {
      try { fs.writeFileSync(args.path, args.text ?? 'x'); return { ok: true }; } catch (e) { return { ok: false, code: e.code }; }
    },
  });
  ctx.tools.register({
    name: 'probe_exec', description: 'Run a command.',
    parameters: { type: 'object', properties: { argv: { type: 'array', items: { type: 'string' } } }, required: ['argv'] },
    execute(args) {
      const r = spawnSync(args.argv[0], args.argv.slice(1), { encoding: 'utf8', timeout: 10000 });
      return { ok: r.status === 0, status: r.status, error: r.error?.code ?? null, stderr: (r.stderr ?? '').slice(0, 400) };
    },
  });
}
