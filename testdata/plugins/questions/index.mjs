// Fixture: `ask_person` asks what its input says and answers with the typed answer, or the
// error's code and message; `ask_later` asks from a timer after its call returned, and
// `later_result` reports what that question got. The command `ask` asks a fixed question.
export const name = 'fixture-questions';
export const inject = ['tools', 'commands', 'userQuestions'];

const outcome = async (p) => {
  try {
    return { answer: await p };
  } catch (err) {
    return { error: err?.code ?? err?.name ?? 'unknown', message: String(err?.message ?? err) };
  }
};

export function apply(ctx) {
  let later = { pending: true };
  ctx.tools.register({
    name: 'ask_person',
    description: 'Ask the person what the input says.',
    parameters: { type: 'object' },
    async execute(args) {
      return outcome(ctx.userQuestions.ask(args.question));
    },
  });
  ctx.tools.register({
    name: 'ask_later',
    description: 'Ask after the call ended.',
    parameters: { type: 'object' },
    async execute() {
      later = { pending: true };
      setTimeout(async () => {
        later = await outcome(ctx.userQuestions.ask({ question: 'Still there?' }));
      }, 50);
      return 'scheduled';
    },
  });
  ctx.tools.register({
    name: 'later_result',
    description: 'What the late question got.',
    parameters: { type: 'object' },
    async execute() {
      return later;
    },
  });
  ctx.commands.register({
    name: 'ask',
    description: 'Ask the person which branch to review.',
    async handler() {
      const r = await outcome(ctx.userQuestions.ask({ question: 'Which branch?', options: ['main', { label: 'release', description: 'the release branch' }] }));
      return { kind: 'success', text: JSON.stringify(r) };
    },
  });
}
