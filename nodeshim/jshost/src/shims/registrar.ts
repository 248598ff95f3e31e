// The register/undo bookkeeping shared by the tools and commands shims: every registration is an
// effect of the calling fiber, sent to the core as registry/register, and undone (idempotently)
// by registry/unregister when its effect is disposed. An admission that arrives after the
// registration was undone is unregistered at once.
import { ownerOf, type Context } from '../cordis-adapter.ts';
import type { RegisterSpec } from '../protocol.generated.ts';
import { describeError, type RpcPeer } from '../rpc.ts';
import type { OwnerRecord, RegKind, Registration } from '../owner.ts';

export class Registrar {
  /** live handles admitted by the core. */
  readonly handles = new Map<number, Registration>();

  private readonly rpc: RpcPeer;

  constructor(rpc: RpcPeer) {
    this.rpc = rpc;
  }

  /**
   * add registers an effect of ctx's fiber. With after, registry/register is sent once after
   * settles (a hook waits for its owner's previous hook, so handles follow registration order).
   */
  add(ctx: Context, kind: RegKind, name: string, spec: RegisterSpec, def: Registration['def'], after?: Promise<unknown>): () => unknown {
    const owner = ownerOf(ctx);
    if (!owner) throw new Error(`${kind}s.register: only a plugin may register a ${kind}`);
    if (owner.state !== 'activating' && owner.state !== 'active') {
      throw new Error(`${kind}s.register: plugin ${owner.ref.plugin_id} is not active`);
    }
    const entry = owner.activatingEntry ?? owner.entries.at(-1)?.path ?? '';
    return ctx.effect(() => {
      const reg: Registration = { kind, name, owner, def, undone: false, entry, admitted: Promise.resolve() };
      owner.registrations.add(reg);
      owner.history.push(reg);
      const register = () => this.rpc.request('registry/register', { owner: owner.ref, kind, spec });
      reg.admitted = (after === undefined ? register() : after.then(register, register)).then(
        (r) => {
          if (typeof r.handle === 'number') {
            reg.handle = r.handle;
            if (reg.undone) {
              reg.withdrawn = this.unregister(owner, r.handle);
              return;
            }
            this.handles.set(r.handle, reg);
          } else {
            reg.refused = `${kind} \`${name}\` refused: ${String(r.refused)}`;
          }
        },
        (err) => {
          reg.refused = `${kind} \`${name}\` not registered: ${describeError(err)}`;
        },
      );
      return () => this.undo(reg);
    }, `${kind}s.register(${JSON.stringify(name)})`);
  }

  /** undo withdraws one registration; it is safe to call more than once. */
  undo(reg: Registration): Promise<void> | undefined {
    if (reg.undone) return undefined;
    reg.undone = true;
    reg.owner.registrations.delete(reg);
    if (reg.handle === undefined) return undefined;
    this.handles.delete(reg.handle);
    reg.withdrawn = this.unregister(reg.owner, reg.handle);
    return reg.withdrawn;
  }

  private unregister(owner: OwnerRecord, handle: number): Promise<void> {
    return this.rpc.request('registry/unregister', { owner: owner.ref, handle }).then(
      () => undefined,
      () => undefined,
    );
  }

  /**
   * find returns the live registration of kind named name in this host: admitted by the core,
   * not withdrawn, of an owner that is active. It sees only what this host registered.
   */
  find(kind: RegKind, name: string): Registration | undefined {
    for (const reg of this.handles.values()) {
      if (reg.kind === kind && reg.name === name && !reg.undone && reg.owner.state === 'active') return reg;
    }
    return undefined;
  }

  /** forget drops every handle of an owner without telling the core (it already dropped them). */
  forget(owner: OwnerRecord): void {
    for (const [handle, reg] of this.handles) if (reg.owner === owner) this.handles.delete(handle);
  }
}

/** nonEmptyString reports whether v is a string with visible content. */
export function nonEmptyString(v: unknown): v is string {
  return typeof v === 'string' && v.trim() !== '';
}
