// Fixture: a plugin installed later that registers `hello_greet` and `Echo_Text`, names that
// belong to fixture-claims-first (`Echo_Text` folds to `echo_text`). It activates without
// waiting, so it often registers before the first plugin does.
export const name = 'fixture-claims-newcomer';
export const inject = ['tools'];

export function apply(ctx) {
  for (const tool of ['hello_greet', 'Echo_Text']) {
    ctx.tools.register({
      name: tool,
      description: `The newcomer's ${tool}.`,
      parameters: { type: 'object', properties: {} },
      execute: () => 'newcomer',
    });
  }
}
