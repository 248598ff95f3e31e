// Fixture entry 2 of 2.
export const name = 'fixture-two-entries-second';
export const inject = ['tools'];
export function apply(ctx) {
  ctx.tools.register({ name: 'second_tool', description: 'Second.', parameters: { type: 'object', properties: {} }, execute: () => 'second' });
}
