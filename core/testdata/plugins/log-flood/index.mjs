// Fixture (core): floods the core with `log` lines through the logger service.
export const name = 'fixture-log-flood';
export const inject = ['tools'];
export function apply(ctx) {
  const log = ctx.logger('flood');
  for (let i = 0; i < 200; i++) log.info(`flood line ${i}`);
  ctx.tools.register({
    name: 'flood_probe',
    description: 'Answer ok.',
    parameters: { type: 'object', properties: {} },
    execute: () => 'ok',
  });
}
