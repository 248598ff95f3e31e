// CWX1 framing: 4 ASCII bytes "CWX1", a little-endian u32 payload length, then the payload
// (one UTF-8 JSON-RPC message, and for a net/read result its attachment after a NUL byte:
// core/protocol doc.go, “Framing”; rpc.ts splits them). The length is checked against MAX_FRAME before anything is
// buffered for the payload, so an oversized frame is refused without allocating it.
//
// Everything here runs on primordials (primordials.ts) and on objects without a prototype
// (detach), so a plugin that wraps a built-in or defines a getter, a setter or toJSON on a
// shared prototype never sees a frame (ARCHITECTURE.md, “Trust model”).
import { MAX_FRAME } from './protocol.generated.ts';
import type {} from './runtime-globals.ts';
import {
  ArrayIsArray, ArrayPrototypePush, BufferAllocUnsafeSlow, BufferByteLength, BufferLatin1Write, JSONParse, JSONStringify, ObjectCreate,
  ObjectDefineProperty, ObjectGetPrototypeOf, ObjectHasOwn, ObjectKeys, ObjectPrototype, ObjectSetPrototypeOf, ReflectGet, RegExpPrototypeTest,
  StringFromCharCode, StringPrototypeIndexOf, StringPrototypeSlice, TextEncode, TextEncodeInto, TypedArrayBuffer, TypedArrayByteOffset, TypedArrayLength, TypedArrayPrototypeSet, TypedArrayPrototypeSubarray, wipe,
} from './primordials.ts';

export const MAGIC = Buffer.from('CWX1', 'ascii');
export const HEADER_SIZE = 8;
const M0 = 0x43, M1 = 0x57, M2 = 0x58, M3 = 0x31; // "CWX1"

export class FrameError extends Error {
  override name = 'FrameError';
}

/** encodeFrame refuses (never truncates) a payload larger than MAX_FRAME. */
export function encodeFrame(payload: Uint8Array): Buffer {
  const n = TypedArrayLength(payload);
  if (n > MAX_FRAME) {
    throw new FrameError(`frame payload of ${n} bytes exceeds the ${MAX_FRAME}-byte limit`);
  }
  const out = header(n);
  TypedArrayPrototypeSet(out, payload, HEADER_SIZE);
  return out;
}

/** header allocates a frame for a payload of n bytes and writes its header. */
function header(n: number): Buffer {
  const out = BufferAllocUnsafeSlow(HEADER_SIZE + n);
  out[0] = M0; out[1] = M1; out[2] = M2; out[3] = M3;
  out[4] = n & 0xff; out[5] = (n >>> 8) & 0xff; out[6] = (n >>> 16) & 0xff; out[7] = n >>> 24;
  return sealed(out, HEADER_SIZE + n);
}

/**
 * sealed gives a frame its own length, byteLength, byteOffset and buffer, so that the writer's
 * reads of them never reach a getter on a shared prototype.
 */
function sealed(b: Buffer, n: number): Buffer {
  const own = (k: string, value: unknown) => ObjectDefineProperty(b, k, { value, writable: false, enumerable: false, configurable: false });
  own('length', n);
  own('byteLength', n);
  own('byteOffset', TypedArrayByteOffset(b));
  own('buffer', TypedArrayBuffer(b));
  return b;
}

/** encodeJSON is one frame holding the JSON of msg, detached first unless it already is. */
export function encodeJSON(msg: unknown, detached = false): Buffer {
  const payload = TextEncode(JSONStringify(detached ? msg : detach(msg)));
  try {
    return encodeFrame(payload);
  } finally {
    wipe(payload);
  }
}

/**
 * detach copies a message into objects and arrays without a prototype, reading only own
 * properties: the encoder then looks nothing up on a shared prototype (no toJSON, no getter).
 * A value that is neither plain nor an array (a Date, a class instance) keeps its own JSON
 * form, taken alone.
 */
export function detach(v: unknown, depth = 0): unknown {
  if (typeof v !== 'object' || v === null) return v;
  if (depth > 256) throw new FrameError('message nests too deep to encode');
  if (ArrayIsArray(v)) {
    const n = v.length;
    const a: unknown[] = [];
    ObjectSetPrototypeOf(a, null);
    for (let i = 0; i < n; i++) a[i] = ObjectHasOwn(v, i) ? detach(v[i], depth + 1) : null;
    return a;
  }
  const proto = ObjectGetPrototypeOf(v);
  if (proto !== ObjectPrototype && proto !== null) {
    const json = JSONStringify(v);
    return json === undefined ? undefined : detach(JSONParse(json), depth + 1);
  }
  const o: Rec = ObjectCreate(null);
  const ks = ObjectKeys(v);
  for (let i = 0; i < ks.length; i++) {
    const k = ks[i];
    if (k !== undefined) o[k] = detach(ReflectGet(v, k), depth + 1);
  }
  return o;
}

/**
 * BIG_TEXT is the length from which a text block of a result is framed without passing
 * through JSON.stringify: Node's JSON.stringify of a 1 MiB string costs several times a copy
 * of it (~5 ms against ~1 ms for the check below; BENCHMARKS.md, “Where the time goes”).
 */
export const BIG_TEXT = 64 << 10;

// A string matching neither needs escaping in JSON, so its JSON form is the string between two
// quotes: no control character, quote, backslash or surrogate (a lone surrogate is escaped by
// JSON.stringify). The two are the same set; the negated class is the faster of the two on
// Node, the positive one on Bun.
const NEEDS_ESCAPE = globalThis.Bun !== undefined
  ? /[\u0000-\u001f"\\\ud800-\udfff]/
  : /[^\u0020\u0021\u0023-\u005b\u005d-\ud7ff\ue000-\uffff]/;

/** plainText reports whether s needs no escaping as a JSON string. */
export function plainText(s: string): boolean {
  return !RegExpPrototypeTest(NEEDS_ESCAPE, s);
}

type Rec = Record<string, unknown>;

/** plainRecord: a detached object (no prototype, so no toJSON but its own). */
function plainRecord(v: unknown): v is Rec {
  return typeof v === 'object' && v !== null && ObjectGetPrototypeOf(v) === null && !ObjectHasOwn(v, 'toJSON');
}

/**
 * encodeJSONFrame returns one CWX1 frame holding JSON.stringify(msg), written straight into the
 * frame's buffer, or the payload's byte length when it exceeds max (nothing is allocated then).
 * The text of a result's content blocks (msg.result.content[i].text) of BIG_TEXT or more that
 * needs no escaping is copied in as is; the bytes are the same as JSON.stringify's. msg is
 * detached first (detach).
 */
export function encodeJSONFrame(raw: unknown, max: number, detached = false): Buffer | number {
  const msg: unknown = detached ? raw : detach(raw);
  const texts: string[] = [];
  const shaped = withMarkers(msg, texts);
  let pieces: string[] = [];
  if (shaped === undefined || !splitAtMarkers(JSONStringify(shaped), texts, pieces)) pieces = [JSONStringify(msg)];
  let n = 0;
  const sizes: number[] = [];
  for (let i = 0; i < pieces.length; i++) {
    const k = BufferByteLength(pieces[i] ?? '', 'utf8');
    sizes[i] = k;
    n += k;
  }
  if (n > max) return n;
  const out = header(n);
  let at = HEADER_SIZE;
  // ASCII (as many bytes as UTF-16 units) is written as latin1, the cheaper encoder
  for (let i = 0; i < pieces.length; i++) {
    const p = pieces[i] ?? '';
    at += sizes[i] === p.length ? BufferLatin1Write(out, p, at) : TextEncodeInto(p, TypedArrayPrototypeSubarray(out, at));
  }
  return out;
}

const marker = (i: number) => `\u0001cwx-text-${i}\u0001`;

/** withKey is a detached copy of o with k set to v. */
function withKey(o: Rec, k: string, v: unknown): Rec {
  const out: Rec = ObjectCreate(null);
  const ks = ObjectKeys(o);
  for (let i = 0; i < ks.length; i++) {
    const key = ks[i];
    if (key !== undefined) out[key] = o[key];
  }
  out[k] = v;
  return out;
}

/** withMarkers returns msg with its big plain texts replaced by markers (pushed to texts), or undefined when it has none. */
function withMarkers(msg: unknown, texts: string[]): object | undefined {
  if (!plainRecord(msg) || !plainRecord(msg.result) || !ArrayIsArray(msg.result.content)) return undefined;
  const content: unknown[] = msg.result.content;
  let blocks: unknown[] | undefined;
  for (let i = 0; i < content.length; i++) {
    const b = content[i];
    if (!plainRecord(b) || typeof b.text !== 'string' || b.text.length < BIG_TEXT || !plainText(b.text)) continue;
    if (blocks === undefined) {
      blocks = [];
      ObjectSetPrototypeOf(blocks, null);
      for (let j = 0; j < content.length; j++) blocks[j] = content[j];
    }
    blocks[i] = withKey(b, 'text', marker(texts.length));
    ArrayPrototypePush(texts, b.text);
  }
  return blocks === undefined ? undefined : withKey(msg, 'result', withKey(msg.result, 'content', blocks));
}

/**
 * splitAtMarkers cuts json at each marker's JSON form, in order, into pieces with the texts in
 * between (quoted). It fails when a marker's form occurs more than once: a string of the
 * message's own spelled it too, and the caller then encodes the message the plain way.
 */
function splitAtMarkers(json: string, texts: string[], pieces: string[]): boolean {
  let from = 0;
  for (let i = 0; i < texts.length; i++) {
    const m = JSONStringify(marker(i));
    const at = StringPrototypeIndexOf(json, m);
    if (at < from || StringPrototypeIndexOf(json, m, at + 1) >= 0) return false;
    ArrayPrototypePush(pieces, StringPrototypeSlice(json, from, at), '"', texts[i] ?? '', '"');
    from = at + m.length;
  }
  ArrayPrototypePush(pieces, StringPrototypeSlice(json, from));
  return true;
}

/**
 * FrameDecoder yields whole payloads from stream chunks, each in memory of its own (never a
 * shared pool), through primordials only. A payload's memory is allocated once its header is
 * read (after the length check), and each chunk is copied into it as it arrives and then wiped,
 * so the copy of a large payload overlaps its transfer instead of following it.
 */
export class FrameDecoder {
  private readonly head = BufferAllocUnsafeSlow(HEADER_SIZE);
  private headLen = 0; // header bytes read of the next frame
  private payload: Buffer | undefined; // the payload being filled, once its header was read
  private filled = 0;

  /** push returns the payloads completed by this chunk; it throws FrameError on a bad header. */
  push(chunk: Uint8Array): Buffer[] {
    const out: Buffer[] = [];
    const len = TypedArrayLength(chunk);
    let at = 0;
    try {
      while (at < len) {
        const p = this.payload;
        if (p === undefined) {
          const k = Math.min(HEADER_SIZE - this.headLen, len - at);
          TypedArrayPrototypeSet(this.head, TypedArrayPrototypeSubarray(chunk, at, at + k), this.headLen);
          this.headLen += k;
          at += k;
          if (this.headLen < HEADER_SIZE) break;
          this.headLen = 0;
          const n = this.announced();
          if (n === 0) ArrayPrototypePush(out, BufferAllocUnsafeSlow(0));
          else {
            this.payload = BufferAllocUnsafeSlow(n);
            this.filled = 0;
          }
          continue;
        }
        const want = TypedArrayLength(p);
        const k = Math.min(want - this.filled, len - at);
        TypedArrayPrototypeSet(p, TypedArrayPrototypeSubarray(chunk, at, at + k), this.filled);
        this.filled += k;
        at += k;
        if (this.filled === want) {
          ArrayPrototypePush(out, p);
          this.payload = undefined;
        }
      }
    } finally {
      wipe(chunk, at); // the part copied out: see wipe
    }
    return out;
  }

  /** midFrame reports whether the stream stopped inside a frame (a truncated frame at EOF). */
  midFrame(): boolean {
    return this.headLen > 0 || this.payload !== undefined;
  }

  /** announced checks the header just read and returns its payload length. */
  private announced(): number {
    const h = this.head;
    const b = (i: number): number => h[i] ?? 0;
    if (b(0) !== M0 || b(1) !== M1 || b(2) !== M2 || b(3) !== M3) {
      throw new FrameError(`bad frame magic ${JSONStringify(StringFromCharCode(b(0), b(1), b(2), b(3)))}`);
    }
    const n = (b(4) | (b(5) << 8) | (b(6) << 16)) + b(7) * 0x1000000;
    if (n > MAX_FRAME) throw new FrameError(`frame length ${n} exceeds the ${MAX_FRAME}-byte limit`);
    return n;
  }
}
