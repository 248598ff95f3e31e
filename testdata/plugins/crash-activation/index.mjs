// Fixture: apply SIGKILLs the host process, through a child: the host refuses
// process.kill of itself (ARCHITECTURE.md, “Lifecycles and numbers”, Blame).
import { execFileSync } from 'node:child_process';
export const name = 'fixture-crash-activation';
export function apply() {
  execFileSync('/bin/sh', ['-c', `kill -9 ${process.pid}`]);
}
