import { Service } from '@deepseek-ai/cordis';
export const name = 'p5';
export const inject = ['tools'];
class Weather extends Service {
  constructor(ctx) { super(ctx, 'weather'); }
}
export function apply(ctx) {
  new Weather(ctx);
  ctx.tools.register({ name: 'weather_ok', description: 'x', parameters: { type: 'object', properties: {} }, execute: () => 'ok' });
}
