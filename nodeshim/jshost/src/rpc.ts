// One JSON-RPC 2.0 peer over the CWX1 channel. It validates every message it receives and sends
// (protocol.generated.ts + validate.ts), runs each inbound request with its own AbortSignal (an
// inbound `$/cancel` aborts it), numbers outbound requests from 1, bounds them to MAX_INFLIGHT
// and sends `$/cancel` when a caller's signal aborts. A violation in either direction is fatal.
import { ErrorCode, MAX_FRAME, MAX_INFLIGHT, METHODS, type RPCError, type Tier } from './protocol.generated.ts';
import { detach, encodeJSON, encodeJSONFrame } from './frame.ts';
import type {
  CoreMethod, CoreNotification, CoreParams, CoreResult, HostMethod, HostNotifications, HostParams, HostResult, Inbound, Outbound,
} from './messages.ts';
import { parseStrict } from './strictjson.ts';
import { ObjectHasOwn, TypedArrayBuffer, TypedArrayByteOffset, TypedArrayLength, TypedArrayPrototypeSet, wipe } from './primordials.ts';
import { acceptInbound, attachmentReason, isPlainObject, splitAttachment, validateMessage } from './validate.ts';

/** RpcError is an error answer with a JSON-RPC code. */
export class RpcError extends Error {
  override name = 'RpcError';
  readonly code: number;
  readonly data?: unknown;
  constructor(code: number, message: string, data?: unknown) {
    super(message);
    this.code = code;
    this.data = data;
  }
}

/** RequestHandler serves one validated request from the core; what it returns is the result. */
export type RequestHandler = <M extends CoreMethod>(method: M, params: CoreParams<M>, signal: AbortSignal) => CoreResult<M> | Promise<CoreResult<M>>;
export type NotificationHandler = (n: CoreNotification) => void;

interface Pending {
  method: HostMethod;
  resolve: (v: unknown) => void;
  reject: (e: Error) => void;
}

export interface RpcPeerOptions {
  tier: Tier;
  write: (frame: Buffer) => void;
  onRequest: RequestHandler;
  onNotification: NotificationHandler;
  /** onFatal ends the channel: a violation or framing error on either side. */
  onFatal: (reason: string) => void;
}

export class RpcPeer {
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private readonly inbound = new Map<number, AbortController>();
  private closed = false;

  private readonly o: RpcPeerOptions;

  constructor(o: RpcPeerOptions) {
    this.o = o;
  }

  /** receive handles one payload read from the channel. */
  receive(payload: Uint8Array): void {
    let msg: unknown;
    let attachment: Uint8Array | undefined;
    let spent = TypedArrayLength(payload); // the bytes to wipe once parsed: all but a handed-out attachment
    try {
      const split = splitAttachment(payload);
      if (typeof split === 'string') return this.o.onFatal(`protocol error: ${split}`);
      if (split.attachment !== undefined) {
        if (ownsBuffer(payload)) {
          spent = TypedArrayLength(split.text) + 1;
          attachment = plainView(split.attachment);
        } else attachment = copyOf(split.attachment);
      }
      msg = parseStrict(split.text);
    } catch (err) {
      return this.o.onFatal(`protocol error: ${errorMessage(err)}`);
    } finally {
      wipe(payload, spent); // parsed: the bytes are no longer needed (primordials.ts, wipe)
    }
    const answers = (id: number) => this.pending.get(id)?.method;
    const reason = validateMessage(msg, 'core_to_host', this.o.tier, answers);
    if (reason !== null) return this.o.onFatal(`protocol error: ${reason}`);
    if (!isPlainObject(msg)) return; // validateMessage refuses anything else
    const refused = attachment === undefined ? null : attachmentReason(msg, 'core_to_host', answers);
    if (refused !== null) return this.o.onFatal(`protocol error: ${refused}`);
    this.dispatch(acceptInbound(msg, answers), attachment);
  }

  private dispatch(m: Inbound, attachment: Uint8Array | undefined): void {
    if (m.method !== undefined) {
      if (m.id === undefined) return this.notification(m);
      return void this.serve(m.id, m.method, m.params);
    }
    const p = this.pending.get(m.id);
    if (!p) { // a late answer to a request we gave up on
      if (attachment !== undefined) wipe(attachment);
      return;
    }
    this.pending.delete(m.id);
    if ('error' in m) p.reject(new RpcError(m.error.code, m.error.message, m.error.data));
    else if (METHODS[p.method]?.result_attachment === true && isPlainObject(m.result)) p.resolve(withAttachment(m.result, attachment));
    else p.resolve(m.result);
  }

  private notification(n: CoreNotification): void {
    if (n.method === '$/cancel') {
      this.inbound.get(n.params.id)?.abort(new RpcError(ErrorCode.Cancelled, 'cancelled'));
      return;
    }
    this.o.onNotification(n);
  }

  private async serve<M extends CoreMethod>(id: number, method: M, params: CoreParams<M>): Promise<void> {
    const ac = new AbortController();
    this.inbound.set(id, ac);
    let reply: Outbound;
    try {
      const result = await this.o.onRequest(method, params, ac.signal);
      reply = { jsonrpc: '2.0', id, result: result === undefined ? {} : result };
    } catch (err) {
      reply = { jsonrpc: '2.0', id, error: toWireError(err) };
    } finally {
      this.inbound.delete(id);
    }
    this.send(reply, method);
  }

  /** request sends a host→core request; it sends `$/cancel` if `signal` aborts first. */
  request<M extends HostMethod>(method: M, params: HostParams<M>, signal?: AbortSignal): Promise<HostResult<M>> {
    if (this.closed) return Promise.reject(new RpcError(ErrorCode.NotAvailable, 'channel closed'));
    if (this.pending.size >= MAX_INFLIGHT) {
      return Promise.reject(new RpcError(ErrorCode.Internal, `more than ${MAX_INFLIGHT} requests in flight`));
    }
    if (signal?.aborted) return Promise.reject(new RpcError(ErrorCode.Cancelled, 'cancelled'));
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        if (!this.pending.delete(id)) return;
        this.notify('$/cancel', { id });
        reject(new RpcError(ErrorCode.Cancelled, 'cancelled'));
      };
      const done = () => signal?.removeEventListener('abort', onAbort);
      this.pending.set(id, {
        method,
        // receive validated the result against METHODS[method].result before it got here
        resolve: (v) => { done(); resolve(v as HostResult<M>); },
        reject: (e) => { done(); reject(e); },
      });
      signal?.addEventListener('abort', onAbort, { once: true });
      try {
        this.send({ jsonrpc: '2.0', id, method, params }, method);
      } catch (err) {
        this.pending.delete(id);
        done();
        reject(err);
      }
    });
  }

  notify<M extends keyof HostNotifications>(method: M, params: HostNotifications[M]): void {
    if (this.closed) return;
    this.send({ jsonrpc: '2.0', method, params });
  }

  /** encodeNotification validates and frames a notification without sending it. */
  encodeNotification<M extends keyof HostNotifications>(method: M, params: HostNotifications[M]): Buffer {
    const msg: Outbound = { jsonrpc: '2.0', method, params };
    const clean = detach(msg);
    const reason = validateMessage(clean, 'host_to_core', this.o.tier, () => undefined);
    if (reason !== null) throw new RpcError(ErrorCode.Internal, `refusing to encode an invalid message: ${reason}`);
    return encodeJSON(clean, true);
  }

  /** inFlight is the number of outbound requests awaiting an answer. */
  inFlight(): number {
    return this.pending.size;
  }

  /** close fails every outbound request; later sends are refused. */
  close(): void {
    this.closed = true;
    for (const p of this.pending.values()) p.reject(new RpcError(ErrorCode.NotAvailable, 'channel closed'));
    this.pending.clear();
  }

  private send(outbound: Outbound, answering?: string): void {
    // detached before anything reads it: no getter, setter or toJSON of a shared prototype
    // sees the message (frame.ts); whether it answers with a result is read on that copy too
    const msg = detach(outbound);
    const answer = isPlainObject(msg) && ObjectHasOwn(msg, 'result') ? msg : undefined;
    const reason = validateMessage(msg, 'host_to_core', this.o.tier, () => answering);
    if (reason !== null) {
      if (answer === undefined) throw new RpcError(ErrorCode.Internal, `refusing to send an invalid message: ${reason}`);
      // A handler produced an answer the protocol refuses: report it as an internal error.
      return this.o.write(encodeJSON({ jsonrpc: '2.0', id: answer.id, error: { code: ErrorCode.Internal, message: `invalid result: ${reason}` } }));
    }
    if (answer === undefined) return this.o.write(encodeJSON(msg, true));
    // An answer that cannot be framed is answered at once as the plugin's failure, never
    // dropped: the core's caller would otherwise wait for its deadline (core/protocol doc.go,
    // “Framing”). Anything else too large throws from encodeFrame to its sender.
    let failure: string;
    try {
      const frame = encodeJSONFrame(answer, MAX_FRAME, true); // measured before a buffer is allocated
      if (typeof frame !== 'number') return this.o.write(frame);
      failure = tooLarge(frame);
    } catch (err) {
      failure = `result could not be encoded: ${describeError(err)}`; // the runtime ran out of memory
    }
    const error = { code: ErrorCode.ExecutionFailed, message: failure };
    this.o.write(encodeJSON({ jsonrpc: '2.0', id: answer.id, error }));
  }
}

/** tooLarge is the failure of a result of n bytes that exceeds the frame limit. */
export function tooLarge(n: number): string {
  return `result of ${n} bytes exceeds the ${MAX_FRAME / (1 << 20)} MiB frame limit`;
}

export function toWireError(err: unknown): RPCError {
  if (err instanceof RpcError) return { code: err.code, message: err.message };
  return { code: ErrorCode.Internal, message: describeError(err) };
}

/** describeError renders a thrown value as "<Name>: <message>". */
export function describeError(err: unknown): string {
  let text = describeOne(err);
  // A platform error often says what went wrong only in its cause (fetch's `TypeError: fetch
  // failed` carries the fetch proxy's refusal, naming the grant): up to three causes follow.
  let cause = err instanceof Error ? err.cause : undefined;
  for (let depth = 0; depth < 3 && cause !== undefined && cause !== null; depth++) {
    text += `; cause: ${describeOne(cause)}`;
    cause = cause instanceof Error ? cause.cause : undefined;
  }
  return text;
}

function describeOne(err: unknown): string {
  if (err instanceof Error) return `${err.name || 'Error'}: ${err.message}`;
  if (isPlainObject(err) && typeof err.message === 'string') return `Error: ${err.message}`;
  return `Error: ${String(err)}`;
}

/** errorMessage is a thrown value's message, or the value itself as text. */
export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** cut shortens s to at most max UTF-8 bytes, never splitting a character. */
export function cut(s: string, max: number): string {
  if (s.length <= max / 3 || Buffer.byteLength(s, 'utf8') <= max) return s;
  let end = max;
  const bytes = Buffer.from(s, 'utf8');
  while (end > 0 && ((bytes[end] ?? 0) & 0xc0) === 0x80) end--; // back to a character boundary
  return bytes.subarray(0, end).toString('utf8');
}

/**
 * ownsBuffer reports whether payload is the whole of its memory (as FrameDecoder's payloads are):
 * an attachment may then be handed out as a view of it, the JSON text before it wiped, so its
 * buffer holds zeros and the attachment's bytes, nothing else.
 */
function ownsBuffer(payload: Uint8Array): boolean {
  return TypedArrayByteOffset(payload) === 0 && TypedArrayBuffer(payload).byteLength === TypedArrayLength(payload);
}

/** plainView is bytes as a plain Uint8Array over the same memory (not a Buffer). */
function plainView(bytes: Uint8Array): Uint8Array {
  return new Uint8Array(TypedArrayBuffer(bytes), TypedArrayByteOffset(bytes), TypedArrayLength(bytes));
}

/**
 * copyOf is an attachment in memory of its own, a plain Uint8Array, when the payload shares its
 * memory (a view of a pool), which is wiped once parsed.
 */
function copyOf(bytes: Uint8Array): Uint8Array {
  const out = new Uint8Array(TypedArrayLength(bytes));
  TypedArrayPrototypeSet(out, bytes, 0);
  return out;
}

/** withAttachment is a result of a method with result_attachment, given its bytes (empty when none came). */
function withAttachment(result: Record<string, unknown>, attachment: Uint8Array | undefined): Record<string, unknown> {
  result.attachment = attachment ?? new Uint8Array(0);
  return result;
}
