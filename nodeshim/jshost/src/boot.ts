// Boot helpers: argv, stdio rebinding, the parent watchdog and process-group exit.
import { createRequire } from 'node:module';
import type { Tier } from './protocol.generated.ts';
import type {} from './runtime-globals.ts'; // declares globalThis.Bun, Worker and ShadowRealm

export const EXIT_USAGE = 64;
export const EXIT_PROTOCOL = 65;
export const EXIT_SOFTWARE = 70;
export const EXIT_CONFIG = 78;

/** parseTier reads --tier=plugin|builtin; none means plugin. It returns an error string on misuse. */
export function parseTier(argv: readonly string[]): Tier | { error: string } {
  let tier: Tier | undefined;
  for (const arg of argv) {
    if (arg === '--tier') return { error: '--tier needs a value: --tier=plugin or --tier=builtin' };
    if (!arg.startsWith('--tier=')) continue;
    if (tier !== undefined) return { error: '--tier given more than once' };
    const v = arg.slice('--tier='.length);
    if (v !== 'plugin' && v !== 'builtin') return { error: `unknown tier ${JSON.stringify(v)}: use --tier=plugin or --tier=builtin` };
    tier = v;
  }
  return tier ?? 'plugin';
}

/**
 * rebindStdio sends everything plugins print to stderr and returns the only writer left for
 * stdout, which is the channel.
 */
export function rebindStdio(): (chunk: Buffer, done?: () => void) => void {
  const out = process.stdout;
  const write: (chunk: Buffer, cb?: () => void) => boolean = out.write.bind(out);
  out.write = process.stderr.write.bind(process.stderr);
  const toErr = console.error.bind(console);
  console.log = toErr;
  console.info = toErr;
  console.debug = toErr;
  console.dir = toErr;
  console.trace = (...a: unknown[]) => toErr(new Error(a.map(String).join(' ')).stack);
  const bun = globalThis.Bun;
  if (bun) Object.defineProperty(bun, 'stdout', { value: bun.stderr, writable: false });
  // Known limit: a plugin that writes to file descriptor 1 directly (fs.writeSync(1, ...),
  // Bun.file(1)) still reaches the channel; the core then sees a framing error and restarts.
  return (chunk, done) => {
    write(chunk, done);
  };
}

/** guardExit makes process.exit and process.abort throw for plugins; it returns the real exit. */
export function guardExit(): (code: number) => never {
  const realExit: (code: number) => never = process.exit.bind(process);
  const refuse = (what: string) => () => {
    throw new Error(`${what} is not available to plugins: the cwx core stops the host`);
  };
  Object.defineProperty(process, 'exit', { value: refuse('process.exit'), writable: false, configurable: false });
  Object.defineProperty(process, 'abort', { value: refuse('process.abort'), writable: false, configurable: false });
  return realExit;
}

/** killOwnGroup SIGKILLs the host's process group when it leads one (never pid 0). */
export function killOwnGroup(): void {
  try {
    process.kill(-process.pid, 'SIGKILL');
  } catch {
    // not a group leader: there is no group with our pid
  }
}

const WATCHDOG = `
const { workerData } = require('node:worker_threads');
const { parent, self, ppid } = workerData;
const gone = () => {
  try { process.kill(parent, 0); } catch (e) { if (e && e.code === 'ESRCH') return true; }
  return ppid === parent && process.ppid !== parent;
};
setInterval(() => {
  if (!gone()) return;
  try { process.kill(-self, 'SIGKILL'); } catch {}
  process.kill(self, 'SIGKILL');
}, 500);
`;

/**
 * startWatchdog starts a Worker that kills the host when the parent (the shim, whose pid is in
 * CWX_HOST_PARENT_PID) is gone. It runs on its own thread, so a plugin that blocks the event loop
 * cannot stop it. It must start before the lockdown refuses Workers.
 */
export function startWatchdog(env: NodeJS.ProcessEnv): boolean {
  const parent = Number(env.CWX_HOST_PARENT_PID);
  if (!Number.isSafeInteger(parent) || parent <= 1) return false;
  // required, not imported: Bun snapshots a builtin's ESM namespace at its first import, and the
  // lockdown must still be able to replace Worker in it afterwards.
  const { Worker } = createRequire(import.meta.url)('node:worker_threads') as typeof import('node:worker_threads');
  const w = new Worker(WATCHDOG, { eval: true, workerData: { parent, self: process.pid, ppid: process.ppid } });
  w.unref();
  return true;
}
