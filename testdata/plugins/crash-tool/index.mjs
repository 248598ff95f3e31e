// Fixture: a tool whose execute SIGKILLs the host, through a child: the host refuses
// process.kill of itself (ARCHITECTURE.md, “Lifecycles and numbers”, Blame).
import { execFileSync } from 'node:child_process';
export const name = 'fixture-crash-tool';
export const inject = ['tools'];
export function apply(ctx) {
  ctx.tools.register({
    name: 'crash_probe',
    description: 'Kill the extension host.',
    parameters: { type: 'object', properties: {} },
    execute() {
      execFileSync('/bin/sh', ['-c', `kill -9 ${process.pid}`]);
    },
  });
}
