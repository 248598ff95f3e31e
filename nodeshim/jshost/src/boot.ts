// Boot helpers: argv, stdio rebinding, the channel's descriptors and the watchdog thread.
import { createWriteStream } from 'node:fs';
import { createRequire } from 'node:module';
import { Socket } from 'node:net';
import type { Tier } from './protocol.generated.ts';
import { WATCHDOG, watchdogData } from './running.ts';
import { BufferAllocUnsafeSlow, TypedArrayPrototypeSet, TypedArrayPrototypeSubarray, wipe } from './primordials.ts';
import type {} from './runtime-globals.ts'; // declares globalThis.Bun, Worker and ShadowRealm

export const EXIT_USAGE = 64;
export const EXIT_PROTOCOL = 65;
export const EXIT_SOFTWARE = 70;
export const EXIT_CONFIG = 78;

/** parseTier reads --tier=plugin|builtin; none means plugin. It returns an error string on misuse. */
export function parseTier(argv: readonly string[]): Tier | { error: string } {
  let tier: Tier | undefined;
  for (const arg of argv) {
    if (arg === '--tier') return { error: '--tier needs a value: --tier=plugin or --tier=builtin' };
    if (!arg.startsWith('--tier=')) continue;
    if (tier !== undefined) return { error: '--tier given more than once' };
    const v = arg.slice('--tier='.length);
    if (v !== 'plugin' && v !== 'builtin') return { error: `unknown tier ${JSON.stringify(v)}: use --tier=plugin or --tier=builtin` };
    tier = v;
  }
  return tier ?? 'plugin';
}

/**
 * rebindStdio sends everything plugins print through console to stderr. Their fd 1 is not the
 * channel: the shim captures it with fd 2 and logs both as the host's lines.
 */
export function rebindStdio(): void {
  const out = process.stdout;
  out.write = process.stderr.write.bind(process.stderr);
  const toErr = console.error.bind(console);
  console.log = toErr;
  console.info = toErr;
  console.debug = toErr;
  console.dir = toErr;
  console.trace = (...a: unknown[]) => toErr(new Error(a.map(String).join(' ')).stack);
  const bun = globalThis.Bun;
  if (bun) Object.defineProperty(bun, 'stdout', { value: bun.stderr, writable: false });
}

/** The channel's descriptors, as the shim sets them up: frames in on fd 3, frames out on fd 4. */
export const CHANNEL_IN = 3;
export const CHANNEL_OUT = 4;

export interface Channel {
  input: NodeJS.ReadableStream;
  write: (chunk: Buffer, done?: () => void) => void;
  /** queued is the number of bytes written but not yet handed to the pipe. */
  queued: () => number;
}

/**
 * openChannel opens the channel on its descriptors. Node gets sockets over them (libuv polls the
 * pipe): an fs read stream would park a thread-pool thread in read(2), and Node's exit waits for
 * that thread, so the host could never exit while the shim keeps fd 3 open. Bun gets fs streams:
 * its net.Socket on a descriptor delivers nothing from a pipe, and its exit does not wait. A
 * write error means the shim is gone; the input's end follows and ends the host.
 */
export function openChannel(): Channel {
  lockHasInstance(Buffer);
  if (globalThis.Bun) {
    const io = capturedFs();
    // Bun's fs.ReadStream copies each chunk out of its pool with Buffer.prototype.copy, which a
    // plugin can replace: fd 3 is read here instead, with the captured fs.read
    const input = readLoop(io.read as ReadFn, CHANNEL_IN);
    const output = createWriteStream('', { fd: CHANNEL_OUT, highWaterMark: 1 << 20, fs: io as never });
    output.on('error', () => {});
    return sealChannel(input, output);
  }
  const input = new Socket({ fd: CHANNEL_IN, readable: true, writable: false });
  const output = new Socket({ fd: CHANNEL_OUT, readable: false, writable: true });
  output.on('error', () => {});
  return sealChannel(input, output);
}

/**
 * INPUT_KEYS and OUTPUT_KEYS are the methods a stream's internals look up on the stream as
 * they read or write (not the ones Node itself replaces on the instance, such as a socket's
 * write after its end).
 */
const INPUT_KEYS = ['push', 'unshift', 'emit', 'read', '_read'];
const OUTPUT_KEYS = ['write', '_write', '_writev', '_writeGeneric', 'emit', 'cork', 'uncork'];
/** HANDLE_KEYS are the methods Node's stream code calls on a socket's native handle. */
const HANDLE_KEYS = ['writeBuffer', 'writev', 'writeUtf8String', 'writeLatin1String', 'writeAsciiString', 'writeUcs2String', 'readStart', 'readStop', 'shutdown', 'close'];

/**
 * sealChannel pins, on the two streams (and on Node their native handles), the methods their
 * internals look up at each write and read, as own properties holding the functions of
 * now, before any plugin loads: a plugin that replaces Writable.prototype.write,
 * Socket.prototype._writeGeneric, the Pipe handle's writeBuffer (reachable through any pipe
 * it opens) or EventEmitter.prototype.emit sees no frame (ARCHITECTURE.md, “Trust model”).
 */
function sealChannel(input: NodeJS.ReadableStream, output: NodeJS.WritableStream & { writableLength: number }): Channel {
  for (const [stream, keys] of [[input, INPUT_KEYS], [output, OUTPUT_KEYS]] as const) {
    pin(stream, keys);
    const handle: unknown = Reflect.get(stream, '_handle');
    if (typeof handle === 'object' && handle !== null) pin(handle, HANDLE_KEYS);
  }
  hideHandles([input, output, Reflect.get(input, '_handle'), Reflect.get(output, '_handle')]);
  const write = Reflect.get(output, 'write') as (chunk: Uint8Array, cb?: () => void) => boolean;
  const queued = findGetter(output, 'writableLength');
  return {
    input,
    write: (chunk, done) => { Reflect.apply(write, output, [chunk, done]); },
    queued: () => (queued ? Reflect.apply(queued, output, []) as number : output.writableLength),
  };
}

/**
 * hideHandles leaves the channel's streams and handles out of process._getActiveHandles(),
 * which would otherwise hand a plugin the very sockets the frames pass through.
 */
function hideHandles(hidden: unknown[]): void {
  const list = Reflect.get(process, '_getActiveHandles') as (() => unknown[]) | undefined;
  if (typeof list !== 'function') return;
  const filter = Array.prototype.filter;
  const includes = Array.prototype.includes;
  const visible = function _getActiveHandles(): unknown[] {
    const all = Reflect.apply(list, process, []) as unknown[];
    return Reflect.apply(filter, all, [(h: unknown) => !(Reflect.apply(includes, hidden, [h]) as boolean)]) as unknown[];
  };
  Reflect.defineProperty(process, '_getActiveHandles', { value: visible, writable: false, enumerable: false, configurable: false });
}

function pin(target: object, keys: readonly string[]): void {
  for (const k of keys) {
    const v: unknown = Reflect.get(target, k);
    if (typeof v !== 'function') continue;
    Reflect.defineProperty(target, k, { value: v, writable: false, enumerable: false, configurable: false });
  }
}

function findGetter(o: object, k: string): (() => unknown) | undefined {
  for (let p: object | null = o; p !== null; p = Object.getPrototypeOf(p) as object | null) {
    const d = Reflect.getOwnPropertyDescriptor(p, k);
    if (d) return d.get;
  }
  return undefined;
}

/**
 * lockHasInstance pins C[Symbol.hasInstance] to the ordinary check: the writer asks
 * `chunk instanceof Buffer`, and a plugin could otherwise define one that sees each frame.
 */
function lockHasInstance(C: object): void {
  const ordinary = Reflect.get(Function.prototype, Symbol.hasInstance) as (v: unknown) => boolean;
  Reflect.defineProperty(C, Symbol.hasInstance, { value: ordinary, writable: false, enumerable: false, configurable: false });
}

type ReadFn = (fd: number, buf: Uint8Array, off: number, len: number, pos: null, cb: (err: Error | null, n: number) => void) => void;

/**
 * readLoop reads fd into a private buffer with read, and emits each chunk as 'data' in a
 * buffer of its own, then 'end' at EOF or 'error'. Only the host listens.
 */
function readLoop(read: ReadFn, fd: number): NodeJS.ReadableStream {
  const listeners: Record<string, ((v?: unknown) => void)[]> = { data: [], end: [], error: [] };
  const emit = (ev: string, v?: unknown) => { for (const f of listeners[ev] ?? []) f(v); };
  const buf = BufferAllocUnsafeSlow(1 << 20);
  const next = () => {
    Reflect.apply(read, undefined, [fd, buf, 0, 1 << 20, null, (err: Error | null, n: number) => {
      if (err) {
        if ((err as { code?: string }).code === 'EAGAIN') return void setTimeout(next, 1);
        return emit('error', err);
      }
      if (n === 0) return emit('end');
      const chunk = BufferAllocUnsafeSlow(n);
      TypedArrayPrototypeSet(chunk, TypedArrayPrototypeSubarray(buf, 0, n), 0);
      wipe(buf, n);
      emit('data', chunk);
      next();
    }]);
  };
  setImmediate(next);
  const input = { on: (ev: string, f: (v?: unknown) => void) => { (listeners[ev] ??= []).push(f); return input; } };
  return input as unknown as NodeJS.ReadableStream;
}

/** capturedFs is the fs functions Bun's fs streams call (their `fs` option), as of now. */
function capturedFs(): Record<string, unknown> {
  const fs = createRequire(import.meta.url)('node:fs') as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const k of ['open', 'close', 'read', 'write', 'writev', 'fsync']) if (typeof fs[k] === 'function') out[k] = fs[k];
  return out;
}

/**
 * startWatchdog starts the host's watchdog thread (WATCHDOG in running.ts): it kills the host
 * when the parent (the shim, whose pid is in CWX_HOST_PARENT_PID) is gone, and it names the
 * owner whose callback holds the event loop (host/busy on fd 4). It runs on its own thread, so
 * a plugin that blocks the event loop cannot stop it. It must start before the lockdown
 * refuses Workers; it returns the way to send the thread an owner's host/busy frame.
 */
export function startWatchdog(env: NodeJS.ProcessEnv): (index: number, frame: Uint8Array) => void {
  const p = Number(env.CWX_HOST_PARENT_PID);
  const parent = Number.isSafeInteger(p) && p > 1 ? p : 0;
  // required, not imported: Bun snapshots a builtin's ESM namespace at its first import, and the
  // lockdown must still be able to replace Worker in it afterwards.
  const { Worker } = createRequire(import.meta.url)('node:worker_threads') as typeof import('node:worker_threads');
  const w = new Worker(WATCHDOG, { eval: true, workerData: { parent, self: process.pid, ppid: process.ppid, ...watchdogData(CHANNEL_OUT) } });
  w.unref();
  const post = w.postMessage.bind(w);
  return (index, frame) => post({ index, frame });
}
