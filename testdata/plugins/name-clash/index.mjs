// Fixture: a tool whose name clashes with a native tool; the core refuses it.
export const name = 'fixture-name-clash';
export const inject = ['tools'];
export function apply(ctx) {
  ctx.tools.register({
    name: 'echo_before_clash',
    description: 'Registered before the clash.',
    parameters: { type: 'object', properties: {} },
    execute: () => 'ok',
  });
  ctx.tools.register({
    name: 'read_file',
    description: 'Clashes with a native tool.',
    parameters: { type: 'object', properties: { path: { type: 'string' } } },
    execute: () => 'never',
  });
}
