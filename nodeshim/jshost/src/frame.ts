// CWX1 framing: 4 ASCII bytes "CWX1", a little-endian u32 payload length, then the payload
// (one UTF-8 JSON-RPC message). The length is checked against MAX_FRAME before anything is
// buffered for the payload, so an oversized frame is refused without allocating it.
import { MAX_FRAME } from './protocol.generated.ts';

export const MAGIC = Buffer.from('CWX1', 'ascii');
export const HEADER_SIZE = 8;

export class FrameError extends Error {
  override name = 'FrameError';
}

/** encodeFrame refuses (never truncates) a payload larger than MAX_FRAME. */
export function encodeFrame(payload: Uint8Array): Buffer {
  if (payload.length > MAX_FRAME) {
    throw new FrameError(`frame payload of ${payload.length} bytes exceeds the ${MAX_FRAME}-byte limit`);
  }
  const out = Buffer.allocUnsafe(HEADER_SIZE + payload.length);
  MAGIC.copy(out, 0);
  out.writeUInt32LE(payload.length, 4);
  out.set(payload, HEADER_SIZE);
  return out;
}

/** FrameDecoder accumulates stream chunks and yields whole payloads. */
export class FrameDecoder {
  private chunks: Buffer[] = [];
  private size = 0;
  private want = -1; // payload length of the frame being read, -1 while reading a header

  /** push returns the payloads completed by this chunk; it throws FrameError on a bad header. */
  push(chunk: Uint8Array): Buffer[] {
    this.chunks.push(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength));
    this.size += chunk.byteLength;
    const out: Buffer[] = [];
    for (;;) {
      if (this.want < 0) {
        if (this.size < HEADER_SIZE) break;
        const header = this.take(HEADER_SIZE);
        if (!header.subarray(0, 4).equals(MAGIC)) {
          throw new FrameError(`bad frame magic ${JSON.stringify(header.subarray(0, 4).toString('latin1'))}`);
        }
        const n = header.readUInt32LE(4);
        if (n > MAX_FRAME) throw new FrameError(`frame length ${n} exceeds the ${MAX_FRAME}-byte limit`);
        this.want = n;
      }
      if (this.size < this.want) break;
      out.push(this.take(this.want));
      this.want = -1;
    }
    return out;
  }

  /** midFrame reports whether the stream stopped inside a frame (a truncated frame at EOF). */
  midFrame(): boolean {
    return this.size > 0 || this.want >= 0;
  }

  private take(n: number): Buffer {
    const all = this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks, this.size);
    const head = Buffer.from(all.subarray(0, n));
    const rest = all.subarray(n);
    this.chunks = rest.length > 0 ? [rest] : [];
    this.size = rest.length;
    return head;
  }
}
