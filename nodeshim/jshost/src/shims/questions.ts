// DSH's `userQuestions` service: while one of its tools or commands runs, a plugin asks the person
// a question (`user/ask`), and the answer is typed: a choice, the person's own text, or skipped.
// The request carries the running invocation's ticket, which lives in this module's async scope
// and nowhere a plugin can read; outside an invocation of the asking plugin's own tool or
// command there is no scope and the question is refused here. Who answers is the core's
// business (ARCHITECTURE.md, “Questions to the person”): with no person present the core
// answers NO_PROVIDER. `wait` and timed asks are refused by name.
//
// `ask` takes cwx's one question (a string or {question, options, allowText}) and answers it
// typed, or DSH's request {questions: [{id, question, header?, options?}], agent?, signal?}: each
// question goes to the core in turn and the answer is DSH's {answers: [{id, selected, custom?}]}
// (a choice is the one selected label, the person's own text is `custom`, skipped selects
// nothing). DSH's `multiSelect` is refused by name: a cwx question has one choice.
// `@deepseek-ai/dsh-user-questions` (dsh/resolve.ts) exports QuestionError as DSH's
// UserQuestionError, so a plugin's `instanceof` check sees the rejections of this service.
import { AsyncLocalStorage } from 'node:async_hooks';
import { Service, type Context } from '@deepseek-ai/cordis';
import { ownerOf } from '../cordis-adapter.ts';
import type { OwnerRecord } from '../owner.ts';
import type { UserAnswer, UserOption, UserQuestion } from '../protocol.generated.ts';
import { ErrorCode } from '../protocol.generated.ts';
import { RpcError, type RpcPeer } from '../rpc.ts';
import { isPlainObject } from '../validate.ts';

/** QuestionCode is why a question was not answered. */
export type QuestionCode = 'NO_PROVIDER' | 'NO_INVOCATION' | 'REFUSED' | 'CANCELLED' | 'FAILED';

/** QuestionError is the rejection of `userQuestions.ask`. */
export class QuestionError extends Error {
  override name = 'QuestionError';
  readonly code: QuestionCode;
  constructor(code: QuestionCode, message: string) {
    super(message);
    this.code = code;
  }
}
Object.freeze(QuestionError.prototype);

/** QuestionScope is the invocation a question belongs to. */
interface QuestionScope {
  owner: OwnerRecord;
  ask(q: UserQuestion): Promise<UserAnswer>;
}

const scope = new AsyncLocalStorage<QuestionScope>();

/** withQuestions runs fn (a tool's execute or a command's handler) where questions reach the core. */
export function withQuestions<T>(rpc: RpcPeer | undefined, owner: OwnerRecord, ticket: string | undefined, signal: AbortSignal, fn: () => T): T {
  if (rpc === undefined || ticket === undefined) return fn();
  const ask = (question: UserQuestion): Promise<UserAnswer> =>
    rpc.request('user/ask', { owner: owner.ref, ticket, question }, signal);
  return scope.run({ owner, ask }, fn);
}

const REFUSED_FIELDS = ['wait', 'timeout', 'timeoutMs', 'deadline'];

function toQuestion(q: unknown): UserQuestion {
  if (typeof q === 'string') return { text: q };
  if (!isPlainObject(q)) throw new QuestionError('REFUSED', 'userQuestions.ask: the question must be a string or an object');
  for (const f of REFUSED_FIELDS) {
    if (q[f] !== undefined) throw new QuestionError('REFUSED', `userQuestions.ask: \`${f}\` is not provided by cwx (a question waits for the person, untimed)`);
  }
  const text = q.question ?? q.text;
  if (typeof text !== 'string') throw new QuestionError('REFUSED', 'userQuestions.ask: `question` must be a string');
  const out: UserQuestion = { text };
  if (q.options !== undefined) {
    if (!Array.isArray(q.options)) throw new QuestionError('REFUSED', 'userQuestions.ask: `options` must be an array');
    out.options = q.options.map((o, i): UserOption => {
      if (typeof o === 'string') return { label: o };
      if (!isPlainObject(o) || typeof o.label !== 'string') throw new QuestionError('REFUSED', `userQuestions.ask: option ${i + 1} needs a string \`label\``);
      if (o.description !== undefined && typeof o.description !== 'string') throw new QuestionError('REFUSED', `userQuestions.ask: option ${i + 1} has a description that is not a string`);
      return o.description === undefined ? { label: o.label } : { label: o.label, description: o.description };
    });
  }
  const allow = q.allowText ?? q.allowOther ?? q.custom;
  if (allow !== undefined && typeof allow !== 'boolean') throw new QuestionError('REFUSED', 'userQuestions.ask: `allowText` must be a boolean');
  if (allow) out.allow_text = true;
  return out;
}

function toQuestionError(err: unknown): QuestionError {
  if (err instanceof QuestionError) return err;
  if (!(err instanceof RpcError)) return new QuestionError('FAILED', `userQuestions.ask: ${String(err)}`);
  if (isPlainObject(err.data) && err.data.code === 'NO_PROVIDER') return new QuestionError('NO_PROVIDER', err.message);
  if (err.code === ErrorCode.Cancelled) return new QuestionError('CANCELLED', err.message);
  if (err.code === ErrorCode.Refused || err.code === ErrorCode.InvalidParams) return new QuestionError('REFUSED', err.message);
  return new QuestionError('FAILED', err.message);
}

/** DshAnswer is one answer of DSH's `ask` request form. */
export interface DshAnswer {
  readonly id: string;
  readonly selected: readonly string[];
  readonly custom?: string;
}

/** isDshRequest holds for DSH's request form: an object with a `questions` array. */
function isDshRequest(q: unknown): q is Record<string, unknown> & { questions: unknown[] } {
  return isPlainObject(q) && Array.isArray(q.questions);
}

/** dshQuestion converts one question of DSH's request form, keeping its id. */
function dshQuestion(q: unknown, i: number): { id: string; question: UserQuestion } {
  if (!isPlainObject(q)) throw new QuestionError('REFUSED', `userQuestions.ask: question ${i + 1} must be an object`);
  if (typeof q.id !== 'string' || q.id === '') throw new QuestionError('REFUSED', `userQuestions.ask: question ${i + 1} needs a non-empty string \`id\``);
  if (q.multiSelect !== undefined && q.multiSelect !== false) {
    throw new QuestionError('REFUSED', 'userQuestions.ask: `multiSelect` is not provided by cwx (a question has one choice)');
  }
  if (q.header !== undefined && typeof q.header !== 'string') throw new QuestionError('REFUSED', `userQuestions.ask: question ${i + 1} has a header that is not a string`);
  const { id, header, multiSelect: _m, ...rest } = q;
  const question = toQuestion(rest);
  if (header) question.text = `${header}\n${question.text}`;
  return { id, question };
}

function dshAnswer(id: string, a: UserAnswer): DshAnswer {
  if (a.kind === 'choice' && a.choice !== undefined) return Object.freeze({ id, selected: Object.freeze([a.choice]) });
  if (a.kind === 'text' && a.text !== undefined) return Object.freeze({ id, selected: Object.freeze([]), custom: a.text });
  return Object.freeze({ id, selected: Object.freeze([]) });
}

/** QuestionMethods are the `userQuestions` service's methods (cwx-plugin.d.ts declares them to authors). */
export interface QuestionMethods {
  ask(question: unknown): Promise<Readonly<UserAnswer> | { readonly answers: readonly DshAnswer[] }>;
}

export function defineQuestions(): new (ctx: Context) => Service {
  class UserQuestions extends Service implements QuestionMethods {
    constructor(ctx: Context) {
      super(ctx, 'userQuestions');
    }
    /**
     * ask puts a question to the person and resolves with a frozen answer: {kind: 'choice',
     * choice}, {kind: 'text', text} or {kind: 'skipped'}. It rejects with a QuestionError
     * whose code is NO_PROVIDER when no person is present.
     */
    async ask(question: unknown): Promise<Readonly<UserAnswer> | { readonly answers: readonly DshAnswer[] }> {
      const s = scope.getStore();
      const owner = ownerOf(this.ctx);
      if (!s || !owner || s.owner !== owner) {
        throw new QuestionError('NO_INVOCATION', 'userQuestions.ask: a plugin may ask only while one of its own tools or commands runs');
      }
      if (isDshRequest(question)) {
        for (const f of REFUSED_FIELDS) {
          if (question[f] !== undefined) throw new QuestionError('REFUSED', `userQuestions.ask: \`${f}\` is not provided by cwx (a question waits for the person, untimed)`);
        }
        if (question.questions.length === 0) throw new QuestionError('REFUSED', 'userQuestions.ask: `questions` is empty');
        const qs = question.questions.map(dshQuestion);
        const answers: DshAnswer[] = [];
        for (const { id, question: q } of qs) {
          try {
            answers.push(dshAnswer(id, await s.ask(q)));
          } catch (err) {
            throw toQuestionError(err);
          }
        }
        return Object.freeze({ answers: Object.freeze(answers) });
      }
      const q = toQuestion(question);
      try {
        return Object.freeze(await s.ask(q));
      } catch (err) {
        throw toQuestionError(err);
      }
    }
  }
  Object.freeze(UserQuestions.prototype);
  return UserQuestions;
}
