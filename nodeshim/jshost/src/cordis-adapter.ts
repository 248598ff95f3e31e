// Everything the host does with Cordis beyond a plugin's public API, in one place: the owner tag
// on contexts, the guard on service provision, the listener veto, the log exporter, loading a
// plugin under an owner's context and reading fiber state and effects back. Cordis publishes
// types for all of it; the rest of the host goes through these functions, so a Cordis upgrade
// that moves an internal shows up here and only here.
import { Context, Inject, Logger, type Exporter, type Fiber, type Message, type Plugin } from '@deepseek-ai/cordis';
import type { OwnerRecord } from './owner.ts';

export { Context, type Fiber, type Plugin };

/** OWNER tags a context (and every context derived from it) with the owner it runs for. */
export const OWNER: unique symbol = Symbol.for('cwx.owner');

/** TimerMethods are the `timer` service's methods, mixed into every context by the root. */
export interface TimerMethods {
  setTimeout(callback: () => void, ms: number): () => unknown;
  setInterval(callback: () => void, ms: number): () => unknown;
  sleep(ms: number): Promise<void>;
}

declare module '@deepseek-ai/cordis' {
  interface Context extends TimerMethods {
    [OWNER]?: OwnerRecord;
    timer: TimerMethods;
  }
}

// Cordis' FiberState is a const enum, which isolated modules cannot read: its values, by name.
const FIBER_PENDING = 0;
const FIBER_FAILED = 3;

/** ownerOf is the owner a context runs for, if it belongs to one. */
export function ownerOf(ctx: Context): OwnerRecord | undefined {
  return ctx[OWNER];
}

/** ownerScope derives from root the context every fiber of owner is loaded under. */
export function ownerScope(root: Context, owner: OwnerRecord): Context {
  return root.extend({ [OWNER]: owner });
}

/** ProvideCheck vets one ctx.provide(name, value) call; it throws to refuse it. */
export type ProvideCheck = (name: string, value: unknown) => void;

/**
 * guardProvide routes every provide of root's reflection layer (ctx.provide, Service
 * constructors, plugin `provide` declarations all end there) through check, and locks the
 * replacement in place.
 */
export function guardProvide(root: Context, check: ProvideCheck): void {
  const reflect = root.reflect;
  const original = reflect.provide;
  const guarded = function (this: typeof reflect, name: string, value?: unknown, impl?: () => boolean) {
    if (typeof name === 'string') check(name, value);
    return original.call(this, name, value, impl);
  };
  Object.defineProperty(reflect, 'provide', { value: guarded, writable: false, configurable: false });
}

/** mixinTimer exposes the timer service's methods on every context (ctx.setTimeout, ...). */
export function mixinTimer(root: Context): void {
  root.mixin('timer', ['setTimeout', 'setInterval', 'sleep']);
}

/** vetListeners calls veto with the event name of every listener added anywhere under root. */
export function vetListeners(root: Context, veto: (event: string) => void): void {
  root.on('internal/listener', (name: string) => {
    veto(name);
  });
}

/**
 * takeListeners hands every listener for event added anywhere under root to take, with the
 * adding context, instead of storing it; what take returns is what that ctx.on returns.
 */
export function takeListeners(root: Context, event: string, take: (ctx: Context, listener: never) => () => unknown): void {
  root.on('internal/listener', function (this: Context, name: string, listener: never) {
    if (name === event) return take(this, listener);
    return undefined;
  });
}

/** LogLine is one Cordis log record as the host exports it. */
export interface LogLine {
  type: Message['type'];
  name: string;
  text: string;
  owner: OwnerRecord | undefined;
}

/** exportLogs sends every Cordis log record, formatted without colours, to sink. */
export function exportLogs(root: Context, sink: (line: LogLine) => void): void {
  const exporter: Exporter = {
    colors: false,
    levels: { default: 2 },
    export(message: Message) {
      const owner = message.fiber?.deref()?.ctx?.[OWNER];
      let text: string;
      try {
        text = Logger.format(exporter, message);
      } catch {
        text = '(unprintable log message)';
      }
      sink({ type: message.type, name: message.name, text, owner });
    },
  };
  root.logger.exporter(exporter);
}

/** isPlugin reports whether v has a shape Cordis loads: a function, a class or `{ apply }`. */
export function isPlugin(v: unknown): v is Plugin {
  if (typeof v === 'function') return true;
  return typeof v === 'object' && v !== null && 'apply' in v && typeof v.apply === 'function';
}

/** injectedNames lists the services a plugin declares in `inject`. */
export function injectedNames(plugin: Plugin): string[] {
  return Object.keys(Inject.resolve(plugin.inject) ?? {});
}

/** loadPlugin starts plugin with config under ctx; awaiting the fiber settles its load. */
export function loadPlugin(ctx: Context, plugin: Plugin, config: unknown): Fiber & PromiseLike<Fiber> {
  return ctx.plugin(plugin, config);
}

/** failed reports whether a fiber's plugin threw while loading (or its config was refused). */
export function failed(fiber: Fiber): boolean {
  return fiber.state === FIBER_FAILED;
}

/**
 * pendingInjects finds a fiber of owner anywhere under root still waiting for services and
 * returns what it injects, or undefined when no fiber of the owner waits.
 */
export function pendingInjects(root: Context, owner: OwnerRecord): string[] | undefined {
  for (const runtime of root.registry.values()) {
    for (const fiber of runtime.fibers) {
      if (fiber.ctx?.[OWNER] === owner && fiber.state === FIBER_PENDING) return Object.keys(fiber.inject ?? {});
    }
  }
  return undefined;
}

/** effectLabels lists the labels of a fiber's live effects. */
export function effectLabels(fiber: Fiber): (string | undefined)[] {
  return fiber.getEffects().map((e) => e.label);
}
