// The `prompt` service, and DSH's `systemPrompt` onto the same mechanism: a plugin contributes a
// prompt section, registered with the core as kind `prompt_section` (`spec.name` is the id,
// `spec.description` the text) through the same owned registration lifecycle as tools and
// commands, so a section is withdrawn with the effect that made it and with its owner. The
// core decides the bounds and how the text is attributed and framed (ARCHITECTURE.md, “Prompt
// sections”); nothing here can reach the system prompt itself.
//
//   ctx.prompt.registerSection({ id, text })         (cwx)
//   ctx.systemPrompt.section({ name, text | content })  (DSH: a section of the agent's prompt)
import { Service, type Context } from '@deepseek-ai/cordis';
import { isPlainObject } from '../validate.ts';
import type { Registrar } from './registrar.ts';

export interface PromptClasses {
  Prompt: new (ctx: Context) => Service;
  SystemPrompt: new (ctx: Context) => Service;
}

function register(registrar: Registrar, ctx: Context, method: string, def: unknown, idField: 'id' | 'name'): () => unknown {
  if (!isPlainObject(def)) throw new TypeError(`${method}: the section must be an object`);
  const id = def[idField];
  if (typeof id !== 'string' || id === '') throw new TypeError(`${method}: \`${idField}\` must be a non-empty string`);
  const text = def.text ?? (idField === 'name' ? def.content : undefined);
  if (typeof text !== 'string') throw new TypeError(`${method}: section \`${id}\` needs its \`text\` as a string`);
  return registrar.add(ctx, 'prompt_section', id, { name: id, description: text }, def);
}

/** PromptMethods and SystemPromptMethods are the services' methods (cwx-plugin.d.ts declares them to authors). */
export interface PromptMethods {
  registerSection(def: unknown): () => unknown;
}
export interface SystemPromptMethods {
  section(def: unknown): () => unknown;
}

export function definePrompt(registrar: Registrar): PromptClasses {
  class Prompt extends Service implements PromptMethods {
    constructor(ctx: Context) {
      super(ctx, 'prompt');
    }
    /** registerSection adds {id, text} to the prompt; the returned function withdraws it. */
    registerSection(def: unknown): () => unknown {
      return register(registrar, this.ctx, 'prompt.registerSection', def, 'id');
    }
  }

  class SystemPrompt extends Service implements SystemPromptMethods {
    constructor(ctx: Context) {
      super(ctx, 'systemPrompt');
    }
    /** section is DSH's spelling: {name, text} (or {name, content}), the same prompt section. */
    section(def: unknown): () => unknown {
      return register(registrar, this.ctx, 'systemPrompt.section', def, 'name');
    }
  }

  for (const C of [Prompt, SystemPrompt]) Object.freeze(C.prototype);
  return { Prompt, SystemPrompt };
}
