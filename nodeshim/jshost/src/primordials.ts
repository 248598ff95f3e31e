// Primordials: the built-ins the host's own encoder, frame writer, decoder and validator
// use, captured when the bundle is evaluated, before any plugin loads. All plugins of a tier
// share one realm, so a plugin could otherwise wrap JSON.stringify, Object.keys, an array
// iterator, TextEncoder.prototype.encode or a Buffer method and read every frame of the
// tier, other plugins' tickets and owner tokens included (ARCHITECTURE.md, “Trust model”).
// Prototype methods are kept uncurried and called through the captured Reflect.apply;
// nothing here is looked up on a prototype at call time.
const R = Reflect;
export const ReflectApply = R.apply;
export const ReflectGet = R.get;
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

/**
 * uncurry turns a prototype method into a function of (this, ...args). The method's declared
 * type says which receiver it takes; where the library declares it on `any[]` or `Set<any>`, the
 * typed constant it is first assigned to says it instead.
 */
function uncurry<T, A extends unknown[], R>(f: (this: T, ...args: A) => R): (self: T, ...args: A) => R {
  return (self, ...args) => ReflectApply(f, self, args);
}

const arrayPush: (this: unknown[], ...items: unknown[]) => number = Array.prototype.push;
const arrayIncludes: (this: readonly unknown[], v: unknown) => boolean = Array.prototype.includes;
const setHas: (this: ReadonlySet<unknown>, v: unknown) => boolean = Set.prototype.has;
const mapGet: (this: ReadonlyMap<unknown, unknown>, k: unknown) => unknown = Map.prototype.get;
const promiseThen: (this: Promise<unknown>, a?: (v: unknown) => unknown, b?: (e: unknown) => unknown) => Promise<unknown> = Promise.prototype.then;

export const StringPrototypeCharCodeAt = uncurry(String.prototype.charCodeAt);
export const StringPrototypeSlice = uncurry(String.prototype.slice);
export const StringPrototypeIndexOf = uncurry(String.prototype.indexOf);
export const ArrayPrototypePush = uncurry(arrayPush);
export const ArrayPrototypeIncludes = uncurry(arrayIncludes);
export const SetPrototypeHas = uncurry(setHas);
export const MapPrototypeGet = uncurry(mapGet);
export const RegExpPrototypeTest = uncurry(RegExp.prototype.test);
export const PromisePrototypeThen = uncurry(promiseThen);

// %TypedArray%.prototype's methods, read through Uint8Array.prototype (which inherits them); its
// accessors are read as own properties of %TypedArray%.prototype itself
const u8: Uint8Array = Uint8Array.prototype;
const typedArraySet: (this: Uint8Array, a: ArrayLike<number>, offset?: number) => void = u8.set;
const typedArrayFill: (this: Uint8Array, v: number, start?: number, end?: number) => Uint8Array = u8.fill;
const typedArraySubarray: (this: Uint8Array, a?: number, b?: number) => Uint8Array = u8.subarray;
const typedArrayIndexOf: (this: Uint8Array, v: number, from?: number) => number = u8.indexOf;
export const TypedArrayPrototypeSet = uncurry(typedArraySet);
export const TypedArrayPrototypeIndexOf = uncurry(typedArrayIndexOf);
export const TypedArrayPrototypeFill = uncurry(typedArrayFill);
export const TypedArrayPrototypeSubarray = uncurry(typedArraySubarray);
const TypedArrayPrototype: object = ObjectGetPrototypeOf(Uint8Array.prototype);
function getter(k: 'length' | 'buffer' | 'byteOffset') {
  const get = ReflectGetOwnPropertyDescriptor(TypedArrayPrototype, k)?.get;
  if (get === undefined) throw new Error(`%TypedArray%.prototype.${k} is not an accessor in this runtime`);
  return get;
}
const lengthGetter: (this: Uint8Array) => number = getter('length');
const bufferGetter: (this: Uint8Array) => ArrayBufferLike = getter('buffer');
const byteOffsetGetter: (this: Uint8Array) => number = getter('byteOffset');
/** TypedArrayLength reads a typed array's length without its (patchable) getter lookup. */
export const TypedArrayLength = (a: Uint8Array): number => ReflectApply(lengthGetter, a, []);
export const TypedArrayBuffer = (a: Uint8Array): ArrayBufferLike => ReflectApply(bufferGetter, a, []);
export const TypedArrayByteOffset = (a: Uint8Array): number => ReflectApply(byteOffsetGetter, a, []);

const encoder = new TextEncoder();
const encodeInto = TextEncoder.prototype.encodeInto;
const encode = TextEncoder.prototype.encode;
/** TextEncode is UTF-8 of s, through the captured encoder. */
export const TextEncode = (s: string): Uint8Array => ReflectApply(encode, encoder, [s]);
/** TextEncodeInto writes UTF-8 of s into dst; it returns the bytes written. */
export const TextEncodeInto = (s: string, dst: Uint8Array): number => {
  return ReflectApply(encodeInto, encoder, [s, dst]).written;
};

const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
const decode = TextDecoder.prototype.decode;
/** TextDecode decodes strict UTF-8 (it throws on invalid bytes), through the captured decoder. */
export const TextDecode = (b: Uint8Array): string => ReflectApply(decode, decoder, [b]);

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
// Node's Buffer binding, undocumented (so untyped): Bun has none, and the UTF-8 path below runs there
const latin1Write: unknown = Reflect.get(Buffer.prototype, 'latin1Write');
/** BufferLatin1Write writes an ASCII string into buf at at, through the captured binding. */
export const BufferLatin1Write = (buf: Uint8Array, s: string, at: number): number => {
  if (typeof latin1Write === 'function') {
    const n: unknown = ReflectApply(latin1Write, buf, [s, at, s.length]);
    if (typeof n === 'number') return n;
  }
  return TextEncodeInto(s, TypedArrayPrototypeSubarray(buf, at));
};
