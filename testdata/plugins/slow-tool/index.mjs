// Fixture: a slow, cancellable tool and an async disposer that waits for the call in flight.
export const name = 'fixture-slow-tool';
export const inject = ['tools'];
export function apply(ctx) {
  const inflight = new Set();
  ctx.tools.register({
    name: 'slow_wait',
    description: 'Wait, then answer.',
    parameters: { type: 'object', properties: { ms: { type: 'integer' } } },
    execute(args, exec) {
      const ms = args.ms ?? 30000;
      const p = new Promise((resolve, reject) => {
        const t = setTimeout(() => resolve({ waited: ms }), ms);
        exec.signal.addEventListener('abort', () => {
          clearTimeout(t);
          reject(new Error('aborted'));
        });
      });
      inflight.add(p);
      p.catch(() => {}).finally(() => inflight.delete(p));
      return p;
    },
  });
  ctx.effect(() => async () => {
    await new Promise((r) => setTimeout(r, 300));
    await Promise.allSettled([...inflight]);
  }, 'slow-tool: drain');
}
