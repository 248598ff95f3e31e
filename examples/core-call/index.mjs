// core-call-example: a tool that asks the core to run one of the core's own tools.
//
// `exec.core` is there only while a tool call runs (the core hands the host a capability
// ticket with every tool/call; the plugin never sees it). `exec.core.call(name, input)` runs
// the core's tool exactly as a model's call would run: validated against that tool's schema,
// confined to the call's workspace, and through the same approval gate. `read_file` is
// read-only and runs without asking; `shell` would ask every time.
export const name = 'core-call-example';
export const inject = ['tools'];

export function apply(ctx) {
  ctx.tools.register({
    name: 'line_count',
    description: 'Count the lines of a file in the workspace (read through the core).',
    inputSchema: {
      type: 'object',
      properties: { file_path: { type: 'string', description: 'A path inside the workspace.' } },
      required: ['file_path'],
    },
    async execute(args, exec) {
      if (exec.core === undefined) throw new Error('this call cannot ask the core (no ticket)');
      try {
        const r = await exec.core.call('read_file', { file_path: args.file_path });
        if (r.isError) return { file: args.file_path, error: r.content.map((b) => b.text).join('\n') };
        // read_file answers numbered lines ("     7\tthe line"), at most 2000 per call.
        const text = r.content.map((b) => b.text).join('\n');
        const numbered = text.split('\n').filter((l) => /^ *\d+\t/.test(l));
        return { file: args.file_path, lines: numbered.length, first: numbered[0]?.replace(/^ *\d+\t/, '') ?? null };
      } catch (err) {
        // a CoreCallError: err.code is refused, denied, cancelled, unavailable or failed
        return { file: args.file_path, refused: err.code ?? 'failed', reason: err.message };
      }
    },
  });
}
