// The Cordis root: one Context for every plugin of this host. It provides `tools`, `commands`,
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

/** CORE_SERVICES may never be provided by a plugin (ARCHITECTURE.md, “Trust model”, plus the host's own shims). */
export const CORE_SERVICES: ReadonlySet<string> = new Set([
  'approval', 'agents', 'sessions', 'llm', 'sandboxPolicy', 'credentials', 'fs', 'subprocess',
  'systemPrompt', 'tools', 'commands', 'skills', 'prompt', 'storage', 'logger', 'timer',
  'shellHooks', 'loader', 'runtimeLoop', 'mcp', 'avatars', 'events', 'reflect', 'registry', 'userQuestions',
]);

/** PROVIDED_SERVICES are the names a plugin may inject. */
export const PROVIDED_SERVICES: ReadonlySet<string> = new Set(['tools', 'commands', 'timer', 'prompt', 'systemPrompt', 'storage', 'userQuestions', 'sessions', 'subagents', 'skills', 'agents', 'logger', 'events', 'reflect', 'registry']);

/** BUILTIN_SERVICES are the further names a builtin module (owner `host:<id>`) may inject, on the builtin tier only. */
export const BUILTIN_SERVICES: ReadonlySet<string> = new Set(['shellHooks']);

/** NEVER_EMITTED events: a listener for one of them would never run, so it is refused. */
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
    if (NEVER_EMITTED.has(name)) throw new Error(`cannot listen to \`${name}\`: the cwx extension host never emits it`);
  });

  exportLogs(ctx, (line) => {
    const level = line.type === 'error' ? 'error' : line.type === 'warn' ? 'warn' : 'info';
    log(level, `[${line.name}] ${line.text}`, line.owner);
  });
  return { ctx };
}
