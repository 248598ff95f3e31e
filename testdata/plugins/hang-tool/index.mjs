// Fixture: a tool that busy-loops, blocking the host's event loop.
export const name = 'fixture-hang-tool';
export const inject = ['tools'];
export function apply(ctx) {
  ctx.tools.register({
    name: 'hang_probe',
    description: 'Block the event loop.',
    parameters: { type: 'object', properties: { ms: { type: 'integer' } } },
    execute(args) {
      const end = typeof args.ms === 'number' ? Date.now() + args.ms : Infinity;
      while (Date.now() < end) { /* busy */ }
      return { blocked_ms: args.ms ?? null };
    },
  });
}
