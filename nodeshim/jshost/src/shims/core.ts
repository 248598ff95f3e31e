// `exec.core`: a tool asks the core to run one of the core's own tools (`core/call`). It exists
// only on an execution whose tool/call carried a ticket. The ticket lives in this closure and
// nowhere else: it is not a property of `exec` or of `exec.core`, so JSON.stringify(exec), a
// stack trace or a debugger's object view never shows it. The core gates every call exactly as
// it gates a model's (ARCHITECTURE.md, “Approval”); what this side refuses itself (a bad name,
// input that is not plain JSON) never reaches the core.
import { ErrorCode, type ContentBlock, type OwnerRef } from '../protocol.generated.ts';
import { RpcError, type RpcPeer } from '../rpc.ts';
import { isPlainObject } from '../validate.ts';

/** CoreCallCode is why a core call did not resolve. */
export type CoreCallCode = 'refused' | 'denied' | 'cancelled' | 'unavailable' | 'failed';

/** CoreCallError is the rejection of `exec.core.call`. */
export class CoreCallError extends Error {
  override name = 'CoreCallError';
  readonly code: CoreCallCode;
  constructor(code: CoreCallCode, message: string) {
    super(message);
    this.code = code;
  }
}
Object.freeze(CoreCallError.prototype);

/** CoreCallResult is what a core tool answered. */
export interface CoreCallResult {
  content: ContentBlock[];
  isError: boolean;
  structured?: unknown;
}

export interface CoreCallOptions {
  signal?: AbortSignal;
}

export interface CoreApi {
  call(name: unknown, input?: unknown, options?: CoreCallOptions): Promise<CoreCallResult>;
}

const NAME = /^[A-Za-z][A-Za-z0-9_-]{0,63}$/;

/** makeCore returns the frozen `exec.core` of one execution. */
export function makeCore(rpc: RpcPeer, owner: OwnerRef, ticket: string, toolSignal: AbortSignal): Readonly<CoreApi> {
  const call = async (name: unknown, input?: unknown, options?: CoreCallOptions): Promise<CoreCallResult> => {
    if (typeof name !== 'string' || !NAME.test(name)) {
      throw new CoreCallError('refused', `core.call: ${JSON.stringify(String(name)).slice(0, 80)} is not a tool name`);
    }
    const args = input === undefined ? {} : input;
    if (!isPlainObject(args) || !plainJson(args, 0)) {
      throw new CoreCallError('refused', 'core.call: the input must be a plain JSON object');
    }
    const signal = combine(toolSignal, options?.signal);
    try {
      const r = await rpc.request('core/call', { owner, ticket, name, input: args }, signal);
      const out: CoreCallResult = { content: r.content.map((b) => ({ ...b })), isError: r.is_error };
      if (r.structured !== undefined) out.structured = r.structured;
      return out;
    } catch (err) {
      throw toCoreCallError(name, err);
    }
  };
  return Object.freeze({ call });
}

function combine(a: AbortSignal, b: AbortSignal | undefined): AbortSignal {
  if (b === undefined) return a;
  if (!(b instanceof AbortSignal)) throw new CoreCallError('refused', 'core.call: options.signal must be an AbortSignal');
  return AbortSignal.any([a, b]);
}

function toCoreCallError(name: string, err: unknown): CoreCallError {
  if (!(err instanceof RpcError)) return new CoreCallError('failed', `core.call ${name}: ${String(err)}`);
  const code: CoreCallCode = (() => {
    switch (err.code) {
      case ErrorCode.Refused:
      case ErrorCode.InvalidParams:
        return 'refused';
      case ErrorCode.Denied:
        return 'denied';
      case ErrorCode.Cancelled:
        return 'cancelled';
      case ErrorCode.NotAvailable:
        return 'unavailable';
      default:
        return 'failed';
    }
  })();
  return new CoreCallError(code, `core.call ${name}: ${err.message}`);
}

/** plainJson: what JSON.stringify round-trips unchanged (finite numbers, plain objects, depth ≤ 64). */
function plainJson(v: unknown, depth: number): boolean {
  if (depth > 64) return false;
  if (v === null || typeof v === 'string' || typeof v === 'boolean') return true;
  if (typeof v === 'number') return Number.isFinite(v);
  if (Array.isArray(v)) return Object.getPrototypeOf(v) === Array.prototype && v.every((x) => plainJson(x, depth + 1));
  if (typeof v !== 'object') return false;
  const proto = Object.getPrototypeOf(v);
  if (proto !== Object.prototype && proto !== null) return false;
  return Object.values(v).every((x) => plainJson(x, depth + 1));
}
