// Fixture: a child fiber stays PENDING on a service nobody provides.
export const name = 'fixture-pending-child';
export const inject = ['tools'];
export function apply(ctx) {
  ctx.tools.register({ name: 'pending_tool', description: 'x', parameters: { type: 'object', properties: {} }, execute: () => 'x' });
  ctx.inject(['sessionProjections'], () => {});
}
