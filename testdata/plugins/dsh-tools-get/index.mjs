// Fixture: `ctx.tools.get(name)` looks up the tools live in this host (read-only), and the
// `deferLoading` hint is accepted.
export const name = 'fixture-dsh-tools-get';
export const inject = ['tools'];
export function apply(ctx) {
  ctx.tools.register({
    name: 'deferred_probe',
    description: 'Registered with the deferLoading hint.',
    deferLoading: true,
    parameters: { type: 'object', properties: { q: { type: 'string' } } },
    execute: () => 'deferred',
  });
  ctx.tools.register({
    name: 'lookup_tool',
    description: 'Looks a tool up with ctx.tools.get.',
    parameters: { type: 'object', properties: { name: { type: 'string' } } },
    execute(args) {
      const view = ctx.tools.get(args.name, { agent: 'ignored' });
      let writable = true;
      if (view) {
        try { view.inputSchema.type = 'string'; } catch { writable = false; }
      }
      return { view: view ?? null, frozen: view ? Object.isFrozen(view) && !writable : null };
    },
  });
}
