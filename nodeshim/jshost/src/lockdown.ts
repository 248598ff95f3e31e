// Native-code lockdown, applied before any plugin loads and then verified through the same entry
// points a plugin would use; the host refuses to run when a lock does not hold. Both runtimes:
// process.dlopen, process.execve and Worker threads are refused. Bun: the bun:ffi, Bun.FFI,
// bun:sqlite and node:sqlite exports throw, and ShadowRealm must be off engine-wide
// (BUN_JSC_useShadowRealm=0, set by the core). Node: node:sqlite (and node:ffi where it exists)
// are switched off by the flags the core passes, which is checked here.
import { createRequire } from 'node:module';
import * as nodeModule from 'node:module';
import type {} from './runtime-globals.ts'; // declares globalThis.Bun, Worker and ShadowRealm

const require = createRequire(import.meta.url);

export class NativeCodeRefused extends Error {
  override name = 'NativeCodeRefused';
  constructor(what: string) {
    super(`\`${what}\` is refused: cwx plugins may not load native code or start threads`);
  }
}

function refuser(what: string) {
  return function refused(): never {
    throw new NativeCodeRefused(what);
  };
}

function lockValue(target: object, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, writable: false, configurable: false, enumerable: false });
}

function lockGetters(target: object, what: string): void {
  for (const key of Object.keys(target)) {
    if (key === '__esModule') continue;
    const getter = () => {
      throw new NativeCodeRefused(`${what}.${key}`);
    };
    try {
      Object.defineProperty(target, key, { get: getter, configurable: false, enumerable: true });
    } catch {
      // verified below: a key that cannot be locked makes verification fail
    }
  }
}

/** lockdown installs every lock for the running runtime. */
export function lockdown(): void {
  lockValue(process, 'dlopen', refuser('process.dlopen'));
  if ('execve' in process) lockValue(process, 'execve', refuser('process.execve'));
  const RefusedWorker = class Worker {
    constructor() {
      throw new NativeCodeRefused('Worker');
    }
  };
  const wt: object = require('node:worker_threads');
  Reflect.set(wt, 'Worker', RefusedWorker);
  Object.defineProperty(wt, 'Worker', { value: RefusedWorker, writable: false, configurable: false });
  if ('Worker' in globalThis) lockValue(globalThis, 'Worker', RefusedWorker);
  // optional: not every runtime's node:module has it
  const sync: (() => void) | undefined = nodeModule.syncBuiltinESMExports;
  sync?.();
  const Bun = globalThis.Bun;
  if (Bun === undefined) return;
  lockGetters(require('bun:ffi'), 'bun:ffi');
  const blocked = new Proxy(Object.freeze({}), {
    get(_t, key) {
      throw new NativeCodeRefused(`Bun.FFI.${String(key)}`);
    },
  });
  Object.defineProperty(Bun, 'FFI', { value: blocked, writable: false });
  lockGetters(require('bun:sqlite'), 'bun:sqlite');
  const nodeSqlite: object = require('node:sqlite');
  for (const [name, value] of Object.entries(nodeSqlite)) {
    if (typeof value !== 'function' || !value.prototype) continue;
    for (const key of Object.getOwnPropertyNames(value.prototype)) {
      if (key === 'constructor') continue;
      try {
        Object.defineProperty(value.prototype, key, { value: refuser(`node:sqlite ${name}#${key}`), writable: false, configurable: false });
      } catch {
        // verified below
      }
    }
  }
  lockGetters(nodeSqlite, 'node:sqlite');
}

async function refuses(what: string, probe: () => unknown): Promise<string | null> {
  try {
    await probe();
    return `${what} is reachable`;
  } catch {
    return null;
  }
}

/** verifyLockdown probes every entry point and returns the ones that are still open. */
export async function verifyLockdown(): Promise<string[]> {
  const open: (string | null)[] = [];
  const dyn = (s: string) => import(s);
  // process.dlopen of a missing file also throws; make sure the throw is ours.
  try {
    process.dlopen({ exports: {} }, '/nonexistent-cwx-probe.node');
  } catch (err) {
    if (!(err instanceof NativeCodeRefused)) open.push('process.dlopen is reachable');
  }
  if ('execve' in process) {
    try {
      process.execve('/nonexistent-cwx-probe');
    } catch (err) {
      if (!(err instanceof NativeCodeRefused)) open.push('process.execve is reachable');
    }
  }
  open.push(await refuses('worker_threads.Worker', async () => {
    const { Worker } = await dyn('node:worker_threads');
    new Worker('', { eval: true });
  }));
  if ('Worker' in globalThis) {
    open.push(await refuses('Worker', () => {
      const W = globalThis.Worker;
      if (W === undefined) throw new TypeError('Worker is not a constructor');
      return new W('data:text/javascript,0');
    }));
  }
  const bun = globalThis.Bun;
  if (bun !== undefined) {
    open.push(await refuses('bun:ffi', async () => (await dyn('bun:ffi')).dlopen));
    open.push(await refuses('Bun.FFI', () => bun.FFI.dlopen));
    open.push(await refuses('bun:sqlite', async () => (await dyn('bun:sqlite')).Database));
    open.push(await refuses('node:sqlite', async () => {
      const { DatabaseSync } = await dyn('node:sqlite');
      new DatabaseSync(':memory:').exec('select 1');
    }));
  } else {
    open.push(await refuses('node:sqlite', () => dyn('node:sqlite')));
    open.push(await refuses('node:ffi', () => dyn('node:ffi')));
  }
  if (typeof globalThis.ShadowRealm !== 'undefined') open.push('ShadowRealm is enabled');
  try {
    const vm = await dyn('node:vm');
    if (vm.runInNewContext('typeof ShadowRealm') !== 'undefined') open.push('ShadowRealm is enabled in node:vm contexts');
  } catch {
    // no vm contexts at all is fine
  }
  return open.filter((x): x is string => x !== null);
}
