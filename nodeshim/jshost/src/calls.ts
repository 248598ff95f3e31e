// tool/call and command/run: look up the live handle, run the plugin's function inside its
// owner's async context with a frozen invocation object, race it against cancellation and turn
// the outcome into the wire result.
import { ErrorCode } from './protocol.generated.ts';
import { RpcError, cut, describeError } from './rpc.ts';
import { ownerContext, type Registration } from './owner.ts';
import type { Registrar } from './shims/registrar.ts';
import { isPlainObject } from './validate.ts';

const MAX_ERROR = 4096;

function live(registrar: Registrar, handle: number, kind: 'tool' | 'command'): Registration {
  const reg = registrar.handles.get(handle);
  if (!reg || reg.kind !== kind || reg.undone || (reg.owner.state !== 'active' && reg.owner.state !== 'activating')) {
    throw new RpcError(ErrorCode.NotAvailable, `${kind} handle ${handle} is not live`);
  }
  return reg;
}

function optional(params: Record<string, unknown>, out: Record<string, unknown>): void {
  const map: [string, string][] = [['workspace', 'workspace'], ['session_id', 'sessionId'], ['agent_id', 'agentId'], ['origin_turn_id', 'originTurnId']];
  for (const [wire, js] of map) if (typeof params[wire] === 'string') out[js] = params[wire];
}

/** runOwned calls fn inside the owner's context and races it against the signal. */
function runOwned<T>(reg: Registration, signal: AbortSignal, fn: () => T): Promise<Awaited<T>> {
  return new Promise((resolve, reject) => {
    const cancelled = () => reject(new RpcError(ErrorCode.Cancelled, 'cancelled'));
    if (signal.aborted) return cancelled();
    signal.addEventListener('abort', cancelled, { once: true });
    let p: Promise<Awaited<T>>;
    try {
      p = Promise.resolve(ownerContext.run(reg.owner, fn)) as Promise<Awaited<T>>;
    } catch (err) {
      p = Promise.reject(err);
    }
    p.then(resolve, reject).finally(() => signal.removeEventListener('abort', cancelled));
  });
}

export async function callTool(registrar: Registrar, params: Record<string, unknown>, signal: AbortSignal): Promise<unknown> {
  const reg = live(registrar, params.handle as number, 'tool');
  const def = reg.def;
  const input = params.input;
  const exec: Record<string, unknown> = { signal, callId: params.call_id, args: input, arguments: input };
  optional(params, exec);
  if (reg.owner.dataDir !== undefined) exec.dataDir = reg.owner.dataDir;
  Object.freeze(exec);
  let value: unknown;
  try {
    value = await runOwned(reg, signal, () => (def.execute as (a: unknown, e: unknown) => unknown).call(def, input, exec));
  } catch (err) {
    if (err instanceof RpcError && err.code === ErrorCode.Cancelled) throw err;
    throw new RpcError(ErrorCode.ExecutionFailed, cut(describeError(err), MAX_ERROR));
  }
  const result: Record<string, unknown> = { content: render(def, input, value), is_error: false };
  if (value !== undefined && isPlainJson(value, 0)) result.structured = value;
  return result;
}

function render(def: Record<string, unknown>, args: unknown, value: unknown): { type: 'text'; text: string }[] {
  const output = def.output as { render?: (a: unknown, v: unknown) => unknown } | undefined;
  if (output && typeof output.render === 'function') {
    let blocks: unknown;
    try {
      blocks = output.render(args, value);
    } catch (err) {
      throw new RpcError(ErrorCode.ExecutionFailed, cut(`render failed: ${describeError(err)}`, MAX_ERROR));
    }
    if (Array.isArray(blocks)) {
      return blocks
        .filter((b): b is { type: 'text'; text: string } => isPlainObject(b) && b.type === 'text' && typeof b.text === 'string')
        .map((b) => ({ type: 'text', text: b.text }));
    }
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
  return Object.values(v as object).every((x) => isPlainJson(x, depth + 1));
}

export async function runCommand(registrar: Registrar, params: Record<string, unknown>, signal: AbortSignal): Promise<unknown> {
  const reg = live(registrar, params.handle as number, 'command');
  const def = reg.def;
  const raw = params.raw_input as string;
  const invocation: Record<string, unknown> = {
    commandId: params.command_id,
    rawInput: raw === '' ? '' : ` ${raw}`,
    args: raw,
    attachments: Object.freeze([]),
    signal,
  };
  optional(params, invocation);
  if (reg.owner.dataDir !== undefined) invocation.dataDir = reg.owner.dataDir;
  Object.freeze(invocation);
  let value: unknown;
  try {
    value = await runOwned(reg, signal, () => (def.handler as (i: unknown) => unknown).call(def, invocation));
  } catch (err) {
    if (err instanceof RpcError && err.code === ErrorCode.Cancelled) throw err;
    const text = err instanceof Error ? err.message || err.name : String(err);
    return { kind: 'error', text: cut(text || 'command failed', MAX_ERROR) };
  }
  return commandResult(value);
}

function commandResult(v: unknown): Record<string, unknown> {
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
