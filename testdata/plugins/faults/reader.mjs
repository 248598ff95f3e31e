// Fixture helper entry: reads the tick counter index.mjs's ctx.setInterval increments (plugins
// share one globalThis), to show the interval stops when its owner is disposed.
export const name = 'fixture-faults-reader';
export const inject = ['tools'];
export function apply(ctx) {
  ctx.tools.register({
    name: 'read_ticks',
    description: 'Read the shared tick counter.',
    parameters: { type: 'object', properties: {} },
    execute: () => ({ ticks: globalThis.__cwxTicks ?? 0 }),
  });
}
