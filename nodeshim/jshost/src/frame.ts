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

/**
 * BIG_TEXT is the length from which a text block of a result is framed without passing
 * through JSON.stringify: Node's JSON.stringify of a 1 MiB string costs several times a copy
 * of it (~5 ms against ~1 ms for the check below; BENCHMARKS.md, “The cheaper path”).
 */
export const BIG_TEXT = 64 << 10;

// A string matching neither needs escaping in JSON, so its JSON form is the string between two
// quotes: no control character, quote, backslash or surrogate (a lone surrogate is escaped by
// JSON.stringify). The two are the same set; the negated class is the faster of the two on
// Node, the positive one on Bun.
const NEEDS_ESCAPE = (globalThis as { Bun?: unknown }).Bun !== undefined
  ? /[\u0000-\u001f"\\\ud800-\udfff]/
  : /[^\u0020\u0021\u0023-\u005b\u005d-\ud7ff\ue000-\uffff]/;

/** plainText reports whether s needs no escaping as a JSON string. */
export function plainText(s: string): boolean {
  return !NEEDS_ESCAPE.test(s);
}

type Rec = Record<string, unknown>;

function plainRecord(v: unknown): v is Rec {
  return typeof v === 'object' && v !== null && Object.getPrototypeOf(v) === Object.prototype && !('toJSON' in v);
}

/**
 * encodeJSONFrame returns one CWX1 frame holding JSON.stringify(msg), written straight into the
 * frame's buffer, or the payload's byte length when it exceeds max (nothing is allocated then).
 * The text of a result's content blocks (msg.result.content[i].text) of BIG_TEXT or more that
 * needs no escaping is copied in as is; the bytes are the same as JSON.stringify's.
 */
export function encodeJSONFrame(msg: object, max: number): Buffer | number {
  const texts: string[] = [];
  const shaped = withMarkers(msg, texts);
  let pieces: string[] = [];
  if (shaped === undefined || !splitAtMarkers(JSON.stringify(shaped), texts, pieces)) pieces = [JSON.stringify(msg)];
  let n = 0;
  const sizes = pieces.map((p) => Buffer.byteLength(p, 'utf8'));
  for (const k of sizes) n += k;
  if (n > max) return n;
  const out = Buffer.allocUnsafe(HEADER_SIZE + n);
  MAGIC.copy(out, 0);
  out.writeUInt32LE(n, 4);
  let at = HEADER_SIZE;
  // ASCII (as many bytes as UTF-16 units) is written as latin1, the cheaper encoder
  pieces.forEach((p, i) => { at += out.write(p, at, sizes[i] === p.length ? 'latin1' : 'utf8'); });
  return out;
}

const marker = (i: number) => `\u0001cwx-text-${i}\u0001`;

/** withMarkers returns msg with its big plain texts replaced by markers (pushed to texts), or undefined when it has none. */
function withMarkers(msg: object, texts: string[]): object | undefined {
  if (!plainRecord(msg) || !plainRecord(msg.result) || !Array.isArray(msg.result.content)) return undefined;
  const content: unknown[] = msg.result.content;
  let blocks: unknown[] | undefined;
  for (let i = 0; i < content.length; i++) {
    const b = content[i];
    if (!plainRecord(b) || typeof b.text !== 'string' || b.text.length < BIG_TEXT || !plainText(b.text)) continue;
    blocks ??= content.slice();
    blocks[i] = { ...b, text: marker(texts.length) };
    texts.push(b.text);
  }
  return blocks === undefined ? undefined : { ...msg, result: { ...msg.result, content: blocks } };
}

/**
 * splitAtMarkers cuts json at each marker's JSON form, in order, into pieces with the texts in
 * between (quoted). It fails when a marker's form occurs more than once: a string of the
 * message's own spelled it too, and the caller then encodes the message the plain way.
 */
function splitAtMarkers(json: string, texts: string[], pieces: string[]): boolean {
  let from = 0;
  for (let i = 0; i < texts.length; i++) {
    const m = JSON.stringify(marker(i));
    const at = json.indexOf(m);
    if (at < from || json.indexOf(m, at + 1) >= 0) return false;
    pieces.push(json.slice(from, at), '"', texts[i]!, '"');
    from = at + m.length;
  }
  pieces.push(json.slice(from));
  return true;
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
