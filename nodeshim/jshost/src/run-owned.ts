// One place where a plugin's function is called for the core: tool/call, command/run and
// hook/evaluate all run it noted as its owner (running.ts) inside the owner's async context
// (owner.ts), and answer Cancelled as soon as the request's signal aborts, without waiting for
// the plugin's promise.
import { ErrorCode } from './protocol.generated.ts';
import { RpcError } from './rpc.ts';
import { runAs } from './running.ts';
import { ownerContext, type Registration } from './owner.ts';

/** runOwned calls fn inside the owner's context and races it against the signal. */
export function runOwned<T>(reg: Registration, signal: AbortSignal, fn: () => T): Promise<Awaited<T>> {
  return new Promise((resolve, reject) => {
    const cancelled = () => reject(new RpcError(ErrorCode.Cancelled, 'cancelled'));
    if (signal.aborted) return cancelled();
    signal.addEventListener('abort', cancelled, { once: true });
    let p: Promise<Awaited<T>>;
    try {
      p = Promise.resolve(runAs(reg.owner, () => ownerContext.run(reg.owner, fn)));
    } catch (err) {
      p = Promise.reject(err);
    }
    p.then(resolve, reject).finally(() => signal.removeEventListener('abort', cancelled));
  });
}
