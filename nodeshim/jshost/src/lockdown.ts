// Native-code lockdown, applied before any plugin loads and then verified through the same entry
// points a plugin would use; the host refuses to run when a lock does not hold. Both runtimes:
// process.dlopen, process.execve and Worker threads are refused. Bun: the bun:ffi, Bun.FFI,
// bun:sqlite and node:sqlite exports throw, and ShadowRealm must be off engine-wide
// (BUN_JSC_useShadowRealm=0, set by the core). Node: node:sqlite (and node:ffi where it exists)
// are switched off by the flags the core passes, which is checked here. process.mainModule, which
// a CommonJS entry (the Node snapshot's, Bun's bytecode build) would leave to plugin code as a
// way to the host's own require, is removed on both, as under the ESM bundle.
import { createRequire } from 'node:module';
import * as nodeModule from 'node:module';
import type {} from './runtime-globals.ts'; // declares globalThis.Bun, Worker and ShadowRealm
import { importModule } from './importer.ts';

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
  lockValue(process, 'mainModule', undefined);
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

/** field reads key of a module namespace (or any object) the probes imported. */
function field(mod: unknown, key: string): unknown {
  return typeof mod === 'object' && mod !== null ? Reflect.get(mod, key) : undefined;
}

/** construct calls C with new, as plugin code would; a C that is not a constructor throws. */
function construct(C: unknown, args: unknown[]): unknown {
  if (typeof C !== 'function') throw new TypeError('not a constructor');
  return Reflect.construct(C, args);
}

/**
 * verifyLockdown probes every entry point and returns the ones that are still open. The probes
 * import through the host's importer (importer.ts): under a startup snapshot a bare import()
 * would fail for its own reason, and the probe would pass without proving anything.
 */
export async function verifyLockdown(): Promise<string[]> {
  const open: (string | null)[] = [];
  const dyn = importModule;
  // process.dlopen of a missing file also throws; make sure the throw is ours.
  try {
    process.dlopen({ exports: {} }, '/nonexistent-cwx-probe.node');
  } catch (err) {
    if (!(err instanceof NativeCodeRefused)) open.push('process.dlopen is reachable');
  }
  if (Reflect.get(process, 'mainModule') !== undefined) open.push('process.mainModule is reachable');
  if ('execve' in process) {
    try {
      process.execve('/nonexistent-cwx-probe');
    } catch (err) {
      if (!(err instanceof NativeCodeRefused)) open.push('process.execve is reachable');
    }
  }
  // the importer itself must work, or every probe below would pass for the wrong reason
  if (typeof field(await dyn('node:path'), 'join') !== 'function') open.push('the host cannot import modules');
  open.push(await refuses('worker_threads.Worker', async () => {
    construct(field(await dyn('node:worker_threads'), 'Worker'), ['', { eval: true }]);
  }));
  if ('Worker' in globalThis) {
    open.push(await refuses('Worker', () => construct(globalThis.Worker, ['data:text/javascript,0'])));
  }
  const bun = globalThis.Bun;
  if (bun !== undefined) {
    open.push(await refuses('bun:ffi', async () => field(await dyn('bun:ffi'), 'dlopen')));
    open.push(await refuses('Bun.FFI', () => bun.FFI.dlopen));
    open.push(await refuses('bun:sqlite', async () => field(await dyn('bun:sqlite'), 'Database')));
    open.push(await refuses('node:sqlite', async () => {
      const db = construct(field(await dyn('node:sqlite'), 'DatabaseSync'), [':memory:']);
      const exec = field(db, 'exec');
      if (typeof exec === 'function') Reflect.apply(exec, db, ['select 1']);
    }));
  } else {
    open.push(await refuses('node:sqlite', () => dyn('node:sqlite')));
    open.push(await refuses('node:ffi', () => dyn('node:ffi')));
    // --disable-proto=throw is a run-time flag (a startup snapshot is built without it)
    open.push(protoOpen());
  }
  if (typeof globalThis.ShadowRealm !== 'undefined') open.push('ShadowRealm is enabled');
  try {
    const vm = await dyn('node:vm');
    const run = field(vm, 'runInNewContext');
    if (typeof run === 'function' && Reflect.apply(run, vm, ['typeof ShadowRealm']) !== 'undefined') open.push('ShadowRealm is enabled in node:vm contexts');
  } catch {
    // no vm contexts at all is fine
  }
  return open.filter((x): x is string => x !== null);
}

/** protoOpen checks that Object.prototype.__proto__ throws ERR_PROTO_ACCESS (Node's --disable-proto=throw). */
function protoOpen(): string | null {
  try {
    void Reflect.get({}, '__proto__');
  } catch (err) {
    if (field(err, 'code') === 'ERR_PROTO_ACCESS') return null;
  }
  return '__proto__ is reachable (--disable-proto=throw is not in effect)';
}
