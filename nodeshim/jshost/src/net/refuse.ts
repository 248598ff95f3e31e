// The ways out a sandboxed host refuses, naming the fetch proxy (core/protocol doc.go, “The fetch
// proxy”). The sandbox (no network namespace of its own) is what contains a plugin; these
// refusals only make the failure say what to do instead, where a connect would otherwise fail
// with a bare ECONNREFUSED or a DNS error.
//
// Refused: `node:http`, `node:https`, `node:http2`, `node:net`, `node:tls`, `node:dgram` (and
// Node's legacy `_http_*`/`_tls_*` ids), the `undici` package (Bun's builtin one, or a copy in a
// plugin's node_modules), the globals `WebSocket` and `EventSource`, and on Bun `Bun.connect`,
// `Bun.listen` and `Bun.udpSocket`. A refused module still imports (a library that imports
// `node:https` at its top, or builds an `https.Agent` there, still loads): its functions and
// classes throw NetworkRefused when called or constructed, its constants and pure helpers
// (`net.isIP`, `http.STATUS_CODES`, `http.validateHeaderName`, …) are the real ones, and its
// `Agent` is the real class with a `createConnection` that refuses. An undici from node_modules
// fails its import: it would reach the network through the modules above anyway.
//
// How each runtime is reached. Node: a module.registerHooks resolve hook (the one that serves the
// DSH modules, dsh/resolve.ts) sends the refused ids to a generated module and refuses a resolved
// path inside node_modules/undici; `process.getBuiltinModule` is wrapped to match. Node's own
// modules never pass the hooks, so its internals (child_process builds its pipes with
// `net.Socket`) keep working. Bun: its resolver never calls a plugin for a builtin id, so the
// builtin modules' exports are replaced in place before any plugin's first import (Bun snapshots
// a builtin's ESM namespace then: boot.ts reads `node:net` with require for that reason), and
// Bun.plugin's onLoad refuses a node_modules undici. The host's own channel (boot.ts) was opened
// before, with the sockets it keeps.
import * as nodeModule from 'node:module';
import { createRequire } from 'node:module';
import { ownerContext } from '../owner.ts';
import type { BunPluginBuilder, BunRuntime } from '../runtime-globals.ts';

const require = createRequire(import.meta.url);

/** NetworkRefused is what a refused module, global or Bun API throws. */
export class NetworkRefused extends Error {
  override name = 'NetworkRefused';
  constructor(what: string) {
    const id = ownerContext.getStore()?.ref.plugin_id ?? '<id>';
    super(`${what} is not available in a sandboxed cwx host: use fetch, which goes through cwx's fetch proxy; `
      + `the origin must be in the plugin's network grant ([plugins.${JSON.stringify(id)}] network in config.toml)`);
  }
}
Object.freeze(NetworkRefused.prototype);

/** MODULES are the builtin ids refused (without `node:`); the legacy ones exist only on Node. */
export const MODULES = ['http', 'https', 'http2', 'net', 'tls', 'dgram'];
const LEGACY = ['_http_agent', '_http_client', '_http_common', '_http_incoming', '_http_outgoing', '_http_server', '_tls_common', '_tls_wrap'];

/** KEEP are the exports that never open a connection: helpers, and classes of plain data. */
const KEEP = new Set([
  'net.isIP', 'net.isIPv4', 'net.isIPv6', 'net.BlockList', 'net.SocketAddress',
  'net.getDefaultAutoSelectFamily', 'net.setDefaultAutoSelectFamily',
  'net.getDefaultAutoSelectFamilyAttemptTimeout', 'net.setDefaultAutoSelectFamilyAttemptTimeout',
  'http.validateHeaderName', 'http.validateHeaderValue', 'http.setMaxIdleHTTPParsers',
  'tls.getCiphers', 'tls.checkServerIdentity', 'tls.createSecureContext',
  'http2.getDefaultSettings', 'http2.getPackedSettings', 'http2.getUnpackedSettings',
]);

const UNDICI_PATH = /[\\/]node_modules[\\/]undici[\\/]/;

function refuser(what: string): () => never {
  return function refused(): never {
    throw new NetworkRefused(what);
  };
}

/** refusedClass is a class whose construction refuses (a global such as WebSocket). */
function refusedClass(name: string): new () => object {
  return {
    [name]: class {
      constructor() {
        throw new NetworkRefused(`\`${name}\``);
      }
    },
  }[name] ?? class {};
}

/**
 * refusingExports is the module a plugin gets for id: real constants, refusing functions. An
 * export behind a getter is read at its first use: Node's `http.WebSocket`, `CloseEvent` and
 * `MessageEvent` getters load its whole fetch implementation (~45 ms), `tls.rootCertificates`
 * parses every root certificate.
 */
function refusingExports(id: string, real: object): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const refusing = (key: string, v: unknown): unknown => (typeof v === 'function' && !KEEP.has(`${id}.${key}`) ? refuser(`\`node:${id}\` (\`${id}.${key}\`)`) : v);
  for (const key of Object.keys(real)) {
    if (key === 'default' || key === '__esModule') continue;
    const d = Object.getOwnPropertyDescriptor(real, key);
    if (d?.get === undefined) {
      out[key] = refusing(key, d?.value);
      continue;
    }
    let read: { v: unknown } | undefined;
    Object.defineProperty(out, key, {
      get: () => (read ??= { v: refusing(key, Reflect.get(real, key)) }).v,
      enumerable: true,
      configurable: true,
    });
  }
  const agent: unknown = Reflect.get(real, 'Agent');
  if (typeof agent === 'function') out.Agent = refusingAgent(id, agent);
  return out;
}

/** refusingAgent is the module's Agent class with a createConnection that refuses. */
function refusingAgent(id: string, Real: Function): Function {
  const refused = refuser(`\`node:${id}\` (\`${id}.Agent\`)`);
  const Sub = function Agent(this: unknown, ...args: unknown[]): unknown {
    return Reflect.construct(Real, args, new.target ?? Sub);
  };
  Object.setPrototypeOf(Sub, Real);
  Sub.prototype = Object.create(Real.prototype, {
    constructor: { value: Sub, writable: true, configurable: true },
    createConnection: { value: refused, writable: true, configurable: true },
  });
  return Sub;
}

/** moduleId is the refused id a specifier names, or undefined. */
function moduleId(specifier: string, ids: ReadonlySet<string>): string | undefined {
  const id = specifier.startsWith('node:') ? specifier.slice('node:'.length) : specifier;
  return ids.has(id) ? id : undefined;
}

/** Builtin loads a builtin module by id, or throws where the runtime has none. */
type Builtin = (id: string) => unknown;

/** builtinLoader is the runtime's own process.getBuiltinModule, read before it is wrapped, or require. */
function builtinLoader(): Builtin {
  const own: unknown = Reflect.get(process, 'getBuiltinModule');
  if (typeof own !== 'function') return (id) => require(`node:${id}`);
  // it passes no module hook: a refused module made late, after refuseOnNode's hooks are
  // registered, still reads the real one (require would be resolved to the refused one)
  return (id) => Reflect.apply(own, process, [`node:${id}`]);
}

/** realModule is the builtin module id, or undefined where the runtime has none. */
function realModule(load: Builtin, id: string): object | undefined {
  try {
    const m = load(id);
    return typeof m === 'object' && m !== null ? m : undefined;
  } catch {
    return undefined;
  }
}

/** Refusals are the refused builtin ids of this runtime and the module a plugin gets for each. */
interface Refusals {
  ids: ReadonlySet<string>;
  exportsOf(id: string): Record<string, unknown> | undefined;
}

/**
 * refusals makes each refused module at its first use when lazy (Node: requiring the real
 * modules costs ~20 ms of a start, and a plugin that never imports them should not pay it), or
 * every one now (Bun, whose builtins are replaced in place before any plugin's first import).
 */
function refusals(ids: readonly string[], lazy: boolean): Refusals {
  const load = builtinLoader();
  const made = new Map<string, Record<string, unknown> | undefined>();
  const exportsOf = (id: string): Record<string, unknown> | undefined => {
    if (!made.has(id)) {
      const real = realModule(load, id);
      made.set(id, real === undefined ? undefined : refusingExports(id, real));
    }
    return made.get(id);
  };
  const present = ids.filter((id) => (lazy ? nodeModule.isBuiltin(id) : exportsOf(id) !== undefined));
  return { ids: new Set(present), exportsOf };
}

/** refuseNetwork installs every refusal for the running runtime. */
export function refuseNetwork(): void {
  const bun = globalThis.Bun;
  const refused = bun === undefined ? refusals([...MODULES, ...LEGACY], true) : refusals(MODULES, false);
  if (bun !== undefined) refuseOnBun(bun, refused);
  else refuseOnNode(refused);
  wrapGetBuiltinModule(refused);
  for (const name of ['WebSocket', 'EventSource']) {
    // deleted first: defining over Node's lazy WebSocket global would load its fetch implementation
    Reflect.deleteProperty(globalThis, name);
    Object.defineProperty(globalThis, name, { value: refusedClass(name), writable: true, configurable: true, enumerable: false });
  }
}

const REGISTRY_KEY = Symbol.for('cwx.host.refused-modules');
const SCHEME = 'cwx-host-refused:';
const IDENT = /^[A-Za-z_$][\w$]*$/;

function refuseOnNode(refused: Refusals): void {
  const registry: Record<string, unknown> = {};
  for (const id of refused.ids) Object.defineProperty(registry, id, { get: () => refused.exportsOf(id), enumerable: true });
  Object.freeze(registry);
  Object.defineProperty(globalThis, REGISTRY_KEY, { value: registry, enumerable: false, writable: false, configurable: false });
  const ids = refused.ids;
  const source = (id: string): string => {
    const lines = [`const m = globalThis[Symbol.for('cwx.host.refused-modules')][${JSON.stringify(id)}];`];
    for (const name of Object.keys(refused.exportsOf(id) ?? {})) {
      if (IDENT.test(name)) lines.push(`export const ${name} = m[${JSON.stringify(name)}];`);
    }
    lines.push('export default m;');
    return lines.join('\n');
  };
  const registerHooks: typeof nodeModule.registerHooks | undefined = nodeModule.registerHooks;
  if (typeof registerHooks !== 'function') throw new Error('this Node has no module.registerHooks (Node ^22.19.0 || >=24 is required)');
  registerHooks({
    resolve(specifier, context, next) {
      const id = moduleId(specifier, ids);
      if (id !== undefined) return { url: SCHEME + id, format: 'module', shortCircuit: true };
      const r = next(specifier, context);
      if (UNDICI_PATH.test(r.url)) throw new NetworkRefused('`undici`');
      return r;
    },
    load(url, context, next) {
      if (url.startsWith(SCHEME)) return { format: 'module', source: source(url.slice(SCHEME.length)), shortCircuit: true };
      return next(url, context);
    },
  });
}

function refuseOnBun(bun: BunRuntime, refused: Refusals): void {
  const replace = (target: object, exports: Record<string, unknown>) => {
    for (const [key, value] of Object.entries(exports)) {
      try {
        Object.defineProperty(target, key, { value, writable: true, configurable: true, enumerable: true });
      } catch {
        // a key Bun will not let go of keeps its value; the sandbox refuses its connection
      }
    }
  };
  for (const id of refused.ids) {
    const exports = refused.exportsOf(id) ?? {};
    const m: unknown = require(`node:${id}`);
    // Bun's own modules read each other's Agent from these objects: it stays (its
    // createConnection goes through the replaced node:net and refuses there)
    const { Agent: _kept, ...rest } = exports;
    if (typeof m === 'object' && m !== null) replace(m, rest);
  }
  // Bun's builtin undici is what `undici` resolves to there, node_modules or not
  try {
    const undici: unknown = require('undici');
    if (typeof undici === 'object' && undici !== null) {
      const out: Record<string, unknown> = {};
      for (const key of Object.keys(undici)) if (typeof Reflect.get(undici, key) === 'function') out[key] = refuser(`\`undici\` (\`${key}\`)`);
      replace(undici, out);
    }
  } catch {
    // no builtin undici in this Bun
  }
  const sync: (() => void) | undefined = nodeModule.syncBuiltinESMExports;
  sync?.();
  for (const name of ['connect', 'listen', 'udpSocket']) {
    try {
      Object.defineProperty(bun, name, { value: refuser(`\`Bun.${name}\``), writable: false, configurable: false, enumerable: true });
    } catch {
      // not configurable in this Bun: the sandbox refuses its connection
    }
  }
  bun.plugin({
    name: 'cwx-fetch-proxy',
    target: 'bun',
    setup(build: BunPluginBuilder) {
      build.onLoad({ filter: UNDICI_PATH }, () => {
        throw new NetworkRefused('`undici`');
      });
    },
  });
}

/** wrapGetBuiltinModule makes process.getBuiltinModule answer a refused id as an import does. */
function wrapGetBuiltinModule(refused: Refusals): void {
  const original: unknown = Reflect.get(process, 'getBuiltinModule');
  if (typeof original !== 'function') return;
  const getBuiltinModule = function getBuiltinModule(specifier: unknown): unknown {
    const id = typeof specifier === 'string' ? moduleId(specifier, refused.ids) : undefined;
    if (id !== undefined) return refused.exportsOf(id);
    return Reflect.apply(original, process, [specifier]);
  };
  Object.defineProperty(process, 'getBuiltinModule', { value: getBuiltinModule, writable: true, configurable: true, enumerable: true });
}
