// Fixture: return values JSON cannot carry, and throws whose top frame is in lib/helper.mjs.
import { explode } from './lib/helper.mjs';

export const name = 'fixture-odd-returns';
export const inject = ['tools', 'commands'];
const params = { type: 'object', properties: {} };
export function apply(ctx) {
  ctx.tools.register({ name: 'odd_function', description: 'Returns a function.', parameters: params, execute: () => function secret() { return 'source'; } });
  ctx.tools.register({ name: 'odd_symbol', description: 'Returns a symbol.', parameters: params, execute: () => Symbol('s') });
  ctx.tools.register({ name: 'odd_bigint', description: 'Returns a BigInt inside an object.', parameters: params, execute: () => ({ counts: [1, 2n] }) });
  ctx.tools.register({ name: 'odd_map', description: 'Returns a Map inside an object.', parameters: params, execute: () => ({ byName: new Map([['a', 1]]) }) });
  ctx.tools.register({ name: 'odd_nan', description: 'Returns NaN inside an array.', parameters: params, execute: () => ({ scores: [1, NaN] }) });
  ctx.tools.register({ name: 'odd_hole', description: 'Returns undefined inside an array.', parameters: params, execute: () => [1, undefined] });
  ctx.tools.register({ name: 'odd_throw', description: 'Throws from a helper.', parameters: params, execute: () => explode('the tool') });
  ctx.commands.register({ name: 'odd-throw', description: 'Throws from a helper.', handler: () => explode('the handler') });
  ctx.commands.register({ name: 'odd-error', description: 'Answers an error on purpose.', handler: () => ({ kind: 'error', text: 'deliberately refused' }) });
}
