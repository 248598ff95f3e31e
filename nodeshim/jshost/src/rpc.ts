// One JSON-RPC 2.0 peer over the CWX1 channel. It validates every message it receives and sends
// (protocol.generated.ts + validate.ts), runs each inbound request with its own AbortSignal (an
// inbound `$/cancel` aborts it), numbers outbound requests from 1, bounds them to MAX_INFLIGHT
// and sends `$/cancel` when a caller's signal aborts. A violation in either direction is fatal.
import { ErrorCode, MAX_INFLIGHT, type Tier } from './protocol.generated.ts';
import { encodeFrame } from './frame.ts';
import { parseStrict } from './strictjson.ts';
import { isPlainObject, validateMessage } from './validate.ts';

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

export type RequestHandler = (method: string, params: Record<string, unknown>, signal: AbortSignal) => unknown;
export type NotificationHandler = (method: string, params: Record<string, unknown>) => void;

interface Pending {
  method: string;
  resolve: (v: Record<string, unknown>) => void;
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
    try {
      msg = parseStrict(payload);
    } catch (err) {
      return this.o.onFatal(`protocol error: ${(err as Error).message}`);
    }
    const reason = validateMessage(msg, 'core_to_host', this.o.tier, (id) => this.pending.get(id)?.method);
    if (reason !== null) return this.o.onFatal(`protocol error: ${reason}`);
    const m = msg as Record<string, unknown>;
    if (typeof m.method === 'string') {
      const params = (m.params ?? {}) as Record<string, unknown>;
      if (m.id === undefined) return this.notification(m.method, params);
      return void this.serve(m.id as number, m.method, params);
    }
    const p = this.pending.get(m.id as number);
    if (!p) return; // a late answer to a request we gave up on
    this.pending.delete(m.id as number);
    if (Object.hasOwn(m, 'error')) {
      const e = m.error as { code: number; message: string; data?: unknown };
      p.reject(new RpcError(e.code, e.message, e.data));
    } else {
      p.resolve(m.result as Record<string, unknown>);
    }
  }

  private notification(method: string, params: Record<string, unknown>): void {
    if (method === '$/cancel') {
      this.inbound.get(params.id as number)?.abort(new RpcError(ErrorCode.Cancelled, 'cancelled'));
      return;
    }
    this.o.onNotification(method, params);
  }

  private async serve(id: number, method: string, params: Record<string, unknown>): Promise<void> {
    const ac = new AbortController();
    this.inbound.set(id, ac);
    let reply: Record<string, unknown>;
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
  request(method: string, params: Record<string, unknown>, signal?: AbortSignal): Promise<Record<string, unknown>> {
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
        resolve: (v) => { done(); resolve(v); },
        reject: (e) => { done(); reject(e); },
      });
      signal?.addEventListener('abort', onAbort, { once: true });
      try {
        this.send({ jsonrpc: '2.0', id, method, params }, method);
      } catch (err) {
        this.pending.delete(id);
        done();
        reject(err as Error);
      }
    });
  }

  notify(method: string, params: Record<string, unknown>): void {
    if (this.closed) return;
    this.send({ jsonrpc: '2.0', method, params });
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

  private send(msg: Record<string, unknown>, answering?: string): void {
    const reason = validateMessage(msg, 'host_to_core', this.o.tier, () => answering);
    if (reason !== null) {
      if (msg.id !== undefined && msg.method === undefined && Object.hasOwn(msg, 'result')) {
        // A handler produced an answer the protocol refuses: report it as an internal error.
        msg = { jsonrpc: '2.0', id: msg.id, error: { code: ErrorCode.Internal, message: `invalid result: ${reason}` } };
      } else {
        throw new RpcError(ErrorCode.Internal, `refusing to send an invalid message: ${reason}`);
      }
    }
    this.o.write(encodeFrame(Buffer.from(JSON.stringify(msg), 'utf8')));
  }
}

export function toWireError(err: unknown): { code: number; message: string } {
  if (err instanceof RpcError) return { code: err.code, message: err.message };
  return { code: ErrorCode.Internal, message: describeError(err) };
}

/** describeError renders a thrown value as "<Name>: <message>". */
export function describeError(err: unknown): string {
  if (err instanceof Error) return `${err.name || 'Error'}: ${err.message}`;
  if (isPlainObject(err) && typeof err.message === 'string') return `Error: ${err.message}`;
  return `Error: ${String(err)}`;
}

/** cut shortens s to at most max UTF-8 bytes, never splitting a character. */
export function cut(s: string, max: number): string {
  if (s.length <= max / 3 || Buffer.byteLength(s, 'utf8') <= max) return s;
  let end = max;
  const bytes = Buffer.from(s, 'utf8');
  while (end > 0 && (bytes[end]! & 0xc0) === 0x80) end--; // back to a character boundary
  return bytes.subarray(0, end).toString('utf8');
}
