// Fixture: `ask_core` asks the core to run one of its own tools with exec.core.call and
// reports what came back. Modes: one (a single call), many (n calls in a row), parallel (n at
// once), cancel (abort a call once the file `flag` exists in the workspace), probe (what the
// plugin can see of exec.core), local (what is refused before anything is sent).
export const name = 'fixture-core-call';
export const inject = ['tools'];

const outcome = (p) => p.then(
  (r) => ({ ok: true, isError: r.isError, text: r.content.map((b) => b.text).join('\n'), structured: r.structured ?? null }),
  (e) => ({ ok: false, name: e.name, code: e.code ?? null, message: String(e.message) }));

export function apply(ctx) {
  ctx.tools.register({
    name: 'ask_core',
    description: 'Ask the core to run one of its tools.',
    parameters: { type: 'object', properties: { mode: { type: 'string' }, name: { type: 'string' }, input: { type: 'object' }, n: { type: 'integer' } } },
    async execute(args, exec) {
      const core = exec.core;
      if (args.mode === 'probe') {
        let stack = '';
        try { await core.call('no such name!'); } catch (e) { stack = String(e.stack); }
        return { hasCore: core !== undefined, keys: Object.keys(exec).sort(), coreKeys: core ? Object.keys(core) : [],
          json: JSON.stringify(exec), frozen: core ? Object.isFrozen(core) : null, stack };
      }
      if (core === undefined) return { hasCore: false };
      const call = (opts) => outcome(core.call(args.name, args.input, opts));
      switch (args.mode) {
        case 'many': {
          const out = [];
          for (let i = 0; i < args.n; i++) out.push(await call());
          return out;
        }
        case 'parallel':
          return Promise.all(Array.from({ length: args.n }, () => call()));
        case 'cancel': {
          const ac = new AbortController();
          const pending = call({ signal: ac.signal });
          for (;;) {
            const r = await outcome(core.call('list_dir', { path: '.' }));
            if (r.ok && r.text.includes('flag')) break;
            await new Promise((res) => setTimeout(res, 10));
          }
          ac.abort();
          return pending;
        }
        case 'local':
          return Promise.all([outcome(core.call(42)), outcome(core.call('read_file', { n: 1n })),
            outcome(core.call('read_file', { f: () => 1 })), outcome(core.call('read_file', 'text'))]);
        default:
          return call();
      }
    },
  });
}
