// cwx-plugin.d.ts: the types a cwx plugin is written against.
//
// Print it with `cwx plugin types`; `cwx plugin new` writes it beside a new plugin. It declares
// what the cwx JS host gives a plugin and nothing else: the context `apply` receives (tools,
// commands, pre-execute hooks, prompt sections, storage, questions to the person, timer, logger,
// effects), a tool's execution and its core calls, a command's invocation and results, the errors
// a plugin can catch, and the config schema builder. A
// tsconfig maps both `cwx-plugin` and `@deepseek-ai/schemastery` to this file:
//
//   "paths": { "cwx-plugin": ["./cwx-plugin.d.ts"], "@deepseek-ai/schemastery": ["./cwx-plugin.d.ts"] }
//
// The host's typecheck holds these declarations against its own (nodeshim/jshost/types/check.ts),
// so a change of the host that an author would notice fails the host's build until this file says it.

/** JsonValue is what survives JSON.stringify unchanged. */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

/** JsonSchema is a JSON Schema object describing a tool's input. */
export type JsonSchema = { [key: string]: JsonValue };

/**
 * ContentBlock is one block of a tool's answer: an MCP content block of the five types cwx
 * carries. `output.render` may also use MCP's names (`mimeType`, an embedded resource's
 * `resource: {uri, mimeType?, text | blob}`); any other type fails the call. Data and blobs
 * are standard base64, within the core's caps (4 MiB a block, 8 MiB a result).
 */
export type ContentBlock =
  | { type: 'text'; text: string }
  | { type: 'image' | 'audio'; data: string; mime_type: string }
  | { type: 'resource_link'; uri: string; name: string; mime_type?: string }
  | { type: 'resource'; uri: string; mime_type?: string; text?: string; blob?: string };

/** RenderedBlock is what `output.render` may return for one block. */
export type RenderedBlock =
  | ContentBlock
  | { type: 'image' | 'audio'; data: string; mimeType: string }
  | { type: 'resource_link'; uri: string; name: string; mimeType?: string }
  | { type: 'resource'; resource: { uri: string; mimeType?: string; text?: string; blob?: string } };

/** CoreCallCode says why `exec.core.call` rejected. */
export type CoreCallCode = 'refused' | 'denied' | 'cancelled' | 'unavailable' | 'failed';

/** CoreCallError is the rejection of `exec.core.call`; `code` says why. */
export interface CoreCallError extends Error {
  readonly name: 'CoreCallError';
  readonly code: CoreCallCode;
}

/** CoreCallResult is what one of the core's own tools answered. */
export interface CoreCallResult {
  content: ContentBlock[];
  isError: boolean;
  structured?: unknown;
}

export interface CoreCallOptions {
  signal?: AbortSignal;
}

/** CoreApi runs one of the core's tools (read_file, shell, ...) through the same approval gate as a model's call. */
export interface CoreApi {
  call(name: string, input?: { [key: string]: JsonValue }, options?: CoreCallOptions): Promise<CoreCallResult>;
}

/** CallContext is what a tool's execution and a command's invocation both carry. */
export interface CallContext {
  /** The call's workspace directory, when the caller named one. */
  readonly workspace?: string;
  readonly sessionId?: string;
  readonly agentId?: string;
  readonly originTurnId?: string;
  /** The plugin's own data directory, when it has one. */
  readonly dataDir?: string;
}

/** ToolExec is the frozen second argument of a tool's `execute`. */
export interface ToolExec<A = unknown> extends CallContext {
  /** Aborted when the call is cancelled or its deadline passes. */
  readonly signal: AbortSignal;
  readonly callId: string;
  /** The validated input, the same value as `execute`'s first argument. */
  readonly args: A;
  readonly arguments: A;
  /** Present only while a call that may ask the core runs. */
  readonly core?: Readonly<CoreApi>;
}

/**
 * ToolReturn is what `execute` may return (or resolve to). A string is the answer's text. Any
 * other plain JSON value is shown as its JSON text and also kept as the structured result.
 * undefined is an empty answer. Throwing fails the call with the error's message.
 */
export type ToolReturn = string | JsonValue | undefined | void;

/** ToolDefinition is what `ctx.tools.register` takes. */
export interface ToolDefinition<A = any> {
  /** A unique name: a letter, then letters, digits, '_' or '-' (64 at most). */
  name: string;
  description: string;
  /** The JSON Schema the core validates every input against before `execute` runs. */
  inputSchema?: JsonSchema;
  /** A presentation hint; accepted, and every tool is listed. */
  deferLoading?: boolean;
  execute(args: A, exec: ToolExec<A>): ToolReturn | Promise<ToolReturn>;
  /** output.render replaces the shown text with its own text blocks; the structured result stays. */
  output?: { render(args: A, value: unknown): RenderedBlock[] };
}

/** ToolView is what `ctx.tools.get` finds: a frozen description of a live tool of this host. */
export interface ToolView {
  readonly name: string;
  readonly description: string;
  readonly inputSchema: unknown;
  readonly plugin: string;
}

export interface Tools {
  /** register adds a tool; the returned function removes it. */
  register<A = any>(def: ToolDefinition<A>): () => unknown;
  get(name: string): ToolView | undefined;
}

/** CommandInvocation is the frozen argument of a command's `handler`. */
export interface CommandInvocation extends CallContext {
  readonly commandId: string;
  /** Everything after the command name, its leading space included. */
  readonly rawInput: string;
  /** rawInput without the leading space. */
  readonly args: string;
  readonly attachments: readonly never[];
  readonly signal: AbortSignal;
}

/**
 * CommandResult is a command's outcome: `success` shows its text, `error` shows its text as a
 * failure, `submit` sends its prompt to the model as the person's next message.
 */
export type CommandResult =
  | { kind: 'success'; text?: string }
  | { kind: 'error'; text: string }
  | { kind: 'submit'; prompt: string; text?: string };

/** CommandReturn: a string is a success with that text; undefined is a success without one. */
export type CommandReturn = CommandResult | string | undefined | void;

export interface CommandDefinition {
  /** A unique name; built-in names (help, exit, reload, host, ...) cannot be taken. */
  name: string;
  description: string;
  argumentHint?: string;
  handler(inv: CommandInvocation): CommandReturn | Promise<CommandReturn>;
}

export interface Commands {
  /** register adds a command; the returned function removes it. */
  register(def: CommandDefinition): () => unknown;
}

/** Timer: every timer is an effect of the plugin and is cleared when the plugin stops. */
export interface Timer {
  setTimeout(callback: () => void, ms: number): () => unknown;
  setInterval(callback: () => void, ms: number): () => unknown;
  /** sleep rejects with "Context has been disposed" if the plugin stops first. */
  sleep(ms: number): Promise<void>;
}

/** Logger lines are attributed to the plugin and kept in its log file (`cwx logs NAME`). */
export interface Logger {
  debug(format: any, ...args: any[]): void;
  info(format: any, ...args: any[]): void;
  warn(format: any, ...args: any[]): void;
  error(format: any, ...args: any[]): void;
}

/** HookEvent is the one event a plugin listens to: a call is about to run. */
export type HookEvent = 'tools/pre-execute';

/** PreExecute is the frozen first argument of a pre-execute listener: the call about to run. */
export interface PreExecute {
  /** The tool's name as the model sees it (an extension tool, a native or a core call). */
  readonly name: string;
  /** A frozen copy of the call's input. */
  readonly arguments: unknown;
  readonly callId: string;
  /** Aborted when the core stops waiting for the verdict. */
  readonly signal: AbortSignal;
  readonly workspace: string;
}

/**
 * PreExecuteVerdict is a listener's answer: one key, nothing else. `deny` stops the call with
 * the reason; `ask` forces an approval card showing the reason; `annotate` adds a note the card
 * shows; `revise` replaces the input (a revised input that breaks the tool's schema is denied).
 * `allow` abstains (DSH's spelling, logged once): a hook never approves a call.
 */
export type PreExecuteVerdict =
  | { deny: string }
  | { ask: string }
  | { annotate: string }
  | { revise: { [key: string]: JsonValue } }
  | { allow: true };

/** PreExecuteReturn: nothing (or next()'s value) abstains. Throwing, or not answering within 5 s, counts as a deny. */
export type PreExecuteReturn = PreExecuteVerdict | undefined | void;

export type PreExecuteListener = (exec: PreExecute, next: () => undefined) => PreExecuteReturn | Promise<PreExecuteReturn>;

/** PromptSection is what `ctx.prompt.registerSection` takes: `text` under the section's `id`. */
export interface PromptSection {
  id: string;
  text: string;
}

/** Prompt adds sections to the model's prompt; the core bounds, attributes and frames their text. */
export interface Prompt {
  /** registerSection adds a section; the returned function withdraws it. */
  registerSection(section: PromptSection): () => unknown;
}

/** SystemPromptSection is DSH's spelling of a prompt section: `name`, and `text` or `content`. */
export type SystemPromptSection = { name: string; text: string } | { name: string; content: string };

/** SystemPrompt is DSH's service for the same prompt sections as `Prompt`. */
export interface SystemPrompt {
  section(section: SystemPromptSection): () => unknown;
}

/**
 * Storage is the plugin's own plain-JSON store in its data directory. A key is a letter or digit
 * then up to 127 of letters, digits, '_', '.' or '-'; a value is at most 64 KiB of JSON and a
 * plugin keeps at most 1 MiB. Operations run one after another, only while the plugin is active;
 * every refusal is a StorageError.
 */
export interface Storage {
  /** get is the key's value, or undefined when it has none. */
  get<T extends JsonValue = JsonValue>(key: string): Promise<T | undefined>;
  /** set replaces the key's value atomically. */
  set(key: string, value: JsonValue): Promise<void>;
  /** delete removes the key and reports whether there was one. */
  delete(key: string): Promise<boolean>;
  /** list is every key, sorted. */
  list(): Promise<string[]>;
}

/** StorageError is every refusal of `ctx.storage`: a bad key, a value that is not JSON, the quota, a corrupt file. */
export interface StorageError extends Error {
  readonly name: 'StorageError';
}

/** QuestionOption is one choice offered to the person; a string is a label alone. */
export interface QuestionOption {
  label: string;
  description?: string;
}

/**
 * Question is what `ctx.userQuestions.ask` takes: a string, or the question with the choices
 * offered. `allowText` (DSH: `allowOther`, `custom`) lets the person answer in their own words.
 * A question waits for the person: `wait` and timeouts are refused.
 */
export type Question =
  | string
  | ({ options?: readonly (string | QuestionOption)[]; allowText?: boolean; allowOther?: boolean; custom?: boolean } & (
      | { question: string }
      | { text: string }
    ));

/** QuestionAnswer is the person's frozen answer. */
export type QuestionAnswer = { kind: 'choice'; choice: string } | { kind: 'text'; text: string } | { kind: 'skipped' };

/** QuestionCode says why `ask` rejected; NO_PROVIDER means no person is present to answer. */
export type QuestionCode = 'NO_PROVIDER' | 'NO_INVOCATION' | 'REFUSED' | 'CANCELLED' | 'FAILED';

/** QuestionError is the rejection of `ctx.userQuestions.ask`; `code` says why. */
export interface QuestionError extends Error {
  readonly name: 'QuestionError';
  readonly code: QuestionCode;
}

/** UserQuestions asks the person, only while one of the plugin's own tools or commands runs. */
export interface UserQuestions {
  ask(question: Question): Promise<Readonly<QuestionAnswer>>;
}

/** AgentServiceError is the rejection of a call to the agent's services; `code` says why. */
export interface AgentServiceError extends Error {
  readonly name: 'AgentServiceError';
  readonly code: 'NO_INVOCATION' | 'REFUSED' | 'DENIED' | 'CANCELLED' | 'FAILED';
}

/** Sessions saves the agent's session, only while one of the plugin's own tools runs. */
export interface Sessions {
  /** flush saves the running tool call's session (DSH passes exec.agent.session; cwx: exec.sessionId). */
  flush(session?: unknown): Promise<void>;
}

/** ToolFilter narrows a child's tools: `allow` keeps only those (each a tool of the parent), `deny` removes. */
export interface ToolFilter {
  allow?: readonly string[];
  deny?: readonly string[];
}

/** Activation is a started child agent. */
export interface Activation {
  readonly childId: string;
  /** the child's tools, as the core narrowed them */
  readonly tools: readonly string[];
  readonly result: Promise<Readonly<{ status: 'completed' | 'failed' | 'cancelled'; text: string }>>;
  /** dispose stops the child and its own descendants. */
  dispose(): Promise<void>;
}

/** Subagents starts child agents through the agent's sub-agent manager (DSH's `spawn` provider only). */
export interface Subagents {
  getProvider(name: 'spawn'): Readonly<{ name: 'spawn'; inheritsParentContext: false }>;
  getProvider(name: string): undefined;
  startActivation(options: {
    provider?: 'spawn';
    delivery?: 'caller';
    signal?: AbortSignal;
    request: { parent?: string | { id: string }; prompt: string; agentOptions?: { persona?: string; toolFilter?: ToolFilter; model?: string } };
  }): Promise<Activation>;
}

/** Skills lists the skills the core discovered under the agent's skills roots. */
export interface Skills {
  list(): Promise<readonly Readonly<{ name: string; description: string; path: string }>[]>;
}

/** Disposer undoes an effect; it may be async (the host waits 2 s at most). */
export type Disposer = () => unknown;

/** Context is the `ctx` that `apply` receives. */
export interface Context extends Timer {
  /** Present when the plugin declares `inject = ['tools']`. */
  tools: Tools;
  /** Present when the plugin declares `inject = ['commands']`. */
  commands: Commands;
  /** Present when the plugin declares `inject = ['prompt']`. */
  prompt: Prompt;
  /** Present when the plugin declares `inject = ['systemPrompt']`. */
  systemPrompt: SystemPrompt;
  /** Present when the plugin declares `inject = ['storage']`; it refuses when the plugin has no data directory. */
  storage: Storage;
  /** Present when the plugin declares `inject = ['userQuestions']`. */
  userQuestions: UserQuestions;
  /** Present when the plugin declares `inject = ['sessions']`; refused by name when the agent provides none. */
  sessions: Sessions;
  /** Present when the plugin declares `inject = ['subagents']`; refused by name when the agent provides none. */
  subagents: Subagents;
  /** Present when the plugin declares `inject = ['skills']`. */
  skills: Skills;
  /**
   * on registers a pre-execute hook, asked before every gated call (extension tools, the core's
   * own tools, core calls), the plugin's own included; the returned function removes it.
   */
  on(event: HookEvent, listener: PreExecuteListener): () => unknown;
  timer: Timer;
  logger: Logger;
  /** effect runs setup now and its disposer when the plugin is disabled, re-activated or stopped. */
  effect(setup: () => Disposer | void | Promise<Disposer | void>, label?: string): () => unknown;
}

/** NotProvidedError is thrown by a method of a DSH service that cwx does not implement. */
export interface NotProvidedError extends Error {
  readonly name: 'NotProvidedError';
}

/** PluginModule is the shape of an entry module: `apply` is called once per activation. */
export interface PluginModule<C = unknown> {
  name?: string;
  inject?: readonly string[];
  Config?: Schema<C>;
  apply(ctx: Context, config: C): void | Promise<void>;
}

/** Schema<T> describes a config value of type T; values come from config.toml. */
interface Schema<T = any> {
  (value?: unknown): T;
  default(value: T): Schema<T>;
  description(text: string): Schema<T>;
  required(value?: boolean): Schema<T>;
  min(value: number): Schema<T>;
  max(value: number): Schema<T>;
  pattern(regexp: RegExp): Schema<T>;
  hidden(value?: boolean): Schema<T>;
}

type SchemaValue<X> = X extends Schema<infer U> ? U : never;

/** SchemaBuilder is the default export of `@deepseek-ai/schemastery`, which the host provides. */
export interface SchemaBuilder {
  any<T = any>(): Schema<T>;
  const<const T>(value: T): Schema<T>;
  string(): Schema<string>;
  number(): Schema<number>;
  natural(): Schema<number>;
  percent(): Schema<number>;
  boolean(): Schema<boolean>;
  array<X extends Schema>(inner: X): Schema<SchemaValue<X>[]>;
  dict<X extends Schema>(inner: X): Schema<{ [key: string]: SchemaValue<X> }>;
  object<X extends { [key: string]: Schema }>(dict: X): Schema<{ [K in keyof X]: SchemaValue<X[K]> }>;
  union<const X extends Schema | string | number | boolean>(list: readonly X[]): Schema<X extends Schema ? SchemaValue<X> : X>;
}

declare const Schema: SchemaBuilder;
export { Schema as default, Schema };
