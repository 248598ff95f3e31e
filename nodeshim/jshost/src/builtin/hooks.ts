// Builtin module `hooks` (owner `host:hooks`): runs the person's command hooks (Claude Code's
// format) when the core asks with harness/run. The core reads the configuration, matches the
// hooks, writes each one's stdin (the event JSON) and judges what this module reports: exit status,
// bounded stdout and stderr, whether it timed out (ARCHITECTURE.md, “Command hooks”). This module
// decides nothing; it only runs the command the core's config names under `point`.
//
// One run is `/bin/sh -c <command>` in the call's workspace, in a process group of its own: on
// timeout, on cancellation and once the shell exits, the whole group is killed with SIGKILL, so
// nothing a hook started outlives its run. Its environment is exactly the allow-listed one the
// core computed, plus CWX_PROJECT_DIR (and CLAUDE_PROJECT_DIR, which hook scripts written for
// Claude Code read) set to the workspace. stdout and stderr are each kept to their first
// max_output_bytes; the rest is read and dropped.
import { spawn } from 'node:child_process';

export const name = 'cwx-hooks';
export const inject = ['shellHooks'];

interface HookSpec {
  id: string;
  command: string;
  timeout_ms: number;
}

interface Config {
  hooks: HookSpec[];
  env: Record<string, string>;
  max_output_bytes: number;
  max_stdin_bytes: number;
}

interface Dispatch {
  event: string;
  dialect: string;
  point: string;
  query: unknown;
}

interface RunParams {
  deadline_ms: number;
  hook?: Dispatch;
}

/** HookResult is what the core reads of one run (cmdhooks.Result). */
export interface HookResult {
  [key: string]: unknown;
  exit_code: number;
  signal?: string;
  timed_out: boolean;
  stdout: string;
  stderr: string;
  stdout_truncated: boolean;
  stderr_truncated: boolean;
  error?: string;
}

interface Logger {
  info(msg: string): void;
}

interface Ctx {
  shellHooks: { serve(handler: (p: RunParams, signal: AbortSignal) => Promise<HookResult>): void };
  logger?: (name: string) => Logger;
}

/** After the shell exits and its group is killed, how long a pipe a runaway descendant holds may stay open. */
const DRAIN_MS = 1000;

export function apply(ctx: Ctx, config: Config): void {
  const byId = new Map(config.hooks.map((h) => [h.id, h]));
  const log = typeof ctx.logger === 'function' ? ctx.logger('hooks') : undefined;
  ctx.shellHooks.serve(async (p, signal) => {
    const d = p.hook;
    if (!d || d.dialect !== 'claude-code') throw new Error('harness/run: the hooks module serves only Claude Code command hooks');
    const spec = byId.get(d.point);
    if (!spec) throw new Error(`harness/run: no hook \`${d.point}\` is configured`);
    const stdin = typeof d.query === 'string' ? d.query : JSON.stringify(d.query);
    const cwd = workspaceOf(stdin);
    const timeoutMs = Math.min(spec.timeout_ms, p.deadline_ms > 0 ? p.deadline_ms : spec.timeout_ms);
    const started = Date.now();
    const r = await runHook({
      command: spec.command, stdin, cwd, timeoutMs, maxOutput: config.max_output_bytes, maxStdin: config.max_stdin_bytes,
      env: { ...config.env, ...(cwd ? { CWX_PROJECT_DIR: cwd, CLAUDE_PROJECT_DIR: cwd } : {}) },
    }, signal);
    log?.info(`${spec.id} (${d.event}) ran \`${spec.command}\`: ${describe(r)} after ${Date.now() - started} ms; stdin ${Buffer.byteLength(stdin)} B, stdout ${Buffer.byteLength(r.stdout)} B, stderr ${Buffer.byteLength(r.stderr)} B`);
    return r;
  });
}

function describe(r: HookResult): string {
  if (r.error) return `not run (${r.error})`;
  if (r.timed_out) return 'timed out, its group killed';
  return r.signal ? `killed by ${r.signal}` : `exit ${r.exit_code}`;
}

function workspaceOf(stdin: string): string | undefined {
  try {
    const ev: unknown = JSON.parse(stdin);
    const cwd: unknown = typeof ev === 'object' && ev !== null ? Reflect.get(ev, 'cwd') : undefined;
    return typeof cwd === 'string' && cwd !== '' ? cwd : undefined;
  } catch {
    return undefined;
  }
}

export interface RunSpec {
  command: string;
  stdin: string;
  cwd: string | undefined;
  env: Record<string, string>;
  timeoutMs: number;
  maxOutput: number;
  maxStdin: number;
}

/** runHook runs one command hook to its end and reports it; it never throws. */
export async function runHook(s: RunSpec, signal: AbortSignal): Promise<HookResult> {
  const out = new Bounded(s.maxOutput);
  const err = new Bounded(s.maxOutput);
  const result = (r: Partial<HookResult>): HookResult => ({
    exit_code: -1, timed_out: false, stdout: out.text(), stderr: err.text(), stdout_truncated: out.cut, stderr_truncated: err.cut, ...r,
  });
  if (Buffer.byteLength(s.stdin) > s.maxStdin) return result({ error: `the event is over ${s.maxStdin} bytes` });
  if (signal.aborted) return result({ error: 'cancelled before it started' });
  const child = spawn('/bin/sh', ['-c', s.command], {
    cwd: s.cwd ?? process.cwd(), env: { ...s.env }, stdio: ['pipe', 'pipe', 'pipe'], detached: true, // its own process group
  });
  const pid = child.pid;
  let timedOut = false;
  const killGroup = () => {
    if (pid === undefined) return;
    try {
      process.kill(-pid, 'SIGKILL');
    } catch {
      // the group is gone already
    }
  };
  child.stdout.on('data', (b: Buffer) => out.add(b));
  child.stderr.on('data', (b: Buffer) => err.add(b));
  child.stdin.on('error', () => {}); // a hook that does not read its stdin
  const timer = setTimeout(() => { timedOut = true; killGroup(); }, s.timeoutMs);
  const onAbort = () => killGroup();
  signal.addEventListener('abort', onAbort, { once: true });
  const exited = new Promise<{ code: number | null; sig: NodeJS.Signals | null } | Error>((resolve) => {
    child.once('error', (e) => resolve(e));
    child.once('exit', (code, sig) => resolve({ code, sig }));
  });
  const closed = new Promise<void>((resolve) => child.once('close', () => resolve()));
  child.stdin.end(s.stdin);
  const status = await exited;
  clearTimeout(timer);
  signal.removeEventListener('abort', onAbort);
  killGroup(); // whatever the hook left running in its group goes with it
  let drain: ReturnType<typeof setTimeout> | undefined;
  await Promise.race([closed, new Promise<void>((r) => { drain = setTimeout(r, DRAIN_MS); })]);
  clearTimeout(drain);
  child.stdout.destroy();
  child.stderr.destroy();
  if (status instanceof Error) return result({ error: `cannot run /bin/sh: ${status.message}` });
  if (signal.aborted && !timedOut) return result({ error: 'cancelled', ...(status.sig ? { signal: status.sig } : {}) });
  return result({
    exit_code: status.code ?? -1, timed_out: timedOut, ...(status.sig ? { signal: status.sig } : {}),
  });
}

/** Bounded keeps the first max bytes of a stream, cut at a character boundary, and drops the rest. */
class Bounded {
  private chunks: Buffer[] = [];
  private size = 0;
  cut = false;
  private readonly max: number;
  constructor(max: number) {
    this.max = max;
  }
  add(b: Buffer): void {
    const room = this.max - this.size;
    if (b.length > room) {
      this.cut = true;
      if (room <= 0) return;
      b = b.subarray(0, room);
    }
    this.chunks.push(b);
    this.size += b.length;
  }
  text(): string {
    const raw = Buffer.concat(this.chunks);
    // drop a character cut in two at the end, then re-encode: bytes that are not UTF-8 decode
    // to U+FFFD (three bytes), so the text may have grown past max and is cut again
    let t = raw.subarray(0, utf8Boundary(raw, raw.length)).toString('utf8');
    const enc = Buffer.from(t, 'utf8');
    if (enc.length > this.max) t = enc.subarray(0, utf8Boundary(enc, this.max)).toString('utf8');
    return t;
  }
}

/** utf8Boundary is the largest n' <= n at which b can be cut without splitting a character. */
function utf8Boundary(b: Buffer, n: number): number {
  if (n >= b.length) {
    // a trailing sequence may be incomplete: find the last lead byte and check its length
    n = b.length;
  }
  let i = n;
  while (i > 0 && i > n - 4 && ((b[i - 1] ?? 0) & 0xc0) === 0x80) i--;
  if (i === 0) return n;
  const lead = b[i - 1] ?? 0;
  const need = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1;
  return n - (i - 1) >= need ? n : i - 1;
}
