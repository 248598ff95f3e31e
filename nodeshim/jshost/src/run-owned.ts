// One place where a plugin's function is called for the core: tool/call, command/run and
// hook/evaluate all run it noted as its owner (running.ts) inside the owner's async context
// (owner.ts), and answer Cancelled as soon as the request's signal aborts, without waiting for
// the plugin's promise. The signal a plugin is handed is its own (ownedSignal): the host aborts
// it as the owner's code, so an abort listener's console lines are the owner's too.
import { ErrorCode } from './protocol.generated.ts';
import { RpcError } from './rpc.ts';
import { runAs } from './running.ts';
import { ownerContext, type OwnerRecord, type Registration } from './owner.ts';

/** runOwned calls fn inside the owner's context and races it against the signal. */
export function runOwned<T>(reg: Registration, signal: AbortSignal, fn: () => T): Promise<Awaited<T>> {
  return new Promise((resolve, reject) => {
    const cancelled = () => reject(new RpcError(ErrorCode.Cancelled, 'cancelled'));
    if (signal.aborted) return cancelled();
    signal.addEventListener('abort', cancelled, { once: true });
    let p: Promise<Awaited<T>>;
    try {
      p = Promise.resolve(asOwner(reg.owner, fn));
    } catch (err) {
      p = Promise.reject(err);
    }
    p.then(resolve, reject).finally(() => signal.removeEventListener('abort', cancelled));
  });
}

/** asOwner runs fn as owner's code: noted (running.ts) and inside its async context. */
export function asOwner<T>(owner: OwnerRecord, fn: () => T): T {
  return runAs(owner, () => ownerContext.run(owner, fn));
}

/**
 * ownedSignal is the signal handed to owner's code for a request: it aborts when signal does,
 * with its reason, and its listeners run as owner's code (EventTarget dispatches in the
 * aborting caller's context, which for a request's signal is the host's).
 */
export function ownedSignal(owner: OwnerRecord, signal: AbortSignal): AbortSignal {
  const ac = new AbortController();
  const abort = () => asOwner(owner, () => ac.abort(signal.reason));
  if (signal.aborted) abort();
  else signal.addEventListener('abort', abort, { once: true });
  return ac.signal;
}
