// A fake core for the host's tests: it spawns dist/cwx-extension-host.mjs on the runtime running
// the suite (Node under `node --test`, Bun under `bun test`), speaks raw CWX1 to it, answers
// registry requests and records everything the host sends.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const PKG = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const BUNDLE = join(PKG, 'dist', 'cwx-extension-host.mjs');
/** SNAPSHOT_ENTRY is the bundle's twin that a Node startup snapshot is built from (src/snapshot.ts). */
export const SNAPSHOT_ENTRY = join(PKG, 'dist', 'cwx-extension-host-snapshot.cjs');
/**
 * SNAPSHOT_BLOB, from CWX_TEST_SNAPSHOT_BLOB, runs every host of the suite from a startup
 * snapshot of SNAPSHOT_ENTRY (`.ci/jshost-test` builds one and runs the Node suite again).
 */
export const SNAPSHOT_BLOB = typeof globalThis.Bun === 'undefined' ? (process.env.CWX_TEST_SNAPSHOT_BLOB ?? '') : '';
export const REPO = resolve(PKG, '..', '..');
export const PLUGINS = join(REPO, 'testdata', 'plugins');
export const IS_BUN = typeof globalThis.Bun !== 'undefined';
export const RUNTIME = process.execPath;

/** test/describe from the runner in use, so one file runs under both `node --test` and `bun test`. */
const runner = IS_BUN ? await import('bun:test') : await import('node:test');
export function test(name, fn, timeoutMs = 20000) {
  if (IS_BUN) return runner.test(name, fn, timeoutMs);
  return runner.test(name, { timeout: timeoutMs }, fn);
}

/** runtimeArgs are the flags the core passes (core/runtime launch plan). */
export function runtimeArgs() {
  if (IS_BUN) return ['--no-install', '--no-env-file', '--config=/dev/null', '--no-addons'];
  // CWX_TEST_EXTRA_NODE_FLAGS adds flags to measure against the suites (ARCHITECTURE.md,
  // “Trust model”: --frozen-intrinsics); the core never passes them
  const extra = (process.env.CWX_TEST_EXTRA_NODE_FLAGS ?? '').split(' ').filter((f) => f !== '');
  const snapshot = SNAPSHOT_BLOB === '' ? [] : ['--snapshot-blob', SNAPSHOT_BLOB];
  return ['--max-old-space-size=256', '--disable-proto=throw', '--no-addons', '--zero-fill-buffers', '--no-experimental-sqlite', ...snapshot, ...extra];
}

export function runtimeEnv(extra = {}) {
  // the fixed variables core/runtime's launch plan sets
  const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/tmp', NODE_OPTIONS: '', CWX_HOST_PROCESS_GROUP: '1', ...extra };
  if (IS_BUN) Object.assign(env, { BUN_OPTIONS: '', BUN_BE_BUN: '0', BUN_JSC_useShadowRealm: '0' });
  if (process.env.CWX_TEST_RUN_MARKER) env.CWX_TEST_RUN_MARKER = process.env.CWX_TEST_RUN_MARKER;
  return env;
}

export function sha256File(path) {
  return createHash('sha256').update(readFileSync(path)).digest('hex');
}

/** helloSHA256 is the digest host/hello reports: the bundle's, or the snapshot entry's under a snapshot. */
export function helloSHA256() {
  return sha256File(SNAPSHOT_BLOB === '' ? BUNDLE : SNAPSHOT_ENTRY);
}

/**
 * frame is one CWX1 frame of obj (a message, or its JSON text); a non-empty attachment follows
 * the JSON text after a NUL byte (core/protocol doc.go, “Framing”).
 */
export function frame(obj, attachment) {
  const text = Buffer.from(typeof obj === 'string' ? obj : JSON.stringify(obj), 'utf8');
  const payload = attachment?.length > 0 ? Buffer.concat([text, Buffer.from([0]), attachment]) : text;
  const h = Buffer.alloc(8);
  h.write('CWX1', 0, 'ascii');
  h.writeUInt32LE(payload.length, 4);
  return Buffer.concat([h, payload]);
}

let tokenSeq = 0;
export function ownerRef(pluginId = 'fixture', generation = 1) {
  tokenSeq++;
  return { plugin_id: pluginId, generation, owner_token: createHash('sha256').update(`tok-${process.pid}-${tokenSeq}-${Math.random()}`).digest('hex') };
}

export class FakeCore {
  /**
   * @param {object} o
   * @param {(spec: object, params: object) => object} [o.admit] answer for registry/register
   * @param {(params: object, id: number) => object} [o.coreCall] answer for core/call: {result}, {error} or 'never'
   * @param {(params: object, id: number) => object} [o.userAsk] answer for user/ask: {result} or {error}
   * @param {(method: string, params: object, id: number) => object} [o.net] answer for net/*: {result, attachment?}, {error}, 'never', or a promise of one
   * @param {object} [o.init] extra host/initialize params (fetch_proxy)
   * @param {string[]} [o.args] extra host argv
   * @param {object} [o.env] extra env
   * @param {boolean} [o.detached] run the host as a process-group leader
   * @param {string[]} [o.runtimeArgs] replace the runtime flags
   */
  constructor(o = {}) {
    this.o = o;
    this.messages = []; // everything the host sent, in order
    this.waiters = [];
    this.pending = new Map();
    this.nextId = 1;
    this.nextHandle = 100;
    this.handles = new Map();
    this.stderr = '';
    this.buf = Buffer.alloc(0);
    const argv = [...(o.runtimeArgs ?? runtimeArgs()), BUNDLE, ...(o.args ?? ['--tier=plugin'])];
    // As the shim does: stdin is /dev/null, fd 1 and fd 2 are the host's log lines, the
    // channel is fd 3 (to the host) and fd 4 (from it).
    this.proc = spawn(RUNTIME, argv, {
      stdio: ['ignore', 'pipe', 'pipe', 'pipe', 'pipe'],
      env: runtimeEnv(o.env ?? {}),
      detached: o.detached ?? false,
      cwd: o.cwd ?? PKG,
    });
    this.exited = new Promise((r) => this.proc.on('exit', (code, signal) => r({ code, signal })));
    this.proc.stderr.on('data', (d) => { this.stderr += d; });
    this.proc.stdout.on('data', (d) => { this.stderr += d; });
    this.channelIn = this.proc.stdio[3];
    this.proc.stdio[4].on('data', (d) => this.onData(d));
    this.channelIn.on('error', () => {});
  }

  onData(d) {
    this.buf = Buffer.concat([this.buf, d]);
    while (this.buf.length >= 8) {
      if (this.buf.toString('ascii', 0, 4) !== 'CWX1') throw new Error(`bad magic from host: ${this.buf.toString('latin1', 0, 16)}`);
      const n = this.buf.readUInt32LE(4);
      if (this.buf.length < 8 + n) break;
      const msg = JSON.parse(this.buf.toString('utf8', 8, 8 + n));
      this.buf = this.buf.subarray(8 + n);
      this.onMessage(msg);
    }
  }

  onMessage(msg) {
    this.messages.push(msg);
    if (msg.method === 'registry/register') {
      const answer = this.o.admit?.(msg.params.spec, msg.params) ?? { handle: this.nextHandle++ };
      if (answer !== 'never') this.write({ jsonrpc: '2.0', id: msg.id, result: answer });
      if (answer?.handle !== undefined) this.handles.set(`${msg.params.kind}:${msg.params.spec.name}`, answer.handle);
    } else if (msg.method === 'core/call' && this.o.coreCall) {
      const answer = this.o.coreCall(msg.params, msg.id); // {result} | {error} | 'never'
      if (answer !== 'never') this.write({ jsonrpc: '2.0', id: msg.id, ...answer });
    } else if (msg.method === 'user/ask' && this.o.userAsk) {
      const answer = this.o.userAsk(msg.params, msg.id); // {result} | {error}
      this.write({ jsonrpc: '2.0', id: msg.id, ...answer });
    } else if (msg.method?.startsWith('net/') && msg.id !== undefined && this.o.net) {
      Promise.resolve(this.o.net(msg.method, msg.params, msg.id)).then((answer) => {
        if (answer === 'never') return;
        const { attachment, ...rest } = answer; // {result, attachment?}: the bytes after the JSON text
        this.write(frame({ jsonrpc: '2.0', id: msg.id, ...rest }, attachment));
      });
    } else if (msg.method === 'registry/unregister' || msg.method === 'core/call') {
      this.write({ jsonrpc: '2.0', id: msg.id, result: {} });
    } else if (msg.method === undefined && this.pending.has(msg.id)) {
      const p = this.pending.get(msg.id);
      this.pending.delete(msg.id);
      p(msg);
    }
    for (const w of [...this.waiters]) {
      if (w.pred(msg)) {
        this.waiters.splice(this.waiters.indexOf(w), 1);
        w.resolve(msg);
      }
    }
  }

  write(obj) {
    if (!this.channelIn.destroyed) this.channelIn.write(Buffer.isBuffer(obj) ? obj : frame(obj));
  }

  /** waitFor resolves with the first message (already received or future) matching pred. */
  waitFor(pred, timeoutMs = 10000, label = 'message') {
    const seen = this.messages.find(pred);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve, reject) => {
      const t = setTimeout(() => reject(new Error(`timed out waiting for ${label}; stderr: ${this.stderr}`)), timeoutMs);
      this.waiters.push({ pred, resolve: (m) => { clearTimeout(t); resolve(m); } });
    });
  }

  /** request sends a core→host request and resolves with the whole response message. */
  request(method, params, id = this.nextId++) {
    const p = new Promise((resolve) => this.pending.set(id, resolve));
    this.write({ jsonrpc: '2.0', id, method, params });
    p.id = id;
    return p;
  }

  notify(method, params) {
    this.write({ jsonrpc: '2.0', method, params });
  }

  async handshake() {
    const hello = await this.waitFor((m) => m.method === 'host/hello', 15000, 'host/hello');
    const init = await this.request('host/initialize', {
      protocol: 1,
      ...(this.o.init ?? {}),
      limits: { max_frame: 33554432, max_inflight: 256, activate_deadline_ms: 5000, dispose_deadline_ms: 2000, ...(this.o.limits ?? {}) },
    });
    await this.waitFor((m) => m.method === 'host/ready', 5000, 'host/ready');
    return { hello, init };
  }

  /** activate sends ext/activate for a fixture entry and resolves with the result. */
  async activate(entryPath, o = {}) {
    const owner = o.owner ?? ownerRef(o.pluginId ?? 'fixture');
    const params = {
      owner,
      plugin_name: o.pluginName ?? owner.plugin_id,
      entry: { path: entryPath, sha256: o.sha256 ?? sha256File(entryPath) },
      config: o.config ?? {},
    };
    if (o.dataDir) params.data_dir = o.dataDir;
    const res = await this.request('ext/activate', params);
    return { owner, res, result: res.result, error: res.error };
  }

  callTool(handle, input, extra = {}) {
    return this.request('tool/call', { handle, call_id: `call-${this.nextId}`, input, deadline_ms: 120000, ...extra });
  }

  runCommand(handle, raw, extra = {}) {
    return this.request('command/run', { handle, command_id: `cmd-${this.nextId}`, raw_input: raw, deadline_ms: 30000, ...extra });
  }

  /** handleOf is the handle the fake core last granted to a registration by name. */
  handleOf(name, kind = 'tool') {
    const h = this.handles.get(`${kind}:${name}`);
    if (h === undefined) throw new Error(`no handle for ${kind} ${name}`);
    return h;
  }

  async close() {
    try { this.channelIn.end(); } catch {}
    const t = setTimeout(() => { try { this.proc.kill('SIGKILL'); } catch {} }, 3000);
    const r = await this.exited;
    clearTimeout(t);
    return r;
  }
}

export const plugin = (...p) => join(PLUGINS, ...p);

/** withCore runs fn with a handshaken fake core and always stops the host. */
export async function withCore(o, fn) {
  const core = new FakeCore(o);
  try {
    if (o?.handshake !== false) await core.handshake();
    return await fn(core);
  } finally {
    await core.close();
  }
}

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** methods lists the methods of the host's messages, in order ('result'/'error' for answers). */
export function methods(core) {
  return core.messages.map((m) => m.method ?? (m.error ? 'error' : 'result'));
}
