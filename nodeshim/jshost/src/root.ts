// The Cordis root: one Context for every plugin of this host. As the pinned compatibility table
// (dsh/compatibility.json) says, it provides `tools`, `commands`,
// `timer`, `prompt` (with DSH's `systemPrompt` onto it), `storage`, `userQuestions` and the agent's
// services (`sessions`, `subagents`, `skills`, `agents`: shims/agent.ts) (the logger is Cordis' own,
// exported as `log` notifications), refuses any attempt to provide a core service name through any
// route (they all end in the one ReflectService's `provide`), and refuses listeners for DSH
// lifecycle events the host never emits.
import { Context, exportLogs, guardProvide, mixinTimer, takeListeners, vetListeners } from './cordis-adapter.ts';
import { HOOK_EVENT, registerHook } from './hooks.ts';
import type { OwnerRecord } from './owner.ts';
import { defineServices } from './shims/services.ts';
import { definePrompt } from './shims/prompt.ts';
import { defineStorage } from './shims/storage.ts';
import { defineQuestions } from './shims/questions.ts';
import { defineAgentServices } from './shims/agent.ts';
import { defineShellHooks } from './shims/shellhooks.ts';
import type { Tier } from './protocol.generated.ts';
import type { Registrar } from './shims/registrar.ts';
import compatibility from './dsh/compatibility.json' with { type: 'json' };

/**
 * COMPATIBILITY is the pinned compatibility table (dsh/compatibility.json, shipped verbatim as
 * dist/compatibility.json, whose sha256 every plugin review shows and every receipt records):
 * `provided_services` are the names a plugin may inject, grouped by who declares them (DSH,
 * Cordis, cwx); `builtin_services` the further names a builtin module may inject;
 * `refused_services` the names no plugin may provide, each with why.
 */
const COMPATIBILITY: { provided_services: Record<string, string[]>; builtin_services: string[]; refused_services: Record<string, string> } = compatibility;

/** CORE_SERVICES may never be provided by a plugin (ARCHITECTURE.md, “Trust model”, plus the host's own shims). */
export const CORE_SERVICES: ReadonlySet<string> = new Set(Object.keys(COMPATIBILITY.refused_services));

/** PROVIDED_SERVICES are the names a plugin may inject. */
export const PROVIDED_SERVICES: ReadonlySet<string> = new Set(Object.values(COMPATIBILITY.provided_services).flat());

/** refusalReason is why the compatibility table refuses service, or undefined when it does not name it. */
export function refusalReason(service: string): string | undefined {
  return Object.hasOwn(COMPATIBILITY.refused_services, service) ? COMPATIBILITY.refused_services[service] : undefined;
}

/** BUILTIN_SERVICES are the further names a builtin module (owner `host:<id>`) may inject, on the builtin tier only. */
export const BUILTIN_SERVICES: ReadonlySet<string> = new Set(COMPATIBILITY.builtin_services);

/** CORDIS_BUILTINS are the root's own Cordis services: provided by every Context, no shim. */
const CORDIS_BUILTINS = new Set(['logger', 'events', 'reflect', 'registry']);

/**
 * NEVER_EMITTED events, and every `agent/…` and `subagent/…` event: a listener for one of them
 * would never run, so it is refused (injecting `agents` is admitted; its events are not emitted).
 */
const NEVER_EMITTED = new Set([
  'agent/created', 'agent/pre-step', 'agent/turn-stopping', 'tools/post-execute',
  'tools/execute', 'subagent/start', 'subagent/end',
]);

export class CoreServiceError extends Error {
  override name = 'CoreServiceError';
  constructor(service: string) {
    super(`extension may not provide core service \`${service}\`: the cwx core owns it`);
  }
}

export interface LogSink {
  (level: 'error' | 'warn' | 'info', msg: string, owner?: OwnerRecord): void;
}

export interface Root {
  ctx: Context;
}

export function createRoot(registrar: Registrar, log: LogSink, tier: Tier = 'plugin'): Root {
  const ctx = new Context();
  const { Tools, Commands, Timer } = defineServices(registrar);
  const { Prompt, SystemPrompt } = definePrompt(registrar);
  const Storage = defineStorage();
  const UserQuestions = defineQuestions();
  const { Sessions, Subagents, Skills, Agents } = defineAgentServices();
  const allowed = new Map<string, new (c: Context) => unknown>([
    ['tools', Tools], ['commands', Commands], ['timer', Timer], ['prompt', Prompt], ['systemPrompt', SystemPrompt], ['storage', Storage],
    ['userQuestions', UserQuestions], ['sessions', Sessions], ['subagents', Subagents], ['skills', Skills], ['agents', Agents],
  ]);
  for (const name of PROVIDED_SERVICES) {
    if (!allowed.has(name) && !CORDIS_BUILTINS.has(name)) throw new Error(`dsh/compatibility.json provides \`${name}\`, which the host has no shim for`);
  }
  const ShellHooks = tier === 'builtin' ? defineShellHooks() : undefined;
  if (ShellHooks) allowed.set('shellHooks', ShellHooks);
  const provided = new Set<string>();
  guardProvide(ctx, (name, value) => {
    if (!CORE_SERVICES.has(name)) return;
    const shim = allowed.get(name);
    if (!shim || !(value instanceof shim) || provided.has(name)) throw new CoreServiceError(name);
    provided.add(name);
  });

  new Tools(ctx);
  new Commands(ctx);
  new Timer(ctx);
  new Prompt(ctx);
  new SystemPrompt(ctx);
  new Storage(ctx);
  new UserQuestions(ctx);
  new Sessions(ctx);
  new Subagents(ctx);
  new Skills(ctx);
  new Agents(ctx);
  if (ShellHooks) new ShellHooks(ctx);
  mixinTimer(ctx);

  takeListeners(ctx, HOOK_EVENT, (c, listener) => registerHook(registrar, c, listener));
  vetListeners(ctx, (name) => {
    if (NEVER_EMITTED.has(name) || name.startsWith('agent/') || name.startsWith('subagent/')) throw new Error(`cannot listen to \`${name}\`: the cwx extension host never emits it`);
  });

  exportLogs(ctx, (line) => {
    const level = line.type === 'error' ? 'error' : line.type === 'warn' ? 'warn' : 'info';
    log(level, `[${line.name}] ${line.text}`, line.owner);
  });
  return { ctx };
}
