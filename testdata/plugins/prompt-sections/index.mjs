// Fixture: two prompt sections (one through the cwx spelling, one through DSH's systemPrompt),
// a command that withdraws the first, and, with config.bad, a section the core refuses.
export const name = 'fixture-prompt-sections';
export const inject = ['commands', 'prompt', 'systemPrompt'];

export function apply(ctx, config) {
  const dispose = ctx.prompt.registerSection({ id: 'style', text: 'Answer in short sentences.\n\tCite files by path.' });
  ctx.systemPrompt.section({ name: 'persona', content: 'You review code for a careful team.' });
  if (config.bad) ctx.prompt.registerSection({ id: 'Bad Id', text: 'x' });
  ctx.commands.register({
    name: 'drop-style',
    description: 'Withdraw the style section.',
    async handler() {
      await dispose();
      return { kind: 'success', text: 'dropped' };
    },
  });
}
