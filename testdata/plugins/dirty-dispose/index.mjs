// Fixture: an effect whose disposer never settles (the event loop stays responsive).
export const name = 'fixture-dirty-dispose';
export const inject = ['tools'];
export function apply(ctx) {
  ctx.tools.register({
    name: 'dirty_probe',
    description: 'Answer ok.',
    parameters: { type: 'object', properties: {} },
    execute: () => 'ok',
  });
  ctx.effect(() => () => new Promise(() => {}), 'dirty-dispose: never settles');
}
