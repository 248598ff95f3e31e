// Fixture: `show_skills` answers with what the agent's `skills.list()` gives, or with the
// refusal's code and message.
export const name = 'fixture-skills-list';
export const inject = ['tools', 'skills'];

export function apply(ctx) {
  ctx.tools.register({
    name: 'show_skills',
    description: 'List the skills the agent offers.',
    parameters: { type: 'object' },
    async execute() {
      try {
        return { skills: await ctx.skills.list() };
      } catch (err) {
        return { error: err?.code ?? err?.name ?? 'unknown', message: String(err?.message ?? err) };
      }
    },
  });
}
