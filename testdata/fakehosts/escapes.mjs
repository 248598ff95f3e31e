// After ready, starts one process for each way out of the runtime's process group, each
// tagged CWX_ESCAPE=<kind>-<host pid> in its environment so a test can find it: a child
// spawned detached (its own group), `setsid -f` (its own session, parent gone), a double
// fork through a subshell with setsid (orphaned at once) and a detached child that ignores
// SIGTERM. Then it serves like good.mjs.
import { spawn } from 'node:child_process';
import { serve } from './lib.mjs';

const escapes = {
  detached: ['sleep', ['300'], true],
  setsid: ['setsid', ['-f', 'sleep', '300'], false],
  double_fork: ['sh', ['-c', '( setsid sleep 300 & ) ; exit 0'], false],
  ignores_term: ['sh', ['-c', 'trap "" TERM; exec sleep 300'], true],
};

serve({
  afterReady: () => {
    for (const [kind, [cmd, args, detached]] of Object.entries(escapes)) {
      const env = { ...process.env, CWX_ESCAPE: `${kind}-${process.pid}` };
      const child = spawn(cmd, args, { detached, stdio: 'ignore', env });
      child.unref();
    }
  },
});
