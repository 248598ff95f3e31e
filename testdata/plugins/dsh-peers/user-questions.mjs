// Imports the `userQuestions` declaration module as DSH plugins do (for its types, and here for
// its error class); `dsh_ask` asks in DSH's request form and reports the answers, or whether the
// rejection is a UserQuestionError.
import { UserQuestionError } from '@deepseek-ai/dsh-user-questions';
export const name = 'fixture-dsh-user-questions';
export const inject = ['tools', 'userQuestions'];
export function apply(ctx) {
  ctx.tools.register({
    name: 'dsh_ask',
    description: 'Ask in the DSH request form.',
    parameters: { type: 'object' },
    async execute(args, exec) {
      try {
        return await ctx.userQuestions.ask({ questions: args.questions, signal: exec.signal });
      } catch (err) {
        return { error: err.code, userQuestionError: err instanceof UserQuestionError, message: err.message };
      }
    },
  });
}
