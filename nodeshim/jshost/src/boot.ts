// Boot helpers: argv, stdio rebinding, the channel's descriptors and the watchdog thread.
import { createWriteStream } from 'node:fs';
import { createRequire } from 'node:module';
import type { Tier } from './protocol.generated.ts';
import { WATCHDOG, watchdogData } from './running.ts';
import { BufferAllocUnsafeSlow, TypedArrayPrototypeSubarray, wipe } from './primordials.ts';
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

/**
 * ChannelInput is the part of a readable stream the host uses: its three events. A data chunk is
 * the listener's only during its call (on Bun it is a view of the read buffer, wiped and reused
 * once the listeners returned): the frame decoder copies it out at once.
 */
export interface ChannelInput {
  on(event: 'data', f: (chunk: Uint8Array) => void): unknown;
  on(event: 'end' | 'error', f: () => void): unknown;
}

export interface Channel {
  input: ChannelInput;
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
    const input = readLoop(io.read, CHANNEL_IN);
    const output = createWriteStream('', { fd: CHANNEL_OUT, highWaterMark: 1 << 20, fs: io });
    output.on('error', () => {});
    return sealChannel(input, output);
  }
  // required, not imported: Bun snapshots a builtin's ESM namespace at its first import, and
  // the fetch proxy (net/refuse.ts) must still be able to replace node:net's exports afterwards
  const { Socket }: typeof import('node:net') = createRequire(import.meta.url)('node:net'); // require is untyped
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
function sealChannel(input: ChannelInput, output: NodeJS.WritableStream & { writableLength: number }): Channel {
  for (const [stream, keys] of [[input, INPUT_KEYS], [output, OUTPUT_KEYS]] as const) {
    pin(stream, keys);
    const handle: unknown = Reflect.get(stream, '_handle');
    if (typeof handle === 'object' && handle !== null) pin(handle, HANDLE_KEYS);
  }
  hideHandles([input, output, Reflect.get(input, '_handle'), Reflect.get(output, '_handle')]);
  const write: unknown = Reflect.get(output, 'write'); // pinned above
  if (typeof write !== 'function') throw new TypeError('the channel output has no write method');
  const queued = findGetter(output, 'writableLength');
  return {
    input,
    write: (chunk, done) => { Reflect.apply(write, output, [chunk, done]); },
    queued: () => {
      const n: unknown = queued ? Reflect.apply(queued, output, []) : output.writableLength;
      return typeof n === 'number' ? n : 0;
    },
  };
}

/**
 * hideHandles leaves the channel's streams and handles out of process._getActiveHandles(),
 * which would otherwise hand a plugin the very sockets the frames pass through.
 */
function hideHandles(hidden: unknown[]): void {
  const list: unknown = Reflect.get(process, '_getActiveHandles');
  if (typeof list !== 'function') return;
  const isArray = Array.isArray;
  const filter: (this: unknown[], keep: (h: unknown) => boolean) => unknown[] = Array.prototype.filter;
  const includes: (this: readonly unknown[], v: unknown) => boolean = Array.prototype.includes;
  const visible = function _getActiveHandles(): unknown[] {
    const all: unknown = Reflect.apply(list, process, []);
    if (!isArray(all)) return [];
    return Reflect.apply(filter, all, [(h: unknown) => !Reflect.apply(includes, hidden, [h])]);
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
  for (let p: unknown = o; typeof p === 'object' && p !== null; p = Object.getPrototypeOf(p)) {
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
  const ordinary = Reflect.get(Function.prototype, Symbol.hasInstance);
  Reflect.defineProperty(C, Symbol.hasInstance, { value: ordinary, writable: false, enumerable: false, configurable: false });
}

/**
 * readLoop reads fd into a private buffer with read, and emits each chunk as 'data', a view
 * of that buffer wiped once the listeners returned (the frame decoder copies it out during the
 * call: no copy of its own first), then 'end' at EOF or 'error'. Only the host listens.
 */
function readLoop(read: typeof import('node:fs').read, fd: number): ChannelInput {
  const data: ((chunk: Uint8Array) => void)[] = [];
  const done: { end: (() => void)[]; error: (() => void)[] } = { end: [], error: [] };
  // by index, never through the array iterator, which a plugin can replace (and see the chunk)
  const emit = (fns: readonly (() => void)[]) => { for (let i = 0; i < fns.length; i++) fns[i]?.(); };
  const buf = BufferAllocUnsafeSlow(1 << 20);
  // called as a plain function, as Reflect.apply(read, undefined, ...) would: nothing is looked up
  const next = () => read(fd, buf, 0, 1 << 20, null, (err, n) => {
    if (err) {
      if (err.code === 'EAGAIN') return void setTimeout(next, 1);
      return emit(done.error);
    }
    if (n === 0) return emit(done.end);
    const chunk = TypedArrayPrototypeSubarray(buf, 0, n); // the listeners' during their call only (ChannelInput)
    try {
      for (let i = 0; i < data.length; i++) data[i]?.(chunk);
    } finally {
      wipe(buf, n);
    }
    next();
  });
  setImmediate(next);
  const input: ChannelInput = {
    on(event: 'data' | 'end' | 'error', f: ((chunk: Uint8Array) => void) & (() => void)) {
      if (event === 'data') data.push(f);
      else done[event].push(f);
      return input;
    },
  };
  return input;
}

/** capturedFs is the fs functions Bun's fs streams call (their `fs` option), as of now. */
function capturedFs() {
  const fs: typeof import('node:fs') = createRequire(import.meta.url)('node:fs'); // require is untyped
  const { open, close, read, write, writev, fsync } = fs;
  return { open, close, read, write, writev, fsync };
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
  const threads: typeof import('node:worker_threads') = createRequire(import.meta.url)('node:worker_threads'); // require is untyped
  const { Worker } = threads;
  const w = new Worker(WATCHDOG, { eval: true, workerData: { parent, self: process.pid, ppid: process.ppid, ...watchdogData(CHANNEL_OUT) } });
  w.unref();
  const post = w.postMessage.bind(w);
  return (index, frame) => post({ index, frame });
}
