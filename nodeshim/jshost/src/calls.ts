// tool/call and command/run: look up the live handle, run the plugin's function inside its
// owner's async context with a frozen invocation object, race it against cancellation and turn
// the outcome into the wire result.
import { ErrorCode, type CommandResult, type CommandRunParams, type ContentBlock, type ToolCallParams, type ToolResult } from './protocol.generated.ts';
import { RpcError, cut, describeError, type RpcPeer } from './rpc.ts';
import { makeCore, type CoreApi } from './shims/core.ts';
import { withQuestions } from './shims/questions.ts';
import { withAgent } from './shims/agent.ts';
import { withTicket } from './net/fetch.ts';
import { ownedSignal, runOwned } from './run-owned.ts';
import type { Registration } from './owner.ts';
import type { Registrar } from './shims/registrar.ts';
import { isPlainObject } from './validate.ts';
import { toBlock } from './content.ts';
import { pluginRoot, topFrame } from './where.ts';

const MAX_ERROR = 4096;

/** CallContext is what a tool's execution and a command's invocation both carry from the call. */
export interface CallContext {
  workspace?: string;
  sessionId?: string;
  agentId?: string;
  originTurnId?: string;
  dataDir?: string;
}

/** ToolExecution is the frozen second argument of a tool's `execute`. */
export interface ToolExecution extends CallContext {
  signal: AbortSignal;
  callId: string;
  args: unknown;
  arguments: unknown;
  /** core is present only when the call carried a ticket (`exec.core.call`). */
  core?: Readonly<CoreApi>;
}

/** CommandInvocation is the frozen argument of a command's `handler`. */
export interface CommandInvocation extends CallContext {
  commandId: string;
  rawInput: string;
  args: string;
  attachments: readonly never[];
  signal: AbortSignal;
}

function live(registrar: Registrar, handle: number, kind: 'tool' | 'command'): Registration {
  const reg = registrar.handles.get(handle);
  if (!reg || reg.kind !== kind || reg.undone || (reg.owner.state !== 'active' && reg.owner.state !== 'activating')) {
    throw new RpcError(ErrorCode.NotAvailable, `${kind} handle ${handle} is not live`);
  }
  return reg;
}

/** callContext copies the call's optional fields, then the owner's data directory, in that order. */
function callContext(params: ToolCallParams | CommandRunParams, reg: Registration): CallContext {
  const out: CallContext = {};
  if (params.workspace !== undefined) out.workspace = params.workspace;
  if (params.session_id !== undefined) out.sessionId = params.session_id;
  if (params.agent_id !== undefined) out.agentId = params.agent_id;
  if (params.origin_turn_id !== undefined) out.originTurnId = params.origin_turn_id;
  if (reg.owner.dataDir !== undefined) out.dataDir = reg.owner.dataDir;
  return out;
}

/** invoke calls the function a plugin's definition holds under key, with the definition as this. */
function invoke(def: Registration['def'], key: string, args: unknown[]): unknown {
  const fn = def[key];
  if (typeof fn !== 'function') throw new TypeError(`${key} is not a function`);
  return Reflect.apply(fn, def, args);
}

export async function callTool(registrar: Registrar, params: ToolCallParams, signal: AbortSignal, rpc?: RpcPeer): Promise<ToolResult> {
  const reg = live(registrar, params.handle, 'tool');
  const def = reg.def;
  const input = params.input;
  const exec: ToolExecution = { signal: ownedSignal(reg.owner, signal), callId: params.call_id, args: input, arguments: input, ...callContext(params, reg) };
  if (params.ticket !== undefined && rpc !== undefined) exec.core = makeCore(rpc, reg.owner.ref, params.ticket, signal);
  Object.freeze(exec);
  let value: unknown;
  try {
    const ids = { agentId: params.agent_id, sessionId: params.session_id };
    value = await runOwned(reg, signal, () =>
      withQuestions(rpc, reg.owner, params.ticket, signal, () => withTicket(reg.owner, params.ticket, () =>
        withAgent(rpc, reg.owner, params.ticket, ids, signal, () => invoke(def, 'execute', [input, exec])))));
  } catch (err) {
    if (err instanceof RpcError && err.code === ErrorCode.Cancelled) throw err;
    throw new RpcError(ErrorCode.ExecutionFailed, cut(describeError(err) + atFrame(err, reg), MAX_ERROR));
  }
  const bad = hasRender(def.output) ? undefined : notJson(value);
  if (bad !== undefined) throw new RpcError(ErrorCode.ExecutionFailed, `execute returned ${bad}; return a string, or a value JSON can carry`);
  const result: ToolResult = { content: render(def, input, value), is_error: false };
  // a string is its own text: sent once, in content (core/protocol doc.go, “Methods”)
  if (value !== undefined && typeof value !== 'string' && isPlainJson(value, 0)) result.structured = value;
  return result;
}

/** atFrame is " (at file:line:col)", the plugin's top frame of a throw, or "". */
function atFrame(err: unknown, reg: Registration): string {
  const at = topFrame(err, pluginRoot(reg.entry));
  return at === undefined ? '' : ` (at ${at})`;
}

/** hasRender reports whether a tool's output says how to render its value. */
function hasRender(output: unknown): output is { render: (...args: unknown[]) => unknown } {
  return typeof output === 'object' && output !== null && 'render' in output && typeof output.render === 'function';
}

/**
 * notJson names what in a tool's return value JSON cannot carry: a function or a symbol in
 * place of the value, or anywhere in its plain data a BigInt, a number JSON has not (NaN,
 * Infinity: JSON.stringify makes it null), a Map or a Set (made {}) or undefined in an array
 * (made null). Other values keep their rendering (JSON.stringify, or String for what it skips).
 */
function notJson(v: unknown): string | undefined {
  if (typeof v === 'function') return 'a function';
  if (typeof v === 'symbol') return 'a symbol';
  const found = unjsonAt(v, '', 0, false);
  if (found === undefined) return undefined;
  const at = found.path === '' ? '' : ` at \`${found.path}\``;
  return `${found.what}${at}, which JSON cannot carry (${found.fix})`;
}

interface Unjson { what: string; fix: string; path: string }

function unjsonAt(v: unknown, path: string, depth: number, inArray: boolean): Unjson | undefined {
  if (typeof v === 'bigint') return { what: 'a BigInt', fix: 'convert it to a string or a number', path };
  if (typeof v === 'number' && !Number.isFinite(v)) return { what: String(v), fix: 'JSON would make it null; return null or a string', path };
  if (v === undefined && inArray) return { what: 'undefined', fix: 'JSON would make it null; use null', path };
  if (depth > 64 || typeof v !== 'object' || v === null) return undefined;
  if (v instanceof Map) return { what: 'a Map', fix: 'JSON would make it {}; convert it with Object.fromEntries', path };
  if (v instanceof Set) return { what: 'a Set', fix: 'JSON would make it {}; convert it with Array.from', path };
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) {
      const p = unjsonAt(v[i], `${path}[${i}]`, depth + 1, true);
      if (p !== undefined) return p;
    }
    return undefined;
  }
  if (!isPlainObject(v)) return undefined;
  for (const [k, x] of Object.entries(v)) {
    const p = unjsonAt(x, path === '' ? k : `${path}.${k}`, depth + 1, false);
    if (p !== undefined) return p;
  }
  return undefined;
}

function render(def: Registration['def'], args: unknown, value: unknown): ContentBlock[] {
  const output = def.output;
  if (hasRender(output)) {
    let blocks: unknown;
    try {
      blocks = Reflect.apply(output.render, output, [args, value]);
    } catch (err) {
      throw new RpcError(ErrorCode.ExecutionFailed, cut(`render failed: ${describeError(err)}`, MAX_ERROR));
    }
    if (Array.isArray(blocks)) return blocks.map((b, i) => toBlock(b, i));
  }
  const text = typeof value === 'string' ? value : value === undefined ? '' : (JSON.stringify(value) ?? String(value));
  return [{ type: 'text', text }];
}

/** isPlainJson: finite numbers, strings, booleans, null, plain arrays and objects, depth ≤ 64. */
export function isPlainJson(v: unknown, depth: number): boolean {
  if (depth > 64) return false;
  if (v === null || typeof v === 'string' || typeof v === 'boolean') return true;
  if (typeof v === 'number') return Number.isFinite(v);
  if (Array.isArray(v)) return Object.getPrototypeOf(v) === Array.prototype && v.every((x) => isPlainJson(x, depth + 1));
  if (typeof v !== 'object') return false;
  const proto = Object.getPrototypeOf(v);
  if (proto !== Object.prototype && proto !== null) return false;
  return Object.values(v).every((x) => isPlainJson(x, depth + 1));
}

export async function runCommand(registrar: Registrar, params: CommandRunParams, signal: AbortSignal, rpc?: RpcPeer): Promise<CommandResult> {
  const reg = live(registrar, params.handle, 'command');
  const def = reg.def;
  const raw = params.raw_input;
  const invocation: CommandInvocation = {
    commandId: params.command_id,
    rawInput: raw === '' ? '' : ` ${raw}`,
    args: raw,
    attachments: Object.freeze([]),
    signal: ownedSignal(reg.owner, signal),
    ...callContext(params, reg),
  };
  Object.freeze(invocation);
  let value: unknown;
  try {
    value = await runOwned(reg, signal, () =>
      withQuestions(rpc, reg.owner, params.ticket, signal, () => withTicket(reg.owner, params.ticket, () => invoke(def, 'handler', [invocation]))));
  } catch (err) {
    if (err instanceof RpcError && err.code === ErrorCode.Cancelled) throw err;
    // a throw is not an answer: said as such, apart from a deliberate { kind: 'error' }
    return { kind: 'error', text: cut(`handler threw: ${describeError(err)}${atFrame(err, reg)}`, MAX_ERROR) };
  }
  return commandResult(value);
}

function commandResult(v: unknown): CommandResult {
  if (v === undefined || v === null) return { kind: 'success' };
  if (typeof v === 'string') return { kind: 'success', text: v };
  if (!isPlainObject(v)) return { kind: 'error', text: 'command returned a value that is neither a string nor a result' };
  const text = typeof v.text === 'string' ? v.text : undefined;
  switch (v.kind) {
    case 'success':
      return text === undefined ? { kind: 'success' } : { kind: 'success', text };
    case 'error':
      return { kind: 'error', text: text && text !== '' ? text : 'command failed' };
    case 'submit':
      if (typeof v.prompt !== 'string' || v.prompt === '') return { kind: 'error', text: 'command returned submit without a prompt' };
      return text === undefined ? { kind: 'submit', prompt: v.prompt } : { kind: 'submit', prompt: v.prompt, text };
    default:
      return { kind: 'error', text: `command returned an unknown result kind ${JSON.stringify(v.kind)}` };
  }
}
