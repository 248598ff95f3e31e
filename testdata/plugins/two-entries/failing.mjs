// Fixture: a second entry that registers, then throws.
export const name = 'fixture-two-entries-failing';
export const inject = ['tools'];
export function apply(ctx) {
  ctx.tools.register({ name: 'failing_tool', description: 'Never kept.', parameters: { type: 'object', properties: {} }, execute: () => 'x' });
  throw new Error('second entry failed on purpose');
}
