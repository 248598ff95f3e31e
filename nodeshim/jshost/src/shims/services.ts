// The services the root provides to plugins: `tools`, `commands` and `timer`. Each is a Cordis
// Service whose methods run with the caller's context (Cordis traces `this.ctx`), so what they
// register is an effect of the calling plugin's fiber. Prototypes are frozen so one plugin cannot
// rewrite a method for all.
//
// `tools` and `commands` are complete or refuse by name: a method of the DSH services that cwx
// does not implement (`tools.presentAs`, `commands.list`, ...) exists and throws
// "`tools.presentAs` is not provided by cwx", so the plugin's activation fails saying what it
// asked for instead of "is not a function". `tools.get(name)` is a read-only look-up of the
// tools registered in this host (the core's catalog is not visible from here: a native tool or
// a tool of the other tier is not found).
import { Service, type Context } from '@deepseek-ai/cordis';
import type { TimerMethods } from '../cordis-adapter.ts';
import type { RegisterSpec } from '../protocol.generated.ts';
import { isPlainObject } from '../validate.ts';
import { compiledSchema } from '../dsh/tools-compat.ts';
import { nonEmptyString, type Registrar } from './registrar.ts';

export interface ServiceClasses {
  Tools: new (ctx: Context) => Service;
  Commands: new (ctx: Context) => Service;
  Timer: new (ctx: Context) => Service;
}

/** NotProvidedError is thrown by a method of a DSH service that cwx does not implement. */
export class NotProvidedError extends Error {
  override name = 'NotProvidedError';
  constructor(service: string, method: string) {
    super(`\`${service}.${method}\` is not provided by cwx`);
  }
}
Object.freeze(NotProvidedError.prototype);

/** NOT_METHODS are read by the runtime and by libraries on any object; they stay undefined. */
const NOT_METHODS = new Set(['then', 'catch', 'finally', 'toJSON', 'inspect', 'asymmetricMatch', 'nodeType', '$$typeof', 'prototype', 'length', 'caller', 'arguments']);

/**
 * refusingBase is a prototype for a service class: every string-named property it does not
 * have reads as a method that throws NotProvidedError. Cordis finds a service's methods by
 * walking its prototype chain, so the refusal is what a plugin calls through `ctx.<service>`.
 */
export function refusingBase(service: string, base: object): object {
  const refusals = new Map<string, () => never>();
  const refusal = (method: string): (() => never) => {
    let fn = refusals.get(method);
    if (!fn) {
      fn = () => {
        throw new NotProvidedError(service, method);
      };
      Object.freeze(fn);
      refusals.set(method, fn);
    }
    return fn;
  };
  const refuses = (target: object, prop: string | symbol): prop is string =>
    typeof prop === 'string' && !NOT_METHODS.has(prop) && !(prop in target);
  return new Proxy(Object.create(base), {
    get: (target, prop, receiver) => (refuses(target, prop) ? refusal(prop) : Reflect.get(target, prop, receiver)),
    getOwnPropertyDescriptor: (target, prop) =>
      refuses(target, prop) ? { value: refusal(prop), writable: false, enumerable: false, configurable: true } : Reflect.getOwnPropertyDescriptor(target, prop),
  });
}

/** ToolView is what `tools.get` returns: a frozen, read-only description of a live tool. */
export interface ToolView {
  readonly name: string;
  readonly description: string;
  readonly inputSchema: unknown;
  readonly plugin: string;
}

function freezeDeep<T>(v: T): T {
  if (typeof v === 'object' && v !== null && !Object.isFrozen(v)) {
    Object.freeze(v);
    for (const x of Object.values(v)) freezeDeep(x);
  }
  return v;
}

export function defineServices(registrar: Registrar): ServiceClasses {
  class Tools extends Service {
    constructor(ctx: Context) {
      super(ctx, 'tools');
    }
    register(def: unknown): () => unknown {
      if (!isPlainObject(def)) throw new TypeError('tools.register: the definition must be an object');
      if (!nonEmptyString(def.name)) throw new TypeError('tools.register: `name` must be a non-empty string');
      if (typeof def.execute !== 'function') throw new TypeError(`tools.register: tool \`${def.name}\` needs an \`execute\` function`);
      // a presentation hint: accepted, and it changes nothing here (every tool is listed)
      if (def.deferLoading !== undefined && typeof def.deferLoading !== 'boolean') {
        throw new TypeError(`tools.register: tool \`${def.name}\` has a \`deferLoading\` that is not a boolean`);
      }
      const schema = compiledSchema(def) ?? def.inputSchema ?? def.parameters ?? { type: 'object', properties: {} };
      if (!isPlainObject(schema)) throw new TypeError(`tools.register: tool \`${def.name}\` has parameters that are not an object`);
      const spec: RegisterSpec = { name: def.name, description: String(def.description ?? ''), input_schema: schema };
      return registrar.add(this.ctx, 'tool', def.name, spec, def);
    }
    /**
     * get looks a live tool of this host up by its exact name (the second argument of DSH's
     * `tools.get(name, agent)` is ignored): a frozen copy of its name, description, input
     * schema and plugin, or undefined. It cannot call the tool.
     */
    get(name: unknown): ToolView | undefined {
      if (typeof name !== 'string') throw new TypeError('tools.get: `name` must be a string');
      const reg = registrar.find('tool', name);
      if (!reg) return undefined;
      const def = reg.def;
      const schema = compiledSchema(def) ?? def.inputSchema ?? def.parameters ?? { type: 'object', properties: {} };
      return freezeDeep({
        name: reg.name,
        description: String(def.description ?? ''),
        inputSchema: JSON.parse(JSON.stringify(schema)),
        plugin: reg.owner.pluginName,
      });
    }
  }
  Object.setPrototypeOf(Tools.prototype, refusingBase('tools', Service.prototype));

  class Commands extends Service {
    constructor(ctx: Context) {
      super(ctx, 'commands');
    }
    register(def: unknown): () => unknown {
      if (!isPlainObject(def)) throw new TypeError('commands.register: the definition must be an object');
      if (!nonEmptyString(def.name)) throw new TypeError('commands.register: `name` must be a non-empty string');
      if (typeof def.handler !== 'function') throw new TypeError(`commands.register: command \`${def.name}\` needs a \`handler\` function`);
      const input = def.input;
      if (input !== undefined && !isPlainObject(input)) throw new TypeError(`commands.register: command \`${def.name}\` has an \`input\` that is not an object`);
      if (input && input.attachments === true) throw new TypeError(`commands.register: command \`${def.name}\` asks for attachments, which cwx does not support`);
      const hint = def.argumentHint ?? input?.hint;
      if (hint !== undefined && !nonEmptyString(hint)) throw new TypeError(`commands.register: command \`${def.name}\` has an empty argument hint`);
      const spec: RegisterSpec = { name: def.name, description: String(def.description ?? '') };
      if (hint !== undefined) spec.argument_hint = hint;
      return registrar.add(this.ctx, 'command', def.name, spec, def);
    }
  }
  Object.setPrototypeOf(Commands.prototype, refusingBase('commands', Service.prototype));

  class Timer extends Service implements TimerMethods {
    constructor(ctx: Context) {
      super(ctx, 'timer');
    }
    setTimeout(callback: () => void, ms: number): () => unknown {
      let dispose: () => unknown = () => undefined;
      dispose = this.ctx.effect(() => {
        const t = setTimeout(() => {
          void dispose();
          callback();
        }, ms);
        return () => clearTimeout(t);
      }, 'ctx.setTimeout()');
      return dispose;
    }
    setInterval(callback: () => void, ms: number): () => unknown {
      return this.ctx.effect(() => {
        const t = setInterval(callback, ms);
        return () => clearInterval(t);
      }, 'ctx.setInterval()');
    }
    sleep(ms: number): Promise<void> {
      return new Promise((resolve, reject) => {
        let dispose: () => unknown = () => undefined;
        dispose = this.ctx.effect(() => {
          const t = setTimeout(() => {
            void dispose();
            resolve();
          }, ms);
          return () => {
            clearTimeout(t);
            reject(new Error('Context has been disposed'));
          };
        }, 'ctx.sleep()');
      });
    }
  }

  for (const C of [Tools, Commands, Timer]) Object.freeze(C.prototype);
  return { Tools, Commands, Timer };
}
