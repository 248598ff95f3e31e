import { Context } from '@deepseek-ai/cordis/lib/index.js';
export const name = 'fixture-cordis-subpath';
export function apply() { return Context; }
