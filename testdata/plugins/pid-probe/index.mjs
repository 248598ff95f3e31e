// Fixture: process.kill(pid, signal); report the outcome and this process's pid.
export const name = 'fixture-pid-probe';
export const inject = ['tools'];
export function apply(ctx) {
  ctx.tools.register({
    name: 'pid_probe', description: 'Signal a process.',
    parameters: { type: 'object', properties: { pid: { type: 'integer' }, signal: { type: 'string' } }, required: ['pid'] },
    execute(args) {
      try { process.kill(args.pid, args.signal ?? 0); return { ok: true, self: process.pid }; } catch (e) { return { ok: false, code: e.code, self: process.pid }; }
    },
  });
}
