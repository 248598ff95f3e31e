import { CommandDefinitionId } from '@deepseek-ai/dsh-commands/brand';
import { deepFreeze } from '@deepseek-ai/dsh-util-values';
import { camelCase } from 'cosmokit';
export const name = 'fixture-dsh-brand';
export const inject = ['commands'];
export function apply(ctx) {
  ctx.commands.register({
    name: 'brand',
    description: 'Use the provided helpers.',
    handler: () => ({ kind: 'success', text: `${CommandDefinitionId('x')} ${Object.isFrozen(deepFreeze({ a: 1 }))} ${camelCase('a-b')}` }),
  });
}
