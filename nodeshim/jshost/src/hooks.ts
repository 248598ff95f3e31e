// Pre-execute hooks: `ctx.on('tools/pre-execute', (exec, next) => …)` registers a `hook` with the
// core (an effect of the calling fiber, withdrawn with it), and hook/evaluate runs the listener in
// its owner's context with a frozen `exec` (`name`, `arguments`, `callId`, `signal`, `workspace`).
// The listener returns nothing or next()'s value to abstain, or one verdict object: {deny: reason},
// {ask: reason}, {annotate: text}, {revise: arguments}. DSH's {allow} abstains, and is logged once
// per owner: a hook never approves. Anything else is refused, which the core counts as a deny
// (ARCHITECTURE.md, “Pre-execute hooks”).
import { ownerOf, type Context } from './cordis-adapter.ts';
import { ErrorCode, type HookEvaluateParams, type HookVerdict } from './protocol.generated.ts';
import { RpcError, cut, describeError } from './rpc.ts';
import { ownedSignal, runOwned } from './run-owned.ts';
import type { OwnerRecord } from './owner.ts';
import type { Registrar } from './shims/registrar.ts';
import { isPlainObject } from './validate.ts';

/** HOOK_EVENT is the one event a hook is registered for. */
export const HOOK_EVENT = 'tools/pre-execute';

const MAX_ERROR = 4096;

/** PreExecute is the frozen first argument of a pre-execute listener. */
export interface PreExecute {
  readonly name: string;
  readonly arguments: unknown;
  readonly callId: string;
  readonly signal: AbortSignal;
  readonly workspace: string;
}

type Listener = (exec: PreExecute, next: () => undefined) => unknown;

/** registerHook registers listener as a hook of ctx's owner and returns its disposer. */
export function registerHook(registrar: Registrar, ctx: Context, listener: Listener): () => unknown {
  if (typeof listener !== 'function') throw new TypeError(`ctx.on('${HOOK_EVENT}'): the listener is not a function`);
  const owner = ownerOf(ctx);
  if (!owner) throw new Error(`ctx.on('${HOOK_EVENT}'): only a plugin may register a hook`);
  const dispose = registrar.add(ctx, 'hook', HOOK_EVENT, { name: HOOK_EVENT, description: '' }, Object.freeze({ listener }), lastHook.get(owner));
  const reg = owner.history.at(-1);
  if (reg?.kind === 'hook') lastHook.set(owner, reg.admitted);
  return dispose;
}

/** lastHook is each owner's latest hook registration, which the next one waits for. */
const lastHook = new WeakMap<OwnerRecord, Promise<void>>();

/** allowLogged holds the owners already told that `allow` abstains. */
const allowLogged = new WeakSet<OwnerRecord>();

export type HookLog = (msg: string, owner: OwnerRecord) => void;

/** evaluateHook answers hook/evaluate for one live hook of this host. */
export async function evaluateHook(registrar: Registrar, params: HookEvaluateParams, signal: AbortSignal, log: HookLog): Promise<HookVerdict> {
  const reg = registrar.handles.get(params.handle);
  if (!reg || reg.kind !== 'hook' || reg.undone || reg.owner.state !== 'active') {
    throw new RpcError(ErrorCode.NotAvailable, `hook handle ${params.handle} is not live`);
  }
  const p = params.payload;
  const exec: PreExecute = Object.freeze({ name: p.name, arguments: deepFrozenCopy(p.input), callId: p.call_id, signal: ownedSignal(reg.owner, signal), workspace: p.workspace });
  const listener = reg.def.listener;
  let value: unknown;
  try {
    if (typeof listener !== 'function') throw new TypeError('the listener is not a function');
    value = await runOwned(reg, signal, () => Reflect.apply(listener, undefined, [exec, () => undefined]));
  } catch (err) {
    if (err instanceof RpcError && err.code === ErrorCode.Cancelled) throw err;
    throw new RpcError(ErrorCode.ExecutionFailed, cut(`the listener threw: ${describeError(err)}`, MAX_ERROR));
  }
  return verdictOf(value, reg.owner, log);
}

/** verdictOf turns a listener's return value into a verdict, or throws for one it does not support. */
function verdictOf(v: unknown, owner: OwnerRecord, log: HookLog): HookVerdict {
  if (v === undefined || v === null) return { kind: 'abstain' };
  const keys = isPlainObject(v) ? Object.keys(v) : [];
  const [key] = keys;
  if (keys.length !== 1 || key === undefined || !isPlainObject(v)) throw unsupported(v);
  const arg = v[key];
  switch (key) {
    case 'allow':
      if (!allowLogged.has(owner)) {
        allowLogged.add(owner);
        log(`pre-execute hook of plugin ${owner.ref.plugin_id} answered allow: cwx treats it as abstain (a hook never approves a call)`, owner);
      }
      return { kind: 'abstain' };
    case 'deny':
    case 'ask':
      if (typeof arg !== 'string') throw unsupported(v);
      return { kind: key, reason: arg };
    case 'annotate':
      if (typeof arg !== 'string') throw unsupported(v);
      return { kind: 'annotate', text: arg };
    case 'revise': {
      // the copy of a plain object is a plain object unless a toJSON in it answered otherwise
      const input: unknown = isPlainObject(arg) ? JSON.parse(JSON.stringify(arg)) : undefined;
      if (!isPlainObject(input)) throw new RpcError(ErrorCode.ExecutionFailed, 'revise needs the arguments as a plain object');
      return { kind: 'revise', input };
    }
  }
  throw unsupported(v);
}

function unsupported(v: unknown): RpcError {
  let shown: string;
  try {
    shown = JSON.stringify(v) ?? String(v);
  } catch {
    shown = Object.prototype.toString.call(v);
  }
  return new RpcError(ErrorCode.ExecutionFailed, cut(`the listener returned an unsupported answer ${shown}; return nothing, next(), {deny}, {ask}, {annotate} or {revise}`, MAX_ERROR));
}

/** deepFrozenCopy gives the listener its own frozen copy of the call's arguments. */
function deepFrozenCopy(v: unknown): unknown {
  const copy: unknown = v === undefined ? undefined : JSON.parse(JSON.stringify(v));
  const freeze = (x: unknown): void => {
    if (typeof x === 'object' && x !== null) {
      Object.freeze(x);
      for (const y of Object.values(x)) freeze(y);
    }
  };
  freeze(copy);
  return copy;
}
