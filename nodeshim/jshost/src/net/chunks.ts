// Body bytes on the wire of the fetch proxy: a request body goes base64, at most NET_MAX_CHUNK
// decoded bytes per net/fetch body and net/write; a response body comes as the attachment of
// each net/read result, at most NET_MAX_CHUNK bytes (core/protocol doc.go, “The fetch proxy”).
import { BufferAllocUnsafeSlow, TypedArrayLength, TypedArrayPrototypeSet, TypedArrayPrototypeSubarray } from '../primordials.ts';

/** NET_MAX_CHUNK is protocol.NetMaxChunk (core/protocol/methods.go): 1 MiB. */
export const NET_MAX_CHUNK = 1 << 20;

/** toBase64 is the base64 of bytes. */
export function toBase64(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');
}

/** Chunk is the next piece of a request body; last says nothing follows it. */
export interface Chunk {
  bytes: Uint8Array;
  last: boolean;
}

/**
 * Chunker cuts a request body stream into chunks of NET_MAX_CHUNK bytes (the last one
 * shorter), reading one chunk ahead so that it knows which chunk is the last: a body of at
 * most NET_MAX_CHUNK bytes is one chunk with last set, and travels whole in net/fetch.
 */
export class Chunker {
  private readonly reader: ReadableStreamDefaultReader<unknown>;
  private parts: Uint8Array[] = [];
  private size = 0;
  private ended = false;

  constructor(body: ReadableStream<unknown>) {
    this.reader = body.getReader();
  }

  async take(): Promise<Chunk> {
    while (!this.ended && this.size <= NET_MAX_CHUNK) {
      const r = await this.reader.read();
      if (r.done) {
        this.ended = true;
        break;
      }
      const v = r.value;
      // as the platform's fetch: a streamed body yields bytes, nothing else
      if (!(v instanceof Uint8Array)) throw new TypeError('fetch: a chunk of the request body is not a Uint8Array');
      if (TypedArrayLength(v) === 0) continue;
      this.parts.push(v);
      this.size += TypedArrayLength(v);
    }
    const n = Math.min(this.size, NET_MAX_CHUNK);
    const bytes = BufferAllocUnsafeSlow(n);
    let at = 0;
    while (at < n) {
      const p = this.parts[0];
      if (p === undefined) break;
      const take = Math.min(TypedArrayLength(p), n - at);
      TypedArrayPrototypeSet(bytes, TypedArrayPrototypeSubarray(p, 0, take), at);
      at += take;
      if (take === TypedArrayLength(p)) this.parts.shift();
      else this.parts[0] = TypedArrayPrototypeSubarray(p, take);
    }
    this.size -= n;
    return { bytes, last: this.ended && this.size === 0 };
  }

  /** cancel stops reading the body (the exchange failed or was aborted). */
  cancel(reason: unknown): void {
    this.parts = [];
    this.reader.cancel(reason).catch(() => {});
  }
}
