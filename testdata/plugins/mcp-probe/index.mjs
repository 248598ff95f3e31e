// Fixture: what an MCP client's calls do to a plugin. `probe_wait` waits until aborted
// (or `ms` passes) and counts aborts; `probe_aborts` answers the count; `probe_echo`
// returns its input as a structured result; `probe_fail` throws.
export const name = 'fixture-mcp-probe';
export const inject = ['tools'];
export function apply(ctx) {
  let aborts = 0;
  ctx.tools.register({
    name: 'probe_wait',
    description: 'Wait until aborted, or ms milliseconds.',
    parameters: { type: 'object', properties: { ms: { type: 'integer' } } },
    execute(args, exec) {
      const ms = args.ms ?? 60000;
      return new Promise((resolve, reject) => {
        const t = setTimeout(() => resolve({ waited: ms }), ms);
        exec.signal.addEventListener('abort', () => {
          clearTimeout(t);
          aborts++;
          reject(new Error('aborted'));
        });
      });
    },
  });
  ctx.tools.register({
    name: 'probe_aborts',
    description: 'How many probe_wait calls were aborted.',
    parameters: { type: 'object', properties: {} },
    execute() {
      return { aborts };
    },
  });
  ctx.tools.register({
    name: 'probe_echo',
    description: 'Answer the input as a structured result.',
    parameters: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
    execute(args) {
      return { echo: args.text };
    },
  });
  ctx.tools.register({
    name: 'probe_fail',
    description: 'Throw.',
    parameters: { type: 'object', properties: {} },
    execute() {
      throw new Error('probe failed on purpose');
    },
  });
}
