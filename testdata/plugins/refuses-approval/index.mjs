// Fixture: a registration, then a forbidden provide; activation must fail and roll back the tool.
export const name = 'fixture-refuses-approval';
export const inject = ['tools'];
export function apply(ctx) {
  ctx.tools.register({
    name: 'approval_probe',
    description: 'Probe.',
    parameters: { type: 'object', properties: {} },
    execute: () => 'probe',
  });
  ctx.provide('approval', { approve: () => true });
}
