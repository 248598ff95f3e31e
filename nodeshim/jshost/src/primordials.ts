// Primordials: the built-ins the host's own encoder, frame writer, decoder and validator
// use, captured when the bundle is evaluated, before any plugin loads. All plugins of a tier
// share one realm, so a plugin could otherwise wrap JSON.stringify, Object.keys, an array
// iterator, TextEncoder.prototype.encode or a Buffer method and read every frame of the
// tier, other plugins' tickets and owner tokens included (ARCHITECTURE.md, “Trust model”).
// Prototype methods are kept uncurried and called through the captured Reflect.apply;
// nothing here is looked up on a prototype at call time.
const R = Reflect;
export const ReflectApply = R.apply;
export const ReflectDefineProperty = R.defineProperty;
export const ReflectGetOwnPropertyDescriptor = R.getOwnPropertyDescriptor;

const O = Object;
export const ObjectKeys = O.keys;
export const ObjectHasOwn = O.hasOwn;
export const ObjectCreate = O.create;
export const ObjectGetPrototypeOf = O.getPrototypeOf;
export const ObjectSetPrototypeOf = O.setPrototypeOf;
export const ObjectFreeze = O.freeze;
export const ObjectDefineProperty = O.defineProperty;
export const ObjectPrototype = O.prototype;

export const ArrayIsArray = Array.isArray;
export const NumberIsInteger = Number.isInteger;
export const MathAbs = Math.abs;
export const JSONStringify = JSON.stringify;
export const JSONParse = JSON.parse;
export const StringFromCharCode = String.fromCharCode;

type AnyFn = (...args: never[]) => unknown;
/** uncurry turns a prototype method into a function of (this, ...args). */
function uncurry<F extends AnyFn>(f: F): (self: unknown, ...args: Parameters<F>) => ReturnType<F> {
  return (self, ...args) => ReflectApply(f, self, args) as ReturnType<F>;
}

export const StringPrototypeCharCodeAt = uncurry(String.prototype.charCodeAt);
export const StringPrototypeSlice = uncurry(String.prototype.slice);
export const StringPrototypeIndexOf = uncurry(String.prototype.indexOf);
export const ArrayPrototypePush = uncurry(Array.prototype.push as (...items: unknown[]) => number);
export const ArrayPrototypeIncludes = uncurry(Array.prototype.includes as (v: unknown) => boolean);
export const SetPrototypeHas = uncurry(Set.prototype.has as (v: unknown) => boolean);
export const MapPrototypeGet = uncurry(Map.prototype.get as (k: unknown) => unknown);
export const RegExpPrototypeTest = uncurry(RegExp.prototype.test);
export const PromisePrototypeThen = uncurry(Promise.prototype.then as (a?: (v: unknown) => unknown, b?: (e: unknown) => unknown) => Promise<unknown>);

const TypedArrayPrototype = ObjectGetPrototypeOf(Uint8Array.prototype) as Uint8Array;
export const TypedArrayPrototypeSet = uncurry(TypedArrayPrototype.set as (a: ArrayLike<number>, offset?: number) => void);
export const TypedArrayPrototypeFill = uncurry(TypedArrayPrototype.fill as (v: number, start?: number, end?: number) => Uint8Array);
export const TypedArrayPrototypeSubarray = uncurry(TypedArrayPrototype.subarray as (a?: number, b?: number) => Uint8Array);
const getter = (k: string) => ReflectGetOwnPropertyDescriptor(TypedArrayPrototype, k)!.get!;
const lengthGetter = getter('length');
const bufferGetter = getter('buffer');
const byteOffsetGetter = getter('byteOffset');
/** TypedArrayLength reads a typed array's length without its (patchable) getter lookup. */
export const TypedArrayLength = (a: Uint8Array): number => ReflectApply(lengthGetter, a, []) as number;
export const TypedArrayBuffer = (a: Uint8Array): ArrayBufferLike => ReflectApply(bufferGetter, a, []) as ArrayBufferLike;
export const TypedArrayByteOffset = (a: Uint8Array): number => ReflectApply(byteOffsetGetter, a, []) as number;

const encoder = new TextEncoder();
const encodeInto = TextEncoder.prototype.encodeInto;
const encode = TextEncoder.prototype.encode;
/** TextEncode is UTF-8 of s, through the captured encoder. */
export const TextEncode = (s: string): Uint8Array => ReflectApply(encode, encoder, [s]) as Uint8Array;
/** TextEncodeInto writes UTF-8 of s into dst; it returns the bytes written. */
export const TextEncodeInto = (s: string, dst: Uint8Array): number => {
  const r = ReflectApply(encodeInto, encoder, [s, dst]) as { written: number };
  return r.written;
};

const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
const decode = TextDecoder.prototype.decode;
/** TextDecode decodes strict UTF-8 (it throws on invalid bytes), through the captured decoder. */
export const TextDecode = (b: Uint8Array): string => ReflectApply(decode, decoder, [b]) as string;

export const BufferByteLength = Buffer.byteLength;
/**
 * BufferAllocUnsafeSlow is a Buffer of its own memory: never Buffer.allocUnsafe's shared
 * pool, whose ArrayBuffer any plugin reaches through a small Buffer of its own.
 */
export const BufferAllocUnsafeSlow = Buffer.allocUnsafeSlow;

/**
 * wipe zeroes a buffer the host is done with: memory a plugin later gets from
 * Buffer.allocUnsafe or allocUnsafeSlow is not cleared, and would hold the frame.
 */
export const wipe = (b: Uint8Array, end?: number): void => { TypedArrayPrototypeFill(b, 0, 0, end); };
export const BufferConcat = Buffer.concat;
const BufferProto = Buffer.prototype as unknown as Record<string, unknown>;
const latin1Write = BufferProto.latin1Write as ((s: string, at: number, n: number) => number) | undefined;
/** BufferLatin1Write writes an ASCII string into buf at at, through the captured binding. */
export const BufferLatin1Write = (buf: Uint8Array, s: string, at: number): number => {
  if (latin1Write !== undefined) return ReflectApply(latin1Write, buf, [s, at, s.length]) as number;
  return TextEncodeInto(s, TypedArrayPrototypeSubarray(buf, at));
};
