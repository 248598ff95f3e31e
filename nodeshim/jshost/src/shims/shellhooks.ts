// The `shellHooks` service, offered on the builtin tier only: a builtin module (the `hooks`
// module, owner `host:hooks`) serves `harness/run` through it. The core matches the hooks, writes
// each one's stdin and judges what it reports (ARCHITECTURE.md, “Command hooks”); the module only
// runs the command. An owner serves at most one handler, withdrawn when its fiber is disposed.
import { Service, type Context } from '@deepseek-ai/cordis';
import { ownerOf } from '../cordis-adapter.ts';
import type { OwnerRecord } from '../owner.ts';
import { ErrorCode, type AnyObject, type HarnessRunParams } from '../protocol.generated.ts';
import { RpcError } from '../rpc.ts';
import { isPlainObject } from '../validate.ts';

/**
 * handlers are the functions the modules serve, each called as (params, signal) for one
 * harness/run; what it answers is checked here and again by the RPC peer's validator.
 */
const handlers = new WeakMap<OwnerRecord, Function>();

/** serveHarness answers harness/run with the handler of the live owner it names. */
export async function serveHarness(owners: Map<string, OwnerRecord>, params: HarnessRunParams, signal: AbortSignal): Promise<AnyObject> {
  const ref = params.owner;
  const owner = owners.get(ref.owner_token);
  const handler = owner && owner.state === 'active' && owner.ref.plugin_id === ref.plugin_id && owner.ref.generation === ref.generation
    ? handlers.get(owner) : undefined;
  if (!handler) throw new RpcError(ErrorCode.InvalidParams, `owner \`${ref.plugin_id}\` serves no harness/run here`);
  const result: unknown = await Reflect.apply(handler, undefined, [Object.freeze({ ...params }), signal]);
  if (!isPlainObject(result)) throw new RpcError(ErrorCode.ExecutionFailed, `the harness/run handler of \`${ref.plugin_id}\` answered no object`);
  return result;
}

export function defineShellHooks(): new (ctx: Context) => Service {
  class ShellHooks extends Service {
    constructor(ctx: Context) {
      super(ctx, 'shellHooks');
    }
    /** serve makes handler answer the core's harness/run for the calling owner. */
    serve(handler: unknown): void {
      const owner = ownerOf(this.ctx);
      if (!owner || !owner.ref.plugin_id.startsWith('host:')) throw new TypeError('shellHooks.serve: only a builtin module may serve harness/run');
      if (typeof handler !== 'function') throw new TypeError('shellHooks.serve: the handler must be a function');
      if (handlers.has(owner)) throw new TypeError('shellHooks.serve: this module already serves harness/run');
      this.ctx.effect(() => {
        handlers.set(owner, handler);
        return () => {
          if (handlers.get(owner) === handler) handlers.delete(owner);
        };
      }, 'shellHooks.serve()');
    }
  }
  Object.freeze(ShellHooks.prototype);
  return ShellHooks;
}
