// The host's end belongs to the core: plugin code may not exit, abort or signal the host. Before
// any plugin loads, guardProcess replaces process.exit, process.reallyExit (what Node's exit
// calls in the end), process.abort, process.kill and process._kill (what Node's kill calls)
// with functions that refuse, report the attempt (the host turns the report into the owner's
// fault: ext/faulted, or a failed activation) and throw. process.kill is refused only for a
// signal that would end or stop the host: any signal but 0 to the host's own pid, its group,
// 0 (the caller's group), -1 (every process the user may signal), or the shim (the parent)
// and its group. The host's own exit and group kill go through the functions guardProcess
// returns, the only way to the originals.
import type {} from './runtime-globals.ts';

/** HostEndRefused is what a plugin's attempt to end the host throws. */
export class HostEndRefused extends Error {
  override name = 'HostEndRefused';
  readonly attempt: string;
  constructor(attempt: string) {
    super(`\`${attempt}\` is refused: plugin code may not end the cwx extension host (the core stops it)`);
    this.attempt = attempt;
  }
}
Object.freeze(HostEndRefused.prototype);

/** Refusal is told of every refused attempt, with the error the attempt throws. */
export type Refusal = (err: HostEndRefused) => void;

export interface HostEnd {
  /** exit ends the process with code (the real process.exit). */
  exit: (code: number) => never;
  /** killGroup SIGKILLs the host's process group when it leads one (never pid 0). */
  killGroup: () => void;
  /** onRefusal sets who is told of a refused attempt. */
  onRefusal: (f: Refusal) => void;
}

type Fn = (...args: unknown[]) => unknown;

function lock(key: string, value: Fn): void {
  Object.defineProperty(process, key, { value, writable: false, configurable: false, enumerable: true });
}

/** functionOf is process[key] when it is a function: Node's internals, which @types/node does not declare. */
function functionOf(key: string): Function | undefined {
  const v: unknown = Reflect.get(process, key);
  return typeof v === 'function' ? v : undefined;
}

function shown(v: unknown): string {
  return typeof v === 'string' ? JSON.stringify(v) : String(v);
}

/** guardProcess installs the guards and returns the host's own way to end itself. */
export function guardProcess(): HostEnd {
  const self = process.pid;
  const parent = process.ppid;
  const original = {
    exit: process.exit,
    reallyExit: functionOf('reallyExit'),
    kill: process.kill,
    _kill: functionOf('_kill'),
  };
  let trusted = false; // true only while the host itself calls an original
  let told: Refusal | undefined;
  const refuse = (attempt: string): never => {
    const err = new HostEndRefused(attempt);
    try {
      told?.(err);
    } catch {
      // reporting must never turn the refusal into something else
    }
    throw err;
  };
  const endsHost = (pid: unknown, sig: unknown): boolean => {
    if (sig === 0 || sig === '0') return false; // a probe, not a signal
    const p = Number(pid);
    const ppid = process.ppid;
    return p === self || p === -self || p === 0 || p === -1 || p === parent || p === -parent || (ppid > 1 && (p === ppid || p === -ppid));
  };
  const call = (fn: Function, args: unknown[]): unknown => Reflect.apply(fn, process, args);

  lock('exit', function exit(code?: unknown): unknown {
    if (trusted) return call(original.exit, [code]);
    return refuse(`process.exit(${code === undefined ? '' : shown(code)})`);
  });
  if (original.reallyExit) {
    const real = original.reallyExit;
    lock('reallyExit', function reallyExit(code?: unknown): unknown {
      if (trusted) return call(real, [code]);
      return refuse(`process.reallyExit(${code === undefined ? '' : shown(code)})`);
    });
  }
  lock('abort', function abort(): unknown {
    return refuse('process.abort()');
  });
  lock('kill', function kill(pid: unknown, sig?: unknown): unknown {
    if (!trusted && endsHost(pid, sig)) refuse(`process.kill(${shown(pid)}${sig === undefined ? '' : `, ${shown(sig)}`})`);
    return call(original.kill, sig === undefined ? [pid] : [pid, sig]);
  });
  if (original._kill) {
    const real = original._kill;
    lock('_kill', function _kill(pid: unknown, sig?: unknown): unknown {
      if (!trusted && endsHost(pid, sig)) refuse(`process._kill(${shown(pid)}, ${shown(sig)})`);
      return call(real, [pid, sig]);
    });
  }
  const asHost = <T>(f: () => T): T => {
    trusted = true;
    try {
      return f();
    } finally {
      trusted = false;
    }
  };
  return {
    exit: (code) => asHost(() => Reflect.apply(original.exit, process, [code])),
    killGroup: () => {
      try {
        asHost(() => call(original.kill, [-self, 'SIGKILL']));
      } catch {
        // not a group leader: there is no group with our pid
      }
    },
    onRefusal: (f) => { told = f; },
  };
}
