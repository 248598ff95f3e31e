// The author types held against the host: this file is part of the host's typecheck (`npm run
// typecheck`, which CI runs), so a key added to or removed from what the host hands a plugin, a
// result kind, a core-call code, a timer or logger method, or a schema builder the host's
// schemastery lacks fails the build until cwx-plugin.d.ts says the same.
import type Schemastery from '@deepseek-ai/schemastery';
import type { Context } from '@deepseek-ai/cordis';
import type * as Author from './cwx-plugin.d.ts';
import type { CallContext, CommandInvocation, ToolExecution } from '../src/calls.ts';
import type { TimerMethods } from '../src/cordis-adapter.ts';
import type { CommandResult } from '../src/protocol.generated.ts';
import type { CoreCallCode, CoreCallResult } from '../src/shims/core.ts';
import type { ToolView } from '../src/shims/services.ts';

type Equal<X, Y> = (<T>() => T extends X ? 1 : 2) extends <T>() => T extends Y ? 1 : 2 ? true : false;
type Never<X> = [X] extends [never] ? true : false;

/** Checks is a record of type-level assertions; each member must be exactly `true`. */
export interface Checks {
  callContext: Equal<keyof Author.CallContext, keyof CallContext>;
  toolExec: Equal<keyof Author.ToolExec, keyof ToolExecution>;
  invocation: Equal<keyof Author.CommandInvocation, keyof CommandInvocation>;
  resultKinds: Equal<Author.CommandResult['kind'], CommandResult['kind']>;
  resultKeys: Equal<keyof Author.CommandResult | 'prompt', keyof CommandResult>;
  coreCodes: Equal<Author.CoreCallCode, CoreCallCode>;
  coreResult: Equal<keyof Author.CoreCallResult, keyof CoreCallResult>;
  toolView: Equal<keyof Author.ToolView, keyof ToolView>;
  timer: Equal<keyof Author.Timer, keyof TimerMethods>;
  logger: Never<Exclude<keyof Author.Logger, keyof Context['logger']>>;
  context: Never<Exclude<keyof Author.Context, keyof Context | 'tools' | 'commands'>>;
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
  toolView: true,
  timer: true,
  logger: true,
  context: true,
  builders: true,
  schemaMethods: true,
};
