// Whose code runs: the host notes the owner in a shared word before it calls any plugin code
// (apply, a tool's execute, a command's handler, a hook, and every timer, immediate, microtask
// or nextTick callback scheduled inside an owner's async context) and restores the previous
// note when that call returns. The word lives in a SharedArrayBuffer that the host's watchdog
// thread reads: when the event loop has stayed inside one callback for BUSY_MS, the watchdog
// writes a host/busy notification naming the owner straight onto the channel (fd 4), so the
// core knows whose code blocks the host even though the JS thread never yields again; when
// that callback returns after all, the host says so with a host/busy without an owner. Noting
// costs two atomic stores per callback and no frame (ARCHITECTURE.md, “Lifecycles and
// numbers”, Blame).
//
// The channel has two writers then, so the word next to it is a lock: the host holds it (1)
// from a write until its stream has nothing queued; the watchdog takes it (2) only when it is
// free, for one write of a frame under PIPE_BUF bytes, which a pipe takes whole or not at all.
import { createRequire } from 'node:module';
import type {} from './runtime-globals.ts';
import { ownerContext, type OwnerRecord } from './owner.ts';

const OWNER = 0; // index of the owner whose callback runs; 0 for none
const SEQ = 1; // bumped at every enter and leave
const WRITE = 2; // the channel's lock: 0 free, 1 the host writes, 2 the watchdog writes
const TOLD = 3; // 1 once the watchdog sent a host/busy for the callback now running

/** BUSY_MS is how long one callback may hold the event loop before the watchdog names it. */
export const BUSY_MS = 500;
/** TICK_MS is how often the watchdog looks. */
export const TICK_MS = 100;
/** PIPE_BUF is the size up to which one write to a pipe is atomic (POSIX; 4096 on Linux). */
const PIPE_BUF = 4096;

// made at start-up (watchdogData, before the watchdog and any plugin), not at module load: a Node startup snapshot is built where
// SharedArrayBuffer does not exist, and a buffer from the snapshot would not be the one shared
// with the watchdog thread
let shared: SharedArrayBuffer | undefined;
let words: Int32Array<ArrayBufferLike> = new Int32Array(4);

/** initNotes makes the shared words once, before the watchdog starts, and returns their buffer. */
function initNotes(): SharedArrayBuffer {
  if (shared === undefined) {
    shared = new SharedArrayBuffer(4 * Int32Array.BYTES_PER_ELEMENT);
    words = new Int32Array(shared);
  }
  return shared;
}
// captured before any plugin loads: a plugin replacing Atomics cannot reach these
const { load, store, compareExchange, add } = Atomics;

let post: ((index: number, frame: Uint8Array) => void) | undefined;
let cleared: (() => void) | undefined;
let next = 1;
const indexOf = new WeakMap<OwnerRecord, number>();

/**
 * configure connects the notes to the watchdog (post sends an owner's host/busy frame to it)
 * and to the channel (clear sends host/busy without an owner).
 */
export function configure(o: { post: (index: number, frame: Uint8Array) => void; clear: () => void }): void {
  post = o.post;
  cleared = o.clear;
}

/** busyFrame encodes the host/busy frame of one owner; set by the host, which owns the encoder. */
let busyFrame: ((owner: OwnerRecord) => Uint8Array | undefined) | undefined;
export function setBusyFrame(f: (owner: OwnerRecord) => Uint8Array | undefined): void {
  busyFrame = f;
}

function indexFor(owner: OwnerRecord): number {
  let i = indexOf.get(owner);
  if (i !== undefined) return i;
  i = next++;
  indexOf.set(owner, i);
  const frame = busyFrame?.(owner);
  if (frame !== undefined && frame.byteLength <= PIPE_BUF) post?.(i, frame);
  return i;
}

/** enter notes that owner's code is about to run and returns the note to restore. */
export function enter(owner: OwnerRecord): number {
  const prev = load(words, OWNER);
  store(words, OWNER, indexFor(owner));
  add(words, SEQ, 1);
  return prev;
}

/** leave restores the note enter returned, once the owner's call returned (or threw). */
export function leave(prev: number): void {
  store(words, OWNER, prev);
  add(words, SEQ, 1);
  if (load(words, TOLD) !== 0) {
    store(words, TOLD, 0);
    cleared?.();
  }
}

/** runAs calls fn as owner's code: noted before, restored after. */
export function runAs<T>(owner: OwnerRecord, fn: () => T): T {
  const prev = enter(owner);
  try {
    return fn();
  } finally {
    leave(prev);
  }
}

/** current is the index noted now (0: no plugin code runs); for tests. */
export function current(): number {
  return load(words, OWNER);
}

/** lockChannel takes the channel for the host; it waits only while the watchdog writes one frame. */
export function lockChannel(): void {
  while (compareExchange(words, WRITE, 0, 1) === 2) {
    // the watchdog is inside one write(2) of at most PIPE_BUF bytes
  }
}

/** unlockChannel frees the channel once the host's stream has nothing left to write. */
export function unlockChannel(): void {
  compareExchange(words, WRITE, 1, 0);
}

/** owned wraps cb so that it runs noted as the owner whose async context scheduled it. */
function owned(cb: unknown): unknown {
  if (typeof cb !== 'function') return cb;
  const owner = ownerContext.getStore();
  if (owner === undefined) return cb;
  const fn = cb;
  return function (this: unknown, ...args: unknown[]) {
    const prev = enter(owner);
    try {
      return Reflect.apply(fn, this, args);
    } finally {
      leave(prev);
    }
  };
}

function wrapScheduler(target: object, key: string): void {
  const original: unknown = Reflect.get(target, key);
  if (typeof original !== 'function') return;
  const orig = original;
  const wrapped = function (this: unknown, cb: unknown, ...rest: unknown[]) {
    return Reflect.apply(orig, this, [owned(cb), ...rest]);
  };
  // keep what the runtime hangs on the function (util.promisify.custom, __promisify__)
  for (const k of Reflect.ownKeys(orig)) {
    if (k === 'length' || k === 'name' || k === 'prototype') continue;
    const d = Reflect.getOwnPropertyDescriptor(orig, k);
    if (d) Reflect.defineProperty(wrapped, k, d);
  }
  Object.defineProperty(wrapped, 'name', { value: orig.name });
  Reflect.set(target, key, wrapped);
}

/**
 * noteSchedulers makes every callback scheduled through the global timers (and node:timers),
 * queueMicrotask and process.nextTick run noted as its owner. It runs before any plugin loads.
 */
export function noteSchedulers(): void {
  const timers: object = createRequire(import.meta.url)('node:timers');
  for (const key of ['setTimeout', 'setInterval', 'setImmediate']) {
    const same = Reflect.get(timers, key) === Reflect.get(globalThis, key);
    wrapScheduler(globalThis, key);
    if (same) Reflect.set(timers, key, Reflect.get(globalThis, key));
    else wrapScheduler(timers, key);
  }
  wrapScheduler(globalThis, 'queueMicrotask');
  wrapScheduler(process, 'nextTick');
}

/** WATCHDOG is the watchdog thread: the parent check of boot.ts and the busy report. */
export const WATCHDOG = `
const { workerData, parentPort } = require('node:worker_threads');
const { writeSync } = require('node:fs');
const { parent, self, ppid, words: sab, fd, busyMs, tickMs } = workerData;
const w = new Int32Array(sab);
const frames = new Map();
parentPort.on('message', (m) => { frames.set(m.index, m.frame); });
const gone = () => {
  try { process.kill(parent, 0); } catch (e) { if (e && e.code === 'ESRCH') return true; }
  return ppid === parent && process.ppid !== parent;
};
let seq = -1, since = Date.now(), told = -1, ticks = 0;
setInterval(() => {
  if (parent > 1 && ++ticks % 5 === 0 && gone()) {
    try { process.kill(-self, 'SIGKILL'); } catch {}
    process.kill(self, 'SIGKILL');
  }
  const owner = Atomics.load(w, ${OWNER});
  const q = Atomics.load(w, ${SEQ});
  if (owner === 0 || q !== seq) { seq = q; since = Date.now(); return; }
  if (told === q || Date.now() - since < busyMs) return;
  const frame = frames.get(owner);
  if (frame === undefined || fd < 0) return;
  if (Atomics.compareExchange(w, ${WRITE}, 0, 2) !== 0) return;
  try {
    if (writeSync(fd, frame) === frame.byteLength) { told = q; Atomics.store(w, ${TOLD}, 1); }
  } catch {
    // EAGAIN: the pipe is full; the next tick tries again
  } finally {
    Atomics.store(w, ${WRITE}, 0);
  }
}, tickMs);
`;

/** watchdogData is what the watchdog thread needs to read the notes and write on fd. */
export function watchdogData(fd: number): { words: SharedArrayBuffer; fd: number; busyMs: number; tickMs: number } {
  return { words: initNotes(), fd, busyMs: BUSY_MS, tickMs: TICK_MS };
}
