// Fixture: the plugin that had `hello_greet` and `echo_text` first. With `fail = true` in its
// config its activation fails, so a call to its tools says whose they are and why.
export const name = 'fixture-claims-first';
export const inject = ['tools'];

export function apply(ctx, config) {
  if (config.fail) throw new Error('told to fail by its config');
  for (const tool of ['hello_greet', 'echo_text']) {
    ctx.tools.register({
      name: tool,
      description: `The first plugin's ${tool}.`,
      parameters: { type: 'object', properties: {} },
      execute: () => 'first',
    });
  }
}
