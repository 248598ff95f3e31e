// Fixture: `review_scope` saves the running session, spawns a child agent through DSH's
// `spawn` provider with a tool filter that narrows the parent's tools, waits for its result
// and disposes it, asks the person one question, lists the agent's skills and asks git for
// the current branch; it answers with what each step got. `widen_child` asks for a child
// whose filter names a tool the parent lacks; `old_start` uses the older `subagents.start`;
// `leave_child` starts a child and returns without disposing it.
// Each failure is reported as {error: code, message}.
export const name = 'fixture-agent-services';
export const inject = ['tools', 'sessions', 'subagents', 'agents', 'skills', 'userQuestions'];

const outcome = async (f) => {
  try {
    return { ok: await f() };
  } catch (err) {
    return { error: err?.code ?? err?.name ?? 'unknown', message: String(err?.message ?? err) };
  }
};

export function apply(ctx) {
  ctx.tools.register({
    name: 'review_scope',
    description: 'Review with a child agent.',
    parameters: { type: 'object' },
    async execute(_args, exec) {
      const saved = await outcome(async () => {
        await ctx.sessions.flush(exec.sessionId);
        return 'saved';
      });
      const provider = ctx.subagents.getProvider('spawn');
      const child = await outcome(async () => {
        const a = await ctx.subagents.startActivation({
          provider: 'spawn',
          delivery: 'caller',
          request: { parent: exec.agentId, prompt: 'Review the change.', agentOptions: { persona: 'You are a careful reviewer.', toolFilter: { allow: ['read', 'grep'], deny: ['grep'] } } },
        });
        const r = await a.result;
        await a.dispose();
        return { tools: a.tools, status: r.status, text: r.text };
      });
      const answer = await outcome(() => ctx.userQuestions.ask({ question: 'Post the review?', options: ['yes', 'no'] }));
      const skills = await outcome(async () => (await ctx.skills.list()).map((s) => s.name));
      const branch = await outcome(async () => (await exec.core.call('git_review_scope', { args: ['rev-parse', '--abbrev-ref', 'HEAD'] })).content[0].text.trim());
      return { provider, saved, child, answer, skills, branch };
    },
  });
  ctx.tools.register({
    name: 'widen_child',
    description: 'Ask for a child with a tool its parent lacks.',
    parameters: { type: 'object' },
    async execute(_args, exec) {
      return outcome(() => ctx.subagents.startActivation({ request: { parent: exec.agentId, prompt: 'x', agentOptions: { toolFilter: { allow: ['read', 'shell'] } } } }));
    },
  });
  ctx.tools.register({
    name: 'leave_child',
    description: 'Start a child and leave it.',
    parameters: { type: 'object' },
    async execute(_args, exec) {
      const a = await ctx.subagents.startActivation({ request: { parent: exec.agentId, prompt: 'left behind' } });
      return { child: a.childId };
    },
  });
  ctx.tools.register({
    name: 'old_start',
    description: 'The older DSH form.',
    parameters: { type: 'object' },
    async execute() {
      return outcome(async () => ctx.subagents.start('spawn', { prompt: 'x' }));
    },
  });
}
