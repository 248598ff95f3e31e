// The services the root provides to plugins: `tools`, `commands` and `timer`. Each is a Cordis
// Service whose methods run with the caller's context (Cordis traces `this.ctx`), so what they
// register is an effect of the calling plugin's fiber. Prototypes are frozen so one plugin cannot
// rewrite a method for all.
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

export function defineServices(registrar: Registrar): ServiceClasses {
  class Tools extends Service {
    constructor(ctx: Context) {
      super(ctx, 'tools');
    }
    register(def: unknown): () => unknown {
      if (!isPlainObject(def)) throw new TypeError('tools.register: the definition must be an object');
      if (!nonEmptyString(def.name)) throw new TypeError('tools.register: `name` must be a non-empty string');
      if (typeof def.execute !== 'function') throw new TypeError(`tools.register: tool \`${def.name}\` needs an \`execute\` function`);
      const schema = compiledSchema(def) ?? def.inputSchema ?? def.parameters ?? { type: 'object', properties: {} };
      if (!isPlainObject(schema)) throw new TypeError(`tools.register: tool \`${def.name}\` has parameters that are not an object`);
      const spec: RegisterSpec = { name: def.name, description: String(def.description ?? ''), input_schema: schema };
      return registrar.add(this.ctx, 'tool', def.name, spec, def);
    }
  }

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
