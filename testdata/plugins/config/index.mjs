// Fixture: a plugin with a schemastery Config schema (defaults filled, required fields checked).
import Schema from '@deepseek-ai/schemastery';

export const name = 'fixture-config';
export const inject = ['tools'];
export const Config = Schema.object({
  greeting: Schema.string().default('Hello'),
  target: Schema.string().required(),
});
export function apply(ctx, config) {
  ctx.tools.register({
    name: 'config_echo',
    description: 'Return the validated config.',
    parameters: { type: 'object', properties: {} },
    execute: () => ({ text: `${config.greeting}, ${config.target}`, config }),
  });
}
