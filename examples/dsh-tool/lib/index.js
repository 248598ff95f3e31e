// A DeepSeek Harness (DSH) plugin, written the way DSH plugins are: a Cordis 4 plugin that
// registers a tool made with `defineTool` from `@deepseek-ai/dsh-tools`, and a command with
// DSH's result shape. Nothing here knows about cwx. Under cwx, the JS host serves
// `@deepseek-ai/dsh-tools` from its own compat module and `@deepseek-ai/schemastery` and
// `@deepseek-ai/cordis` as singletons, so the package ships no node_modules.
import Schema from '@deepseek-ai/schemastery';
import { defineTool, ToolArgsError } from '@deepseek-ai/dsh-tools';

export const name = 'dsh-word-stats';
export const inject = ['tools', 'commands'];

export const Config = Schema.object({
  top: Schema.natural().default(3).description('How many of the most frequent words to report.'),
});

function stats(text, top) {
  const words = text.toLowerCase().match(/[\p{L}\p{N}']+/gu) ?? [];
  const counts = new Map();
  for (const w of words) counts.set(w, (counts.get(w) ?? 0) + 1);
  const frequent = [...counts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, top);
  return { words: words.length, distinct: counts.size, top: frequent.map(([word, count]) => ({ word, count })) };
}

export function apply(ctx, config) {
  const wordStats = defineTool({
    name: 'word_stats',
    description: 'Count the words of a text and report the most frequent ones.',
    // DSH's parameter language: an open object of property specs; defineTool compiles it to
    // JSON Schema (cwx validates every call against it before asking for approval).
    parameters: {
      text: { type: 'string', required: true, description: 'The text to analyse.' },
      top: { type: 'integer', description: 'Override the configured number of frequent words.' },
    },
    output: {
      schema: { type: 'object' },
      render: (args, value) => [{ type: 'text', text: `${value.words} words, ${value.distinct} distinct` }],
    },
    async execute(args, exec) {
      if (exec.signal.aborted) throw new Error('aborted');
      const top = args.top ?? config.top;
      if (top > 50) throw new ToolArgsError('invalid arguments: top must be at most 50');
      return stats(args.text, top);
    },
  });
  ctx.tools.register(wordStats);

  ctx.commands.register({
    name: 'wordstats',
    description: 'Count the words of the text after the command.',
    input: { hint: '<text>' },
    handler(invocation) {
      const text = invocation.rawInput.trim();
      if (!text) return { kind: 'error', text: 'usage: /wordstats <text>' };
      const s = stats(text, config.top);
      const top = s.top.map((t) => `${t.word}×${t.count}`).join(', ');
      return { kind: 'success', text: `${s.words} words, ${s.distinct} distinct; most frequent: ${top}` };
    },
  });
}
