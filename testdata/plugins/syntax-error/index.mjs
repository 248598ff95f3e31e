// Fixture: a syntax error on line 7, column 13, after module syntax that a script cannot parse.
import { join } from 'node:path';

export const name = 'fixture-syntax-error';
export const inject = ['tools'];
export function apply(ctx) {
  const x = ;
  ctx.tools.register({ name: join('a', 'b'), parameters: {}, execute: () => x });
}
