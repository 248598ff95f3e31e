// Fixture: one tool. `echo_text` returns what it was given plus the frozen exec it saw.
export const name = 'fixture-tool';
export const inject = ['tools'];

export function apply(ctx, config) {
  ctx.tools.register({
    name: 'echo_text',
    description: 'Echo the input text.',
    parameters: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
    async execute(args, exec) {
      if (args.mode === 'throw') throw new TypeError(args.text);
      if (args.mode === 'string') return args.text;
      if (args.mode === 'class') return new Map([[1, 2]]);
      if (args.mode === 'exec') {
        return {
          frozen: Object.isFrozen(exec),
          keys: Object.keys(exec).sort(),
          callId: exec.callId,
          sameArgs: exec.args === args && exec.arguments === args,
          workspace: exec.workspace ?? null,
          dataDir: exec.dataDir ?? null,
          aborted: exec.signal.aborted,
          config,
        };
      }
      return { echoed: args.text };
    },
  });
}
