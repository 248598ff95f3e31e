// The fetch proxy's host side (core/protocol doc.go, “The fetch proxy”): in a sandboxed host the
// global `fetch` sends each exchange to the core over net/*, and plugin code sees the platform's
// own Request, Response and Headers.
//
// One call: the platform's Request parses the arguments (URL, method, headers, body, signal, the
// FormData, Blob, URLSearchParams and ReadableStream bodies), so every argument error is the
// platform's own. The request names its exchange with a host-chosen request_id, and carries the
// owner that made it (the owner's async context, owner.ts) and, inside a tool call or a command,
// that invocation's ticket (withTicket, held in this module's async scope where no plugin can read
// it). A body of at most NET_MAX_CHUNK bytes travels whole in net/fetch; a longer one sends its
// first chunk there with body_streamed and the rest in net/write, one chunk in flight, the last
// with end. The answer is the response head; its body is a ReadableStream that pulls net/read
// only when the plugin reads (highWaterMark 0: nothing is fetched ahead), and sends net/close when
// the plugin cancels it or drops it unread (a FinalizationRegistry).
//
// Failures read as the platform's: a net/* error answer rejects with TypeError('fetch failed'),
// whose cause is a FetchProxyError carrying the core's message (it names the origin and the
// grant), `reason` (protocol.NetReason…) and `origin`; a body that fails while it is read errors
// with TypeError('terminated') and the same cause. An AbortSignal abort rejects (or errors the
// body) with the signal's reason, sends $/cancel for the pending net/* request and net/close.
// `data:` and `blob:` URLs never leave the host: the platform's own fetch serves them.
//
// A body with a content-encoding of gzip, deflate or br is decoded, as the platform's fetch does.
//
// Not honoured: `redirect: 'manual'` (the core follows redirects itself; `redirect: 'error'` fails
// once the head says it was redirected), the undici `dispatcher` option, and a BYOB reader of
// the body. The response's headers stay mutable (a constructed Response's are; the real fetch's
// are immutable).
import { AsyncLocalStorage } from 'node:async_hooks';
import { ErrorCode, type HTTPHeader, type NetFetchParams, type NetResponseHead, type OwnerRef } from '../protocol.generated.ts';
import type { Attached } from '../messages.ts';
import { RpcError, type RpcPeer } from '../rpc.ts';
import { ownerContext, type OwnerRecord } from '../owner.ts';
import { isPlainObject } from '../validate.ts';
import { ReflectApply } from '../primordials.ts';
import { Chunker, NET_MAX_CHUNK, toBase64 } from './chunks.ts';

/** FetchProxyError is the cause of a failed fetch: what the core (or the channel) said. */
export class FetchProxyError extends Error {
  override name = 'FetchProxyError';
  /** reason is protocol.NetReason… of the answer (NetErrorData.reason). */
  readonly reason: string;
  readonly origin?: string;
  constructor(message: string, reason: string, origin?: string) {
    super(message);
    this.reason = reason;
    if (origin !== undefined) this.origin = origin;
  }
}
Object.freeze(FetchProxyError.prototype);

interface Invocation {
  owner: OwnerRecord;
  ticket: string;
}

const invocation = new AsyncLocalStorage<Invocation>();
// captured before any plugin loads: a plugin that replaces AsyncLocalStorage.prototype.getStore
// would otherwise be handed every invocation's ticket as the host reads it (primordials.ts)
const alsRun: <R>(this: AsyncLocalStorage<Invocation>, store: Invocation, fn: () => R) => R = AsyncLocalStorage.prototype.run;
const alsGetStore: (this: AsyncLocalStorage<Invocation>) => Invocation | undefined = AsyncLocalStorage.prototype.getStore;
let enabled = false;

/**
 * withTicket runs fn (a tool's execute or a command's handler) where its fetches carry ticket.
 * It costs nothing in a host without the fetch proxy.
 */
export function withTicket<T>(owner: OwnerRecord, ticket: string | undefined, fn: () => T): T {
  if (!enabled || ticket === undefined) return fn();
  const store: Invocation = { owner, ticket };
  return ReflectApply<AsyncLocalStorage<Invocation>, [Invocation, () => T], T>(alsRun, invocation, [store, fn]);
}

/** ticketFor is the ticket of the invocation owner's code runs in now, if any. */
function ticketFor(owner: OwnerRecord): string | undefined {
  const inv = ReflectApply(alsGetStore, invocation, []);
  return inv !== undefined && inv.owner === owner ? inv.ticket : undefined;
}

/** Platform is the platform's fetch and its classes (install.ts reads the classes at their first use). */
export interface Platform {
  fetch: typeof fetch;
  Request: typeof Request;
  Response: typeof Response;
  Headers: typeof Headers;
}

let requestSeq = 0;

/** makeFetch returns the proxied fetch: every exchange goes to the core over rpc. */
export function makeFetch(rpc: RpcPeer, platform: Platform): typeof fetch {
  enabled = true;
  let cloneRead = false;
  const closer = new FinalizationRegistry<Open>((open) => open.close());
  return function fetch(input: string | URL | Request, init?: RequestInit): Promise<Response> {
    const owner = ownerContext.getStore();
    if (owner === undefined) {
      return Promise.reject(new TypeError('fetch is refused outside plugin code: a sandboxed cwx host fetches through the core\'s fetch proxy for the plugin that calls it'));
    }
    let request: Request;
    try {
      if (!cloneRead) {
        responseClone = platform.Response.prototype.clone;
        cloneRead = true;
      }
      request = new platform.Request(input, init);
    } catch (err) {
      return Promise.reject(err);
    }
    if (/^(?:data|blob):/i.test(request.url)) return platform.fetch(request);
    const signal = request.signal;
    if (signal.aborted) return Promise.reject(signal.reason);
    if (owner.state === 'gone') return Promise.reject(failed(new FetchProxyError('the plugin was stopped', 'cancelled')));
    const ticket = ticketFor(owner);
    const ex = new Exchange(rpc, platform, owner.ref, `r${++requestSeq}`, signal, closer);
    return ex.run(request, ticket);
  };
}

/** failed is the platform's rejection of a fetch, with cause. */
function failed(cause: unknown): TypeError {
  return new TypeError('fetch failed', { cause });
}

/** proxyError turns a net/* error answer (or a channel failure) into the fetch's cause. */
function proxyError(err: unknown): unknown {
  if (!(err instanceof RpcError)) return err;
  const data = err.data;
  if (isPlainObject(data) && typeof data.reason === 'string') {
    return new FetchProxyError(err.message, data.reason, typeof data.origin === 'string' ? data.origin : undefined);
  }
  const reason = err.code === ErrorCode.Cancelled ? 'cancelled' : err.code === ErrorCode.Refused ? 'request' : 'network';
  return new FetchProxyError(err.message, reason);
}

/** Open is what closes an exchange the plugin dropped: it holds nothing of the response. */
class Open {
  /** started is set once net/fetch is sent: before it, the core knows nothing to close. */
  started = false;
  done = false;
  private readonly rpc: RpcPeer;
  private readonly owner: OwnerRef;
  private readonly id: string;
  constructor(rpc: RpcPeer, owner: OwnerRef, id: string) {
    this.rpc = rpc;
    this.owner = owner;
    this.id = id;
  }

  /** close sends net/close once (not after eof, when the core has forgotten the exchange). */
  close(): void {
    if (this.done) return;
    this.done = true;
    if (!this.started) return;
    this.rpc.request('net/close', { owner: this.owner, request_id: this.id }).catch(() => {});
  }
}

/** NULL_BODY are the statuses whose response has no body (Fetch, “null body status”). */
const NULL_BODY = new Set([101, 103, 204, 205, 304]);

/** Exchange is one fetch: its request, its pending net/* requests and its response body. */
class Exchange {
  private readonly rpc: RpcPeer;
  private readonly platform: Platform;
  private readonly owner: OwnerRef;
  private readonly id: string;
  private readonly signal: AbortSignal;
  private readonly closer: FinalizationRegistry<Open>;
  private readonly open: Open;
  /** internal aborts the pending net/* request ($/cancel) when the plugin's signal aborts. */
  private readonly internal = new AbortController();
  private body: ReadableStreamDefaultController<Uint8Array> | undefined;
  /** first is the body's first bytes, which came with the head, until the plugin reads them. */
  private first: Uint8Array | undefined;
  /** whole says the head brought all of the body (eof): nothing is read after first. */
  private whole = false;
  private chunker: Chunker | undefined;
  private readonly onAbort = () => this.abort();

  constructor(rpc: RpcPeer, platform: Platform, owner: OwnerRef, id: string, signal: AbortSignal, closer: FinalizationRegistry<Open>) {
    this.rpc = rpc;
    this.platform = platform;
    this.owner = owner;
    this.id = id;
    this.signal = signal;
    this.closer = closer;
    this.open = new Open(rpc, owner, id);
  }

  async run(request: Request, ticket: string | undefined): Promise<Response> {
    this.signal.addEventListener('abort', this.onAbort, { once: true });
    try {
      const head = await this.send(request, ticket);
      return this.respond(request, head);
    } catch (err) {
      this.internal.abort(); // $/cancel of whatever is still pending (the head, when the upload failed)
      this.finish();
      if (this.signal.aborted) throw this.signal.reason;
      throw err instanceof TypeError && err.message === 'fetch failed' ? err : failed(proxyError(err));
    }
  }

  /** send is net/fetch, with the body's rest in net/write while the head is awaited. */
  private async send(request: Request, ticket: string | undefined): Promise<NetResponseHead & Attached> {
    const params: NetFetchParams = { owner: this.owner, request_id: this.id, method: request.method, url: request.url, headers: headerList(request.headers) };
    if (request.method !== 'HEAD') params.max_bytes = NET_MAX_CHUNK; // the body's first bytes with the head: one round trip less
    if (ticket !== undefined) params.ticket = ticket;
    const body = request.body;
    let streamed = false;
    if (body !== null) {
      this.chunker = new Chunker(body);
      const first = await this.chunker.take();
      if (first.bytes.byteLength > 0) params.body = toBase64(first.bytes);
      if (!first.last) params.body_streamed = streamed = true;
    }
    if (this.signal.aborted) throw this.signal.reason;
    this.open.started = true;
    const head = this.rpc.request('net/fetch', params, this.internal.signal);
    head.catch(() => {}); // awaited below; a rejection after the upload failed is no fault
    if (!streamed) return head;
    const upload = this.upload();
    upload.catch(() => {});
    // the head may come before the upload ends (a server answers early): it wins then
    return Promise.race([head, upload.then(() => head)]);
  }

  /** upload sends the body after its first chunk: one net/write in flight, the last with end. */
  private async upload(): Promise<void> {
    const chunker = this.chunker;
    if (chunker === undefined) return;
    for (;;) {
      const c = await chunker.take();
      await this.rpc.request('net/write', { owner: this.owner, request_id: this.id, data: toBase64(c.bytes), ...(c.last ? { end: true } : {}) }, this.internal.signal);
      if (c.last) return;
    }
  }

  private respond(request: Request, head: NetResponseHead & Attached): Response {
    if (head.eof === true) this.whole = this.open.done = true; // the whole body came with the head: the core forgot the exchange
    if (head.attachment.byteLength > 0) this.first = head.attachment;
    if (head.redirected && request.redirect === 'error') {
      throw failed(new FetchProxyError('the response was redirected and the request says redirect: "error"', 'redirect'));
    }
    if (head.status < 200 || head.status > 599) throw failed(new FetchProxyError(`the core answered status ${head.status}, which fetch cannot represent`, 'network'));
    const headers = new this.platform.Headers();
    for (const h of head.headers) headers.append(h.name, h.value);
    const nullBody = request.method === 'HEAD' || NULL_BODY.has(head.status);
    const body = nullBody ? null : decoded(this.stream(), headers.get('content-encoding'));
    const response = new this.platform.Response(body, { status: head.status, statusText: head.status_text, headers });
    describe(response, head);
    if (body === null) this.finish();
    else if (!this.open.done) this.closer.register(body, this.open, this.open); // the stream, which outlives its Response when the plugin keeps only the body
    return response;
  }

  /** stream is the response body: net/read on each pull, net/close on cancel. */
  private stream(): ReadableStream<Uint8Array> {
    // not a byte stream: its controller pulls again after an enqueue, one chunk ahead of the
    // plugin, and nothing public says whether a default reader is waiting (so no BYOB reader)
    return new ReadableStream<Uint8Array>({
      start: (controller) => { this.body = controller; },
      pull: (controller) => this.pull(controller),
      cancel: () => {
        this.internal.abort(); // $/cancel of a pending net/read
        this.finish();
      },
    }, { highWaterMark: 0 });
  }

  private async pull(controller: ReadableStreamDefaultController<Uint8Array>): Promise<void> {
    const first = this.first;
    if (first !== undefined || this.whole) { // the bytes that came with the head, all of the body when it said eof
      this.first = undefined;
      if (first !== undefined) controller.enqueue(first);
      if (!this.whole) return;
      this.finish();
      controller.close();
      return;
    }
    for (;;) {
      let data: Uint8Array;
      let eof: boolean;
      try {
        const chunk = await this.rpc.request('net/read', { owner: this.owner, request_id: this.id, max_bytes: NET_MAX_CHUNK }, this.internal.signal);
        data = chunk.attachment; // the body's bytes, in memory of their own (rpc.ts)
        eof = chunk.eof;
      } catch (err) {
        if (this.open.done) return; // cancelled or aborted meanwhile: the stream already says so
        this.finish();
        throw new TypeError('terminated', { cause: proxyError(err) });
      }
      if (this.open.done) return;
      if (data.byteLength > 0) controller.enqueue(data);
      if (eof) {
        this.open.done = true; // the core forgot the exchange at eof: no net/close
        this.finish();
        controller.close();
        return;
      }
      if (data.byteLength > 0) return;
    }
  }

  /** abort is the plugin's signal: its reason ends whatever is pending. */
  private abort(): void {
    if (this.open.done) return;
    const reason: unknown = this.signal.reason;
    this.internal.abort(reason);
    this.chunker?.cancel(reason);
    try {
      this.body?.error(reason);
    } catch {
      // the stream has already ended
    }
    this.finish();
  }

  /** finish ends the exchange: net/close (once), listeners and the finalizer released. */
  private finish(): void {
    this.signal.removeEventListener('abort', this.onAbort);
    this.closer.unregister(this.open);
    this.open.close();
  }
}

type Format = ConstructorParameters<typeof DecompressionStream>[0];
const FORMATS = new Map<string, Format>([['gzip', 'gzip'], ['x-gzip', 'gzip'], ['deflate', 'deflate'], ['br', 'brotli']]);

/**
 * decoded is a response body through the decoders of its content-encoding, last coding first,
 * as the platform's fetch decodes it (the header stays). A coding it does not know (or a
 * runtime without that decoder) leaves the body as it came.
 */
function decoded(body: ReadableStream<Uint8Array>, encoding: string | null): ReadableStream<Uint8Array> {
  if (encoding === null) return body;
  const codings = encoding.toLowerCase().split(',').map((c) => c.trim()).filter((c) => c !== '').reverse();
  const decoders: DecompressionStream[] = [];
  for (const c of codings) {
    const format = FORMATS.get(c);
    if (format === undefined) return body;
    try {
      decoders.push(new DecompressionStream(format));
    } catch {
      return body;
    }
  }
  let out = body;
  for (const d of decoders) out = out.pipeThrough(d);
  return out;
}

/** headerList is a Headers as the wire's [{name, value}] (lower-case names, in order). */
function headerList(h: Headers): HTTPHeader[] {
  const out: HTTPHeader[] = [];
  h.forEach((value, name) => { out.push({ name, value }); });
  return out;
}

/**
 * describe gives a constructed Response what the real fetch's has: its final url, whether it
 * was redirected, and type "basic"; its clones get them too.
 */
function describe(response: Response, head: NetResponseHead): void {
  Object.defineProperties(response, {
    url: { value: head.url, configurable: true },
    redirected: { value: head.redirected, configurable: true },
    type: { value: 'basic', configurable: true },
    clone: {
      value: function clone(this: unknown): unknown {
        const copy: unknown = Reflect.apply(responseClone, this, []);
        if (copy instanceof Response) describe(copy, head);
        return copy;
      },
      configurable: true,
    },
  });
}

// read at the first fetch, not at module load or install: reading the global Response loads
// Node's whole fetch implementation (~45 ms of a start, install.ts), and a startup snapshot is
// built where it cannot load
let responseClone: () => Response = () => {
  throw new TypeError('the fetch proxy is not installed');
};
