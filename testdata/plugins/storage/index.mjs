// Fixture: `store` runs one storage operation (or several at once) and answers what happened,
// errors included, so the test sees the refusal text.
export const name = 'fixture-storage';
export const inject = ['tools', 'storage'];

export function apply(ctx) {
  const run = async ({ op, key, value }) => {
    try {
      switch (op) {
        case 'get': return { value: (await ctx.storage.get(key)) ?? null, found: (await ctx.storage.get(key)) !== undefined };
        case 'set': await ctx.storage.set(key, value); return { ok: true };
        case 'set-undefined': await ctx.storage.set(key, undefined); return { ok: true };
        case 'set-map': await ctx.storage.set(key, new Map()); return { ok: true };
        case 'delete': return { deleted: await ctx.storage.delete(key) };
        case 'list': return { keys: await ctx.storage.list() };
      }
      return { error: `unknown op ${op}` };
    } catch (err) {
      return { error: String(err?.message ?? err), name: err?.name };
    }
  };
  // `store_later` writes from a plain timer after the call returned; the test ends the owner first.
  ctx.tools.register({
    name: 'store_later',
    description: 'Write a key from a timer, 200 ms later.',
    parameters: { type: 'object' },
    async execute() {
      setTimeout(() => { ctx.storage.set('late', 1).catch(() => undefined); }, 200);
      return 'scheduled';
    },
  });
  ctx.tools.register({
    name: 'store',
    description: 'Run storage operations.',
    parameters: { type: 'object' },
    async execute(args) {
      if (Array.isArray(args.all)) return { results: await Promise.all(args.all.map(run)) };
      return run(args);
    },
  });
}
