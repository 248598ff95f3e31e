// DSH review plugins read git metadata (the merge base, the commits of a branch, the files it
// changes) with `execFile('git', args, options, callback)` or its util.promisify form. In the
// plugin tier that call never runs git: the host sends the argument list to the core as
// core/call `git_review_scope` from the running tool invocation (agent.ts invocationCall),
// the core admits it only when it is one of the bounded metadata queries (core/gitscope Parse)
// and gates it, and the embedder's GitReviewScope runs it in the invocation's workspace
// (core/services doc.go, “Agent services”). The answer comes back as execFile's would:
// callback(err, stdout, stderr) or {stdout, stderr}, in the options' encoding.
//
// Any other git invocation is refused by name, never run: an execFile whose subcommand is not
// one of the queries' (refused here, before the core or a person is asked), one the core
// refuses (its reason is quoted), and git through execFileSync, spawn, spawnSync, exec or
// execSync. Every other program keeps child_process's own behaviour. The builtin tier is left
// alone (its modules run their own processes). On Node plugin code is served a module of its
// own in place of child_process (module.registerHooks, as for the DSH modules), built when a
// plugin first asks for it; Node's own child_process is left as it is and not loaded before.
// On Bun the builtin's exports are replaced in place before the first plugin loads (main.ts
// installs this before the lockdown).
import { EventEmitter } from 'node:events';
import { createRequire } from 'node:module';
import * as nodeModule from 'node:module';
import { promisify } from 'node:util';
import type { ToolResult } from '../protocol.generated.ts';
import { isPlainObject } from '../validate.ts';
import { AgentServiceError, invocationCall } from './agent.ts';

// node:child_process is read with require, never imported: Bun snapshots a builtin's ESM
// namespace at its first import, so the exports are replaced before any module imports it.
const require = createRequire(import.meta.url);

/** SUBCOMMANDS are the subcommands of the queries core/gitscope admits. */
const SUBCOMMANDS = new Set(['merge-base', 'log', 'rev-list', 'diff', 'rev-parse']);
/** LEADING are the options accepted before the subcommand (gitscope.Leading). */
const LEADING = new Set(['--no-optional-locks', '--no-pager']);
const QUERIES = '`merge-base <base> <head>`, `log`/`rev-list <base>..<head>`, `diff --name-only|--name-status <base>...<head>`, `rev-parse --abbrev-ref HEAD`';
const MAX_BUFFER = 1024 * 1024; // execFile's default

/** GitQueryError is the rejection of a git query: execFile's error shape, with a cwx code. */
export class GitQueryError extends Error {
  override name = 'GitQueryError';
  readonly code: string | number | null;
  readonly cmd: string;
  readonly killed: boolean;
  readonly signal: string | null;
  stdout: string | Buffer = '';
  stderr: string | Buffer = '';
  constructor(code: string | number | null, cmd: string, message: string, killed = false) {
    super(message);
    this.code = code;
    this.cmd = cmd;
    this.killed = killed;
    this.signal = killed ? 'SIGTERM' : null;
  }
}
Object.freeze(GitQueryError.prototype);

/** isGit: the program is git (by name or by a path that ends in /git). */
function isGit(file: unknown): boolean {
  return typeof file === 'string' && file.slice(file.lastIndexOf('/') + 1) === 'git';
}

function subcommand(args: readonly string[]): string | undefined {
  let i = 0;
  while (i < args.length && LEADING.has(args[i] ?? '')) i++;
  return args[i];
}

function quoted(s: string): string {
  return JSON.stringify(s.length > 64 ? `${s.slice(0, 64)}…` : s);
}

/** refusal names what was refused and what cwx provides instead. */
function refusal(how: string, args: readonly string[], why?: string): GitQueryError {
  const sub = subcommand(args);
  const what = sub === undefined ? '`git`' : `\`git ${quoted(sub).slice(1, -1)}\``;
  const tail = why === undefined ? '' : `: ${why}`;
  return new GitQueryError('ERR_CWX_GIT_REFUSED', cmdLine(args),
    `${what} (${how}) is not provided by cwx: only review-scope metadata queries are, through execFile('git', args) inside one of the plugin's tools (${QUERIES})${tail}`);
}

function cmdLine(args: readonly string[]): string {
  return ['git', ...args].join(' ').slice(0, 200);
}

/** fromService maps a rejected core/call onto execFile's error. */
function fromService(args: readonly string[], err: unknown): GitQueryError {
  const cmd = cmdLine(args);
  if (!(err instanceof AgentServiceError)) return new GitQueryError(1, cmd, `Command failed: ${cmd}\n${String(err)}`);
  switch (err.code) {
    case 'NO_INVOCATION':
    case 'REFUSED':
      return refusal('execFile', args, err.message);
    case 'DENIED':
      return new GitQueryError('ERR_CWX_GIT_DENIED', cmd, `\`${cmd}\` was denied: ${err.message}`);
    case 'CANCELLED':
      return new GitQueryError(null, cmd, `Command failed: ${cmd}\n${err.message}`, true);
  }
  // the agent ran the query and git failed: a non-zero exit, the agent's message as stderr
  const e = new GitQueryError(1, cmd, `Command failed: ${cmd}\n${err.message}`);
  e.stderr = err.message;
  return e;
}

interface Options {
  encoding: string | null;
  maxBuffer: number;
  timeout: number;
  signal: AbortSignal | undefined;
}

function options(v: unknown): Options {
  const o = typeof v === 'object' && v !== null ? v : {};
  const encoding: unknown = Reflect.get(o, 'encoding');
  const maxBuffer: unknown = Reflect.get(o, 'maxBuffer');
  const timeout: unknown = Reflect.get(o, 'timeout');
  const signal: unknown = Reflect.get(o, 'signal');
  if (signal !== undefined && !(signal instanceof AbortSignal)) throw new TypeError('execFile: options.signal must be an AbortSignal');
  return {
    encoding: encoding === undefined ? 'utf8' : typeof encoding === 'string' ? encoding : null,
    maxBuffer: typeof maxBuffer === 'number' && maxBuffer >= 0 ? maxBuffer : MAX_BUFFER,
    timeout: typeof timeout === 'number' && timeout > 0 ? timeout : 0,
    signal,
  };
}

/** output is text in the encoding execFile would give: a string, or a Buffer for 'buffer' or an unknown one. */
function output(text: string, encoding: string | null): string | Buffer {
  const b = Buffer.from(text, 'utf8');
  if (encoding === null || encoding === 'buffer' || !Buffer.isEncoding(encoding)) return b;
  return b.toString(encoding);
}

/** GitQueryProcess stands for the child execFile returns: nothing runs, kill cancels the query. */
class GitQueryProcess extends EventEmitter {
  readonly pid = undefined;
  readonly stdin = null;
  readonly stdout = null;
  readonly stderr = null;
  readonly spawnfile = 'git';
  readonly spawnargs: readonly string[];
  exitCode: number | null = null;
  killed = false;
  readonly #stop: AbortController;
  constructor(args: readonly string[], stop: AbortController) {
    super();
    this.spawnargs = Object.freeze(['git', ...args]);
    this.#stop = stop;
  }
  kill(): boolean {
    if (this.exitCode !== null || this.#stop.signal.aborted) return false;
    this.killed = true;
    this.#stop.abort();
    return true;
  }
}

interface Outcome {
  stdout: string | Buffer;
  stderr: string | Buffer;
}

/** query asks the core for `git <args>` and settles as execFile does. */
async function query(args: readonly string[], o: Options, stop: AbortController): Promise<Outcome> {
  const cmd = cmdLine(args);
  const sub = subcommand(args);
  if (sub === undefined || !SUBCOMMANDS.has(sub)) throw refusal('execFile', args);
  const signals = [stop.signal];
  if (o.signal !== undefined) signals.push(o.signal);
  if (o.timeout > 0) signals.push(AbortSignal.timeout(o.timeout));
  const signal = AbortSignal.any(signals);
  let r: ToolResult;
  try {
    r = await invocationCall("execFile('git', …)", 'git_review_scope', { args: [...args] }, signal);
  } catch (err) {
    if (o.signal?.aborted === true) {
      throw Object.assign(new Error('The operation was aborted', { cause: o.signal.reason }), { name: 'AbortError', code: 'ABORT_ERR' });
    }
    if (signal.aborted) throw new GitQueryError(null, cmd, `Command failed: ${cmd}\n`, true);
    throw fromService(args, err);
  }
  const text = shaped(args, r.content.filter((b) => b.type === 'text').map((b) => b.text ?? '').join(''));
  const cut = isPlainObject(r.structured) && r.structured.cut === true;
  if (cut || Buffer.byteLength(text, 'utf8') > o.maxBuffer) {
    const e = new GitQueryError('ERR_CHILD_PROCESS_STDIO_MAXBUFFER', cmd, cut ? 'stdout maxBuffer length exceeded (cwx cuts a git query at 256 KiB)' : 'stdout maxBuffer length exceeded');
    e.stdout = output(text, o.encoding);
    e.stderr = output('', o.encoding);
    throw e;
  }
  return { stdout: output(text, o.encoding), stderr: output('', o.encoding) };
}

/**
 * shaped gives the output the plugin's arguments ask for where the core's fixed query differs:
 * the core lists changed files as `--name-status`, so for `--name-only` each line keeps its
 * last field (the path, or a rename's new path).
 */
function shaped(args: readonly string[], text: string): string {
  if (subcommand(args) !== 'diff' || !args.includes('--name-only')) return text;
  return text.split('\n').map((line) => line.slice(line.lastIndexOf('\t') + 1)).join('\n');
}

/** normalized is execFile's (args?, options?, callback?) tail. */
function normalized(rest: unknown[]): { args: string[]; opts: unknown; callback: Fn | undefined } {
  const tail = [...rest];
  const last = tail[tail.length - 1];
  const callback = fn(last);
  if (callback !== undefined) tail.pop();
  let args: string[] = [];
  if (Array.isArray(tail[0]) || tail[0] === undefined || tail[0] === null) {
    const a: unknown = tail.shift();
    if (Array.isArray(a)) args = a.map(String);
  }
  return { args, opts: tail[0], callback };
}

/** start runs one query and hands its process stand-in and its settling promise. */
function start(args: readonly string[], opts: unknown): { child: GitQueryProcess; done: Promise<Outcome> } {
  const stop = new AbortController();
  const child = new GitQueryProcess(args, stop);
  let o: Options;
  try {
    o = options(opts);
  } catch (err) {
    return { child, done: Promise.reject(err) };
  }
  const done = query(args, o, stop);
  const exit = (code: number | null) => {
    child.exitCode = code;
    child.emit('exit', code, child.killed ? 'SIGTERM' : null);
  };
  done.then(() => exit(0), (err: unknown) => exit(err instanceof GitQueryError && typeof err.code === 'number' ? err.code : null));
  return { child, done };
}

type Fn = (...a: unknown[]) => unknown;

function fn(v: unknown): Fn | undefined {
  return typeof v === 'function' ? (...a: unknown[]): unknown => Reflect.apply(v, undefined, a) : undefined;
}

/** execFileFor is the execFile a plugin gets: git through the core, anything else real's. */
function execFileFor(real: Fn, realPromisified: Fn): Fn {
  const execFile = function execFile(this: unknown, file: unknown, ...rest: unknown[]): unknown {
    if (!isGit(file)) return real(file, ...rest);
    const { args, opts, callback } = normalized(rest);
    const { child, done } = start(args, opts);
    done.then(
      (r) => { callback?.(null, r.stdout, r.stderr); child.emit('close', 0, null); },
      (err: unknown) => {
        const e: unknown = err;
        const stdout = err instanceof GitQueryError ? err.stdout : '';
        const stderr = err instanceof GitQueryError ? err.stderr : '';
        callback?.(e, stdout, stderr);
        child.emit('close', child.exitCode, child.killed ? 'SIGTERM' : null);
      });
    return child;
  };
  const custom = function execFile(file: unknown, ...rest: unknown[]): unknown {
    if (!isGit(file)) return realPromisified(file, ...rest);
    const { args, opts } = normalized(rest);
    const { child, done } = start(args, opts);
    return Object.assign(done.then((r) => ({ stdout: r.stdout, stderr: r.stderr })), { child });
  };
  Object.defineProperty(execFile, promisify.custom, { value: custom, enumerable: false, writable: false, configurable: true });
  return execFile;
}

/** refusingFor is a function of child_process that refuses git by name and runs anything else. */
function refusingFor(how: string, real: Fn, program: (first: unknown, second: unknown) => { git: boolean; args: string[] }): Fn {
  const named = {
    [how](...a: unknown[]): unknown {
      const p = program(a[0], a[1]);
      if (p.git) throw refusal(how, p.args);
      return real(...a);
    },
  };
  return named[how] ?? real;
}

const byFile = (first: unknown, second: unknown) => ({ git: isGit(first), args: Array.isArray(second) ? second.map(String) : [] });
const byCommand = (first: unknown) => {
  const words = typeof first === 'string' ? first.trim().split(/\s+/) : [];
  return { git: isGit(words[0]), args: words.slice(1) };
};

let installed = false;

/** replacements is child_process's execFile and the functions that refuse git, over cp's own. */
function replacements(cp: object): Record<string, unknown> {
  const get = (k: string): Fn | undefined => fn(Reflect.get(cp, k));
  const replaced: Record<string, unknown> = {};
  const execFile = get('execFile');
  const realExecFile: unknown = Reflect.get(cp, 'execFile');
  const customReal: unknown = typeof realExecFile === 'function' ? Reflect.get(realExecFile, promisify.custom) : undefined;
  if (execFile !== undefined) replaced.execFile = execFileFor(execFile, fn(customReal) ?? promisified(execFile));
  for (const [k, program] of [['execFileSync', byFile], ['spawn', byFile], ['spawnSync', byFile], ['exec', byCommand], ['execSync', byCommand]] as const) {
    const real = get(k);
    if (real !== undefined) replaced[k] = refusingFor(k, real, program);
  }
  return replaced;
}

/** promisified is execFile's promise form where the runtime has no util.promisify.custom of its own. */
function promisified(execFile: Fn): Fn {
  return (...a: unknown[]) => new Promise((resolve, reject) => {
    execFile(...a, (err: unknown, stdout: unknown, stderr: unknown) => {
      if (err) reject(Object.assign(Object(err), { stdout, stderr }));
      else resolve({ stdout, stderr });
    });
  });
}

const realChildProcess = (): object => {
  const cp: unknown = require('node:child_process');
  if (typeof cp !== 'object' || cp === null) throw new Error('node:child_process is not a module here');
  return cp;
};

/**
 * installGitScope makes child_process's execFile of git the agent's for the plugins of this
 * host, once; on Node nothing is loaded until a plugin first asks for child_process.
 */
export function installGitScope(): void {
  if (installed) return;
  installed = true;
  if (globalThis.Bun !== undefined) {
    const cp = realChildProcess();
    replaceInPlace(cp, replacements(cp));
  } else {
    serveOnNode();
  }
}

/**
 * replaceInPlace (Bun) replaces the builtin's exports before any plugin's first import: Bun's
 * resolver never asks a plugin about a builtin id, and it snapshots the ESM namespace then.
 */
function replaceInPlace(cp: object, replaced: Readonly<Record<string, unknown>>): void {
  for (const [k, v] of Object.entries(replaced)) {
    try {
      Object.defineProperty(cp, k, { value: v, writable: true, configurable: true, enumerable: true });
    } catch {
      // a key the runtime will not let go of keeps its function; the sandbox still contains it
    }
  }
}

const REGISTRY_KEY = Symbol.for('cwx.host.child-process');
const CP_URL = 'cwx-host-child-process:';
const IDENT = /^[A-Za-z_$][\w$]*$/;

/**
 * serveOnNode (Node) serves plugin code a module of its own for `child_process` and
 * `node:child_process` (import and require, through module.registerHooks, and
 * process.getBuiltinModule): the real exports with the replaced functions. Node's own
 * child_process stays as it is.
 */
function serveOnNode(): void {
  // the real module, past the hooks below (a require from here would be served this one)
  const original: unknown = Reflect.get(process, 'getBuiltinModule');
  if (typeof original !== 'function') throw new Error('this Node has no process.getBuiltinModule (Node ^22.19.0 || >=24 is required)');
  const real = (): object => {
    const cp: unknown = Reflect.apply(original, process, ['node:child_process']);
    if (typeof cp !== 'object' || cp === null) throw new Error('node:child_process is not a module here');
    return cp;
  };
  let exports: Readonly<Record<string, unknown>> | undefined;
  let source = '';
  // built at the first ask, so a host whose plugins never use child_process never loads it
  const served = (): Readonly<Record<string, unknown>> => {
    if (exports !== undefined) return exports;
    const cp = real();
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(cp)) out[k] = Reflect.get(cp, k);
    Object.assign(out, replacements(cp));
    exports = Object.freeze(out);
    Object.defineProperty(globalThis, REGISTRY_KEY, { value: exports, enumerable: false, writable: false, configurable: false });
    const lines = [`const m = globalThis[Symbol.for('cwx.host.child-process')];`];
    for (const k of Object.keys(exports)) if (IDENT.test(k) && k !== 'default') lines.push(`export const ${k} = m[${JSON.stringify(k)}];`);
    lines.push('export default m;');
    source = lines.join('\n');
    return exports;
  };
  const ours = (specifier: unknown) => specifier === 'child_process' || specifier === 'node:child_process';
  const registerHooks: typeof nodeModule.registerHooks | undefined = nodeModule.registerHooks;
  if (typeof registerHooks !== 'function') throw new Error('this Node has no module.registerHooks (Node ^22.19.0 || >=24 is required)');
  registerHooks({
    resolve(specifier, context, next) {
      return ours(specifier) ? { url: CP_URL, format: 'module', shortCircuit: true } : next(specifier, context);
    },
    load(url, context, next) {
      if (url !== CP_URL) return next(url, context);
      served();
      return { format: 'module', source, shortCircuit: true };
    },
  });
  const getBuiltinModule = function getBuiltinModule(specifier: unknown): unknown {
    return ours(specifier) ? served() : Reflect.apply(original, process, [specifier]);
  };
  Object.defineProperty(process, 'getBuiltinModule', { value: getBuiltinModule, writable: true, configurable: true, enumerable: true });
}
