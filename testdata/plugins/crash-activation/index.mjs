// Fixture: apply SIGKILLs the host process.
export const name = 'fixture-crash-activation';
export function apply() {
  process.kill(process.pid, 'SIGKILL');
}
