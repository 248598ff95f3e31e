// Builtin module `script-tools` (owner `host:script-tools`): the executable scripts the core
// found in $CWX_HOME/tools/ become tools. The core reads each script's frontmatter, refuses
// shadowing and computes this module's config (ARCHITECTURE.md, “Builtin modules”); this module
// only runs the scripts. One call is one child process in its own process group: the input as
// JSON on stdin, stdout (bounded) as the result, the whole group killed on timeout, on
// cancellation and when the output passes its bound. The child's environment is exactly the
// allow-listed one the core passed. A script whose bytes changed since the core read it is not
// run (the core picks the change up at its next reconcile).
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';

export const name = 'cwx-script-tools';
export const inject = ['tools'];

interface ScriptTool {
  name: string;
  description: string;
  input_schema: Record<string, unknown>;
  path: string;
  sha256: string;
  timeout_ms: number;
}

interface Config {
  tools: ScriptTool[];
  env: Record<string, string>;
  max_output_bytes: number;
  max_stderr_bytes: number;
}

interface Execution {
  signal: AbortSignal;
  workspace?: string;
}

interface ToolsService {
  register(def: {
    name: string;
    description: string;
    inputSchema: Record<string, unknown>;
    execute(args: unknown, exec: Execution): Promise<string>;
  }): unknown;
}

interface Ctx {
  tools: ToolsService;
}

class ScriptError extends Error {
  override name = 'ScriptError';
}

export function apply(ctx: Ctx, config: Config): void {
  for (const tool of config.tools) {
    ctx.tools.register({
      name: tool.name,
      description: tool.description,
      inputSchema: tool.input_schema,
      execute: (args, exec) => run(tool, config, args, exec),
    });
  }
}

async function run(tool: ScriptTool, config: Config, args: unknown, exec: Execution): Promise<string> {
  const bytes = await readFile(tool.path);
  if (createHash('sha256').update(bytes).digest('hex') !== tool.sha256) {
    throw new ScriptError(`${tool.path} changed since cwx read it; run \`cwx plugin reload\` to pick up the new version`);
  }
  const child = spawn(tool.path, [], {
    cwd: exec.workspace ?? process.cwd(),
    env: { ...config.env },
    stdio: ['pipe', 'pipe', 'pipe'],
    detached: true, // its own process group, killed as a whole
  });
  const pid = child.pid;
  let why = '';
  const killTree = (reason: string) => {
    if (why === '') why = reason;
    if (pid === undefined) return;
    try {
      process.kill(-pid, 'SIGKILL');
    } catch {
      // the group is already gone
    }
  };
  const out = new Bounded(config.max_output_bytes, () => killTree(`its output passed ${config.max_output_bytes} bytes`));
  const err = new Bounded(config.max_stderr_bytes, () => {});
  child.stdout.on('data', (b: Buffer) => out.add(b));
  child.stderr.on('data', (b: Buffer) => err.add(b));
  child.stdin.on('error', () => {}); // a script that does not read its input
  const timer = setTimeout(() => killTree(`it ran past its timeout of ${tool.timeout_ms} ms`), tool.timeout_ms);
  const onAbort = () => killTree('the call was cancelled');
  exec.signal.addEventListener('abort', onAbort, { once: true });
  const ended = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code, signal) => resolve({ code, signal }));
  });
  // the script is done when it exits: what it left running in its group (holding its pipes
  // open, so that 'close' would wait) goes with it
  child.once('exit', () => killTree(''));
  child.stdin.end(JSON.stringify(args ?? {}));
  let status: { code: number | null; signal: NodeJS.Signals | null };
  try {
    status = await ended;
  } catch (e) {
    throw new ScriptError(`cannot run ${tool.path}: ${e instanceof Error ? e.message : String(e)}`);
  } finally {
    clearTimeout(timer);
    exec.signal.removeEventListener('abort', onAbort);
    killTree(''); // anything the script left running in its group goes with it
  }
  if (why !== '') throw new ScriptError(`${tool.name}: killed with its process group: ${why}`);
  if (status.code !== 0) {
    const tail = err.text().trim();
    const how = status.code === null ? `was killed by ${status.signal ?? 'a signal'}` : `exited with status ${status.code}`;
    throw new ScriptError(`${tool.name} ${how}${tail ? `: ${tail}` : ''}`);
  }
  return out.text();
}

/** Bounded keeps the first max bytes of a stream and calls over once when more arrive. */
class Bounded {
  private chunks: Buffer[] = [];
  private size = 0;
  private passed = false;
  private readonly max: number;
  private readonly over: () => void;
  constructor(max: number, over: () => void) {
    this.max = max;
    this.over = over;
  }
  add(b: Buffer): void {
    const room = this.max - this.size;
    if (b.length > room) {
      if (room > 0) this.chunks.push(b.subarray(0, room));
      this.size = this.max;
      if (!this.passed) {
        this.passed = true;
        this.over();
      }
      return;
    }
    this.chunks.push(b);
    this.size += b.length;
  }
  text(): string {
    return Buffer.concat(this.chunks).toString('utf8');
  }
}
