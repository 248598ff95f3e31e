// The extension host proper: it serves the core's requests (initialize, ping, shutdown, activate,
// deactivate, tool/call, command/run, hook/evaluate, harness/run) on top of the Cordis root, and turns faults into
// ext/faulted for the owner that caused them.
import {
  ErrorCode, PROTOCOL_VERSION, type DeactivateParams, type DeactivateResult, type Empty, type InitializeParams, type LogParams, type Tier,
} from './protocol.generated.ts';
import type { CoreMethod, CoreParams, CoreResult } from './messages.ts';
import { RpcError, RpcPeer, cut, describeError } from './rpc.ts';
import { createRoot, type Root } from './root.ts';
import { Registrar } from './shims/registrar.ts';
import { activateEntry, disposeOwner, leakedOf, type ActivateDeps } from './activate.ts';
import { callTool, runCommand } from './calls.ts';
import { evaluateHook } from './hooks.ts';
import { serveHarness } from './shims/shellhooks.ts';
import { attributeConsole } from './console.ts';
import { ownerContext, sameRef, type OwnerRecord } from './owner.ts';
import { HostEndRefused } from './guard.ts';
import { setBusyFrame } from './running.ts';
import { installFetchProxy } from './net/install.ts';

export interface HostOptions {
  tier: Tier;
  write: (frame: Buffer) => void;
  /** exit ends the process after pending output is written. */
  exit: (code: number) => void;
  stderr: (line: string) => void;
}

const MAX_ERROR = 4096;
const MAX_LOG = 8192;

/** Handlers serve the core's requests by method; a method without one is answered MethodNotFound. */
type Handlers = { [M in CoreMethod]?: (params: CoreParams<M>, signal: AbortSignal) => CoreResult<M> | Promise<CoreResult<M>> };

export class ExtensionHost {
  readonly rpc: RpcPeer;
  readonly registrar: Registrar;
  readonly root: Root;
  readonly owners = new Map<string, OwnerRecord>(); // by owner_token
  private initialized = false;
  private activateDeadlineMs = 5000;
  private disposeDeadlineMs = 2000;

  private readonly o: HostOptions;
  private readonly handlers: Handlers = {
    'host/initialize': (p) => this.initialize(p),
    'host/ping': () => ({}),
    'host/shutdown': () => this.shutdown(),
    'ext/activate': (p) => activateEntry(this.deps(), this.o.tier, p),
    'ext/deactivate': (p) => this.deactivate(p),
    'tool/call': (p, signal) => callTool(this.registrar, p, signal, this.rpc),
    'command/run': (p, signal) => runCommand(this.registrar, p, signal, this.rpc),
    'hook/evaluate': (p, signal) => evaluateHook(this.registrar, p, signal, (msg, owner) => this.log('warn', msg, owner)),
    'harness/run': (p, signal) => serveHarness(this.owners, p, signal),
  };

  constructor(o: HostOptions) {
    this.o = o;
    this.rpc = new RpcPeer({
      tier: o.tier,
      write: o.write,
      onRequest: (m, p, s) => this.handle(m, p, s),
      onNotification: () => undefined,
      onFatal: (reason) => {
        o.stderr(`cwx-extension-host: ${reason}`);
        o.exit(65);
      },
    });
    setBusyFrame((owner) => this.rpc.encodeNotification('host/busy', { owner: owner.ref }));
    this.registrar = new Registrar(this.rpc);
    this.root = createRoot(this.registrar, (level, msg, owner) => this.log(level, msg, owner), o.tier);
    attributeConsole((level, msg, owner) => this.log(level, msg, owner));
  }

  log(level: 'error' | 'warn' | 'info', msg: string, owner?: OwnerRecord): void {
    const params: LogParams = { level, msg: cut(msg, MAX_LOG) };
    if (owner) params.plugin_id = owner.ref.plugin_id;
    this.rpc.notify('log', params);
  }

  private deps(): ActivateDeps {
    return {
      root: this.root.ctx,
      registrar: this.registrar,
      activateDeadlineMs: this.activateDeadlineMs,
      disposeDeadlineMs: this.disposeDeadlineMs,
      owners: this.owners,
    };
  }

  private async handle<M extends CoreMethod>(method: M, params: CoreParams<M>, signal: AbortSignal): Promise<CoreResult<M>> {
    if (!this.initialized && method !== 'host/initialize' && method !== 'host/shutdown') {
      throw new RpcError(ErrorCode.InvalidRequest, 'host is not initialized');
    }
    const handler = this.handlers[method];
    if (!handler) throw new RpcError(ErrorCode.MethodNotFound, `no handler for \`${method}\``);
    return handler(params, signal);
  }

  private initialize(params: InitializeParams): Empty {
    if (params.protocol !== PROTOCOL_VERSION) {
      this.o.stderr(`cwx-extension-host: core speaks protocol ${String(params.protocol)}, host speaks ${PROTOCOL_VERSION}`);
      setImmediate(() => this.o.exit(78));
      throw new RpcError(ErrorCode.InvalidParams, `unsupported protocol ${String(params.protocol)}`);
    }
    const limits = params.limits;
    if (limits.activate_deadline_ms > 0) this.activateDeadlineMs = limits.activate_deadline_ms;
    if (limits.dispose_deadline_ms > 0) this.disposeDeadlineMs = limits.dispose_deadline_ms;
    if (params.fetch_proxy === true) installFetchProxy(this.rpc); // sandboxed: HTTP goes to the core (net/)
    this.initialized = true;
    setImmediate(() => this.rpc.notify('host/ready', {}));
    return {};
  }

  private async deactivate(params: DeactivateParams): Promise<DeactivateResult> {
    const ref = params.owner;
    const owner = this.owners.get(ref.owner_token);
    if (!owner || !sameRef(owner.ref, ref)) return { disposed: true, leaked: [] };
    const entry = params.entry;
    if (entry?.path && owner.entries.length > 1) {
      const idx = owner.entries.findIndex((e) => e.path === entry.path);
      const [one] = idx < 0 ? [] : owner.entries.splice(idx, 1);
      if (one === undefined) return { disposed: true, leaked: [] };
      const disposed = await disposeFibers([one], this.disposeDeadlineMs);
      const leaked = [...owner.registrations].filter((r) => r.entry === one.path).map((r) => `${r.kind}:${r.name}`);
      return { disposed, leaked };
    }
    this.owners.delete(ref.owner_token);
    const disposed = await disposeOwner(owner, this.registrar, this.disposeDeadlineMs);
    return { disposed, leaked: leakedOf(owner) };
  }

  private async shutdown(): Promise<Empty> {
    const owners = [...this.owners.values()];
    this.owners.clear();
    await Promise.race([
      Promise.allSettled(owners.map((o) => disposeOwner(o, this.registrar, this.disposeDeadlineMs))),
      new Promise((r) => setTimeout(r, this.disposeDeadlineMs).unref?.()),
    ]);
    setImmediate(() => this.o.exit(0));
    return {};
  }

  /**
   * refused reports a plugin's attempt to end the host (guard.ts) as its owner's fault, at
   * once: the plugin may catch what the attempt throws, the attempt counts all the same.
   */
  refused(err: HostEndRefused): void {
    this.reported.add(err);
    const owner = ownerContext.getStore() ?? this.ownerFromStack(err);
    this.o.stderr(`cwx-extension-host: refused ${err.attempt} from ${owner ? `plugin ${owner.ref.plugin_id}` : 'unattributed code'}`);
    this.blame(owner, `tried to end the extension host: ${describeError(err)}`, 'refusal');
  }

  /** reported holds the refusals already reported, so that their throw is not a second fault. */
  private readonly reported = new WeakSet<object>();

  /** fault reports an uncaught error: to its owner when it can be attributed, else as a log line. */
  fault(err: unknown, kind: 'exception' | 'rejection'): void {
    if (err instanceof HostEndRefused && this.reported.has(err)) return;
    this.blame(ownerContext.getStore() ?? this.ownerFromStack(err), describeError(err), kind);
  }

  private blame(owner: OwnerRecord | undefined, what: string, kind: 'exception' | 'rejection' | 'refusal'): void {
    const text = cut(what, MAX_ERROR);
    if (!owner || owner.state === 'gone') {
      this.log('error', `unattributed extension fault (${kind}): ${text}`);
      return;
    }
    if (owner.state === 'activating') {
      owner.fault ??= text;
      return;
    }
    if (owner.state !== 'active') return;
    this.owners.delete(owner.ref.owner_token);
    this.rpc.notify('ext/faulted', { owner: owner.ref, error: text });
    void disposeOwner(owner, this.registrar, this.disposeDeadlineMs);
  }

  private ownerFromStack(err: unknown): OwnerRecord | undefined {
    const stack = err instanceof Error ? String(err.stack ?? '') : '';
    if (!stack) return undefined;
    let best: OwnerRecord | undefined;
    let bestLen = 0;
    for (const o of this.owners.values()) {
      for (const dir of o.entryDirs) {
        if (dir.length > bestLen && (stack.includes(dir + '/') || stack.includes(encodeURI(dir) + '/'))) {
          best = o;
          bestLen = dir.length;
        }
      }
    }
    return best;
  }
}

/** disposeFibers disposes fibers in reverse order within the deadline; false when it ran out. */
export async function disposeFibers(entries: { fiber: { dispose: () => unknown } }[], deadlineMs: number): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<boolean>((r) => { timer = setTimeout(() => r(false), deadlineMs); });
  const work = (async () => {
    for (const e of [...entries].reverse()) {
      try {
        await e.fiber.dispose();
      } catch {
        // Cordis logs disposer errors itself
      }
    }
    return true;
  })();
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

