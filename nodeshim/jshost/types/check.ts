// The author types held against the host: this file is part of the host's typecheck (`npm run
// typecheck`, which CI runs), so a key added to or removed from what the host hands a plugin, a
// result kind, a core-call or question code, a verdict or answer kind, a method of a service
// (storage, prompt, systemPrompt, userQuestions, timer, logger), or a schema builder the host's
// schemastery lacks fails the build until cwx-plugin.d.ts says the same.
import type Schemastery from '@deepseek-ai/schemastery';
import type { Context } from '@deepseek-ai/cordis';
import type * as Author from './cwx-plugin.d.ts';
import type { CallContext, CommandInvocation, ToolExecution } from '../src/calls.ts';
import type { TimerMethods } from '../src/cordis-adapter.ts';
import type { HOOK_EVENT, PreExecute } from '../src/hooks.ts';
import type { CommandResult, HookVerdict, UserAnswer, UserOption } from '../src/protocol.generated.ts';
import type { CoreCallCode, CoreCallError, CoreCallResult } from '../src/shims/core.ts';
import type { PromptMethods, SystemPromptMethods } from '../src/shims/prompt.ts';
import type { QuestionCode, QuestionError, QuestionMethods } from '../src/shims/questions.ts';
import type { ToolView } from '../src/shims/services.ts';
import type { Activation, AgentServiceCode } from '../src/shims/agent.ts';
import type { StorageError, StorageMethods } from '../src/shims/storage.ts';

type Equal<X, Y> = (<T>() => T extends X ? 1 : 2) extends <T>() => T extends Y ? 1 : 2 ? true : false;
type Never<X> = [X] extends [never] ? true : false;
/** KeysOf is every key of every member of a union (keyof of a union is only the shared ones). */
type KeysOf<U> = U extends unknown ? keyof U : never;

/** Injected are the services an author's Context declares beyond Cordis' own keys. */
type Injected = 'tools' | 'commands' | 'prompt' | 'systemPrompt' | 'storage' | 'userQuestions' | 'sessions' | 'subagents' | 'skills';

/** Checks is a record of type-level assertions; each member must be exactly `true`. */
export interface Checks {
  callContext: Equal<keyof Author.CallContext, keyof CallContext>;
  toolExec: Equal<keyof Author.ToolExec, keyof ToolExecution>;
  invocation: Equal<keyof Author.CommandInvocation, keyof CommandInvocation>;
  resultKinds: Equal<Author.CommandResult['kind'], CommandResult['kind']>;
  resultKeys: Equal<keyof Author.CommandResult | 'prompt', keyof CommandResult>;
  coreCodes: Equal<Author.CoreCallCode, CoreCallCode>;
  coreResult: Equal<keyof Author.CoreCallResult, keyof CoreCallResult>;
  coreError: Equal<keyof Author.CoreCallError, keyof CoreCallError>;
  hookEvent: Equal<Author.HookEvent, typeof HOOK_EVENT>;
  preExecute: Equal<keyof Author.PreExecute, keyof PreExecute>;
  verdicts: Equal<KeysOf<Author.PreExecuteVerdict>, Exclude<HookVerdict['kind'], 'abstain'> | 'allow'>;
  prompt: Equal<keyof Author.Prompt, keyof PromptMethods>;
  systemPrompt: Equal<keyof Author.SystemPrompt, keyof SystemPromptMethods>;
  storage: Equal<keyof Author.Storage, keyof StorageMethods>;
  storageError: Equal<keyof Author.StorageError, keyof StorageError>;
  questions: Equal<keyof Author.UserQuestions, keyof QuestionMethods>;
  questionCodes: Equal<Author.QuestionCode, QuestionCode>;
  questionError: Equal<keyof Author.QuestionError, keyof QuestionError>;
  questionOption: Equal<keyof Author.QuestionOption, keyof UserOption>;
  answerKinds: Equal<Author.QuestionAnswer['kind'], UserAnswer['kind']>;
  answerKeys: Equal<KeysOf<Author.QuestionAnswer>, keyof UserAnswer>;
  toolView: Equal<keyof Author.ToolView, keyof ToolView>;
  agentCodes: Equal<Author.AgentServiceError['code'], AgentServiceCode>;
  activation: Equal<keyof Author.Activation, keyof Activation>;
  timer: Equal<keyof Author.Timer, keyof TimerMethods>;
  logger: Never<Exclude<keyof Author.Logger, keyof Context['logger']>>;
  context: Never<Exclude<keyof Author.Context, keyof Context | Injected>>;
  builders: Never<Exclude<keyof Author.SchemaBuilder, keyof typeof Schemastery>>;
  schemaMethods: Never<Exclude<keyof Author.Schema, keyof Schemastery>>;
}

type AllTrue<T> = { [K in keyof T]: T[K] extends true ? true : never };
/** held fails to typecheck when any member of Checks is not `true`, naming it. */
export const held: AllTrue<Checks> = {
  callContext: true,
  toolExec: true,
  invocation: true,
  resultKinds: true,
  resultKeys: true,
  coreCodes: true,
  coreResult: true,
  coreError: true,
  hookEvent: true,
  preExecute: true,
  verdicts: true,
  prompt: true,
  systemPrompt: true,
  storage: true,
  storageError: true,
  questions: true,
  questionCodes: true,
  questionError: true,
  questionOption: true,
  answerKinds: true,
  answerKeys: true,
  toolView: true,
  agentCodes: true,
  activation: true,
  timer: true,
  logger: true,
  context: true,
  builders: true,
  schemaMethods: true,
};

/** usage is a plugin written against the author types, using each declaration above as documented. */
export const usage: Author.PluginModule = {
  inject: ['tools', 'prompt', 'systemPrompt', 'storage', 'userQuestions'],
  async apply(ctx) {
    ctx.on('tools/pre-execute', (exec, next) => {
      if (exec.name === 'shell') return { ask: 'runs a shell command' };
      if (exec.signal.aborted) return { deny: 'too late' };
      return exec.workspace === '' ? { annotate: 'no workspace' } : next();
    });
    ctx.on('tools/pre-execute', async () => ({ revise: { path: 'README.md' } }));
    ctx.prompt.registerSection({ id: 'style', text: 'Answer briefly.' });
    ctx.systemPrompt.section({ name: 'dsh', content: 'DSH spelling.' });
    const n = (await ctx.storage.get<number>('count')) ?? 0;
    await ctx.storage.set('count', n + 1);
    if ((await ctx.storage.list()).length > 10) await ctx.storage.delete('count');
    ctx.tools.register({
      name: 'pick',
      description: 'asks the person',
      async execute(_args, exec) {
        const a = await ctx.userQuestions.ask({ question: 'Which?', options: ['a', { label: 'b', description: 'the other' }], allowText: true });
        const read = await exec.core?.call('read_file', { path: 'README.md' }, { signal: exec.signal });
        return a.kind === 'choice' ? a.choice : a.kind === 'text' ? a.text : read?.isError === false ? 'read' : 'skipped';
      },
    });
  },
};
