// Fixture: `spin_ms` holds the event loop for `ms` milliseconds without yielding, then returns.
export const name = 'fixture-slow-sync';
export const inject = ['tools'];
export function apply(ctx) {
  ctx.tools.register({
    name: 'spin_ms',
    description: 'Hold the event loop for ms milliseconds.',
    parameters: { type: 'object', properties: { ms: { type: 'integer' } }, required: ['ms'] },
    execute(args) {
      const end = Date.now() + args.ms;
      while (Date.now() < end) { /* spin */ }
      return 'spun';
    },
  });
}
