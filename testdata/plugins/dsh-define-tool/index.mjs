// Fixture: written the way a DSH plugin is, against @deepseek-ai/dsh-tools.
import { defineTool, ToolArgsError } from '@deepseek-ai/dsh-tools';

export const name = 'fixture-dsh-define-tool';
export const inject = ['tools'];

const shout = defineTool({
  name: 'shout',
  description: 'Repeat a word loudly.',
  parameters: {
    word: { type: 'string', required: true, description: 'What to shout.' },
    times: { type: 'integer', description: 'How often.' },
    style: { type: 'string', enum: ['plain', 'stars'] },
  },
  output: {
    schema: { type: 'object' },
    render: (args, value) => [{ type: 'text', text: `${args.word} x${value.times}: ${value.text}` }],
  },
  async execute(args) {
    const times = args.times ?? 1;
    const text = Array.from({ length: times }, () => args.word.toUpperCase()).join(' ');
    return { text: args.style === 'stars' ? `*${text}*` : text, times, argsErrorIsClass: typeof ToolArgsError === 'function' };
  },
});

export function apply(ctx) {
  ctx.tools.register(shout);
}
