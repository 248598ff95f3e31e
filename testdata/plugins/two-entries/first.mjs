// Fixture entry 1 of 2.
export const name = 'fixture-two-entries-first';
export const inject = ['tools'];
export function apply(ctx) {
  ctx.tools.register({ name: 'first_tool', description: 'First.', parameters: { type: 'object', properties: {} }, execute: () => 'first' });
}
