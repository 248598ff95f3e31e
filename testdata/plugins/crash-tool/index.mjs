// Fixture: a tool whose execute SIGKILLs the host.
export const name = 'fixture-crash-tool';
export const inject = ['tools'];
export function apply(ctx) {
  ctx.tools.register({
    name: 'crash_probe',
    description: 'Kill the extension host.',
    parameters: { type: 'object', properties: {} },
    execute() {
      process.kill(process.pid, 'SIGKILL');
    },
  });
}
