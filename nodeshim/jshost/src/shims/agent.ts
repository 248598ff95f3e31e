// The agent's own services, offered to DSH plugins as thin adapters onto core/call names the
// core serves from its embedder (core/services doc.go, “Agent services”):
//
//   sessions.flush(session?)              core/call `sessions_flush`
//   subagents.getProvider('spawn')        a fixed descriptor: fresh context, no other provider
//   subagents.startActivation({...})      `subagents_start`, then `subagents_result` / `subagents_dispose`
//                                         (the options' `signal` disposes the child once it started)
//   skills.list()                         `skills_list`
//   agents                                injectable; offers nothing
//   execFile('git', args)                 `git_review_scope` (git.ts, through invocationCall)
//
// Each call carries the running tool invocation's ticket, which lives in this module's async
// scope and nowhere a plugin can read; outside an invocation of the plugin's own tool there is
// no scope and the call is refused here. What the embedder does not provide the core refuses by
// name. Every other method of these services (`subagents.start`, `sessions.list`, ...) refuses
// by name too (services.ts, refusingBase).
import { AsyncLocalStorage } from 'node:async_hooks';
import { Service, type Context } from '@deepseek-ai/cordis';
import { ownerOf } from '../cordis-adapter.ts';
import { ownerContext, type OwnerRecord } from '../owner.ts';
import type { ToolResult } from '../protocol.generated.ts';
import { ErrorCode } from '../protocol.generated.ts';
import { RpcError, type RpcPeer } from '../rpc.ts';
import { isPlainObject } from '../validate.ts';
import { refusingBase } from './services.ts';

/** AgentServiceCode is why an agent service call did not resolve. */
export type AgentServiceCode = 'NO_INVOCATION' | 'REFUSED' | 'DENIED' | 'CANCELLED' | 'FAILED';

/** AgentServiceError is the rejection of a `sessions`, `subagents` or `skills` call. */
export class AgentServiceError extends Error {
  override name = 'AgentServiceError';
  readonly code: AgentServiceCode;
  constructor(code: AgentServiceCode, message: string) {
    super(message);
    this.code = code;
  }
}
Object.freeze(AgentServiceError.prototype);

interface AgentScope {
  owner: OwnerRecord;
  agentId: string | undefined;
  sessionId: string | undefined;
  call(name: string, input: Record<string, unknown>, signal?: AbortSignal): Promise<ToolResult>;
}

const scope = new AsyncLocalStorage<AgentScope>();

/** withAgent runs fn (a tool's execute) where the agent's services reach the core. */
export function withAgent<T>(rpc: RpcPeer | undefined, owner: OwnerRecord, ticket: string | undefined, ids: { agentId: string | undefined; sessionId: string | undefined }, signal: AbortSignal, fn: () => T): T {
  if (rpc === undefined || ticket === undefined) return fn();
  const call = (name: string, input: Record<string, unknown>, s?: AbortSignal): Promise<ToolResult> =>
    rpc.request('core/call', { owner: owner.ref, ticket, name, input }, s === undefined ? signal : AbortSignal.any([signal, s]));
  return scope.run({ owner, ...ids, call }, fn);
}

function toError(what: string, err: unknown): AgentServiceError {
  if (err instanceof AgentServiceError) return err;
  if (!(err instanceof RpcError)) return new AgentServiceError('FAILED', `${what}: ${String(err)}`);
  switch (err.code) {
    case ErrorCode.Refused:
    case ErrorCode.InvalidParams:
      return new AgentServiceError('REFUSED', err.message);
    case ErrorCode.Denied:
      return new AgentServiceError('DENIED', err.message);
    case ErrorCode.Cancelled:
      return new AgentServiceError('CANCELLED', err.message);
  }
  return new AgentServiceError('FAILED', err.message);
}

/** current is the scope of the calling plugin's running tool, or a NO_INVOCATION refusal. */
function current(ctx: Context, what: string): AgentScope {
  const s = scope.getStore();
  const owner = ownerOf(ctx);
  if (!s || !owner || s.owner !== owner) {
    throw new AgentServiceError('NO_INVOCATION', `${what}: a plugin may use the agent's services only while one of its own tools runs`);
  }
  return s;
}

async function ask(s: AgentScope, what: string, name: string, input: Record<string, unknown>, signal?: AbortSignal): Promise<ToolResult> {
  try {
    return await s.call(name, input, signal);
  } catch (err) {
    throw toError(what, err);
  }
}

/**
 * invocationCall sends core/call `name` for the calling owner's running tool (its async
 * context, owner.ts), as the services above do for a Cordis context; without one it rejects
 * NO_INVOCATION and nothing reaches the core. The git adapter (git.ts) is its one user.
 */
export async function invocationCall(what: string, name: string, input: Record<string, unknown>, signal?: AbortSignal): Promise<ToolResult> {
  const s = scope.getStore();
  const owner = ownerContext.getStore();
  if (!s || !owner || s.owner !== owner) {
    throw new AgentServiceError('NO_INVOCATION', `${what}: a plugin may use the agent's services only while one of its own tools runs`);
  }
  return ask(s, what, name, input, signal);
}

function structured(r: ToolResult): Record<string, unknown> {
  return isPlainObject(r.structured) ? r.structured : {};
}

function strings(v: unknown, what: string): string[] | undefined {
  if (v === undefined) return undefined;
  if (!Array.isArray(v) || !v.every((x) => typeof x === 'string')) throw new AgentServiceError('REFUSED', `${what} must be an array of tool names`);
  return [...v];
}

const SPAWN = Object.freeze({ name: 'spawn', inheritsParentContext: false });

/** Activation is what `subagents.startActivation` resolves with. */
export interface Activation {
  readonly childId: string;
  readonly tools: readonly string[];
  readonly result: Promise<Readonly<{ status: string; text: string }>>;
  dispose(): Promise<void>;
}

export interface AgentServiceClasses {
  Sessions: new (ctx: Context) => Service;
  Subagents: new (ctx: Context) => Service;
  Skills: new (ctx: Context) => Service;
  Agents: new (ctx: Context) => Service;
}

export function defineAgentServices(): AgentServiceClasses {
  class Sessions extends Service {
    constructor(ctx: Context) {
      super(ctx, 'sessions');
    }
    /** flush saves the running tool's session; the argument (DSH's exec.agent.session) must be that session when given. */
    async flush(session?: unknown): Promise<void> {
      const s = current(this.ctx, 'sessions.flush');
      const id = isPlainObject(session) ? session.id : session;
      if (id !== undefined && id !== s.sessionId) {
        throw new AgentServiceError('REFUSED', 'sessions.flush: a plugin may save only the session of the tool call that runs');
      }
      await ask(s, 'sessions.flush', 'sessions_flush', {});
    }
  }
  Object.setPrototypeOf(Sessions.prototype, refusingBase('sessions', Service.prototype));

  class Subagents extends Service {
    constructor(ctx: Context) {
      super(ctx, 'subagents');
    }
    getProvider(name: unknown): Readonly<{ name: string; inheritsParentContext: boolean }> | undefined {
      return name === 'spawn' ? SPAWN : undefined;
    }
    /**
     * startActivation starts a child agent through the agent's sub-agent manager, inside the
     * parent's limits: `request.parent` must be the running tool's agent, and the tool filter
     * (`agentOptions.toolFilter` {allow?, deny?}) can only narrow; the core refuses one that widens.
     */
    async startActivation(opts: unknown): Promise<Activation> {
      const what = 'subagents.startActivation';
      const s = current(this.ctx, what);
      if (!isPlainObject(opts) || (opts.provider ?? 'spawn') !== 'spawn') throw new AgentServiceError('REFUSED', `${what}: only the \`spawn\` provider exists`);
      if (opts.delivery !== undefined && opts.delivery !== 'caller') throw new AgentServiceError('REFUSED', `${what}: only \`delivery: 'caller'\` is provided`);
      const req = opts.request;
      if (!isPlainObject(req) || typeof req.prompt !== 'string') throw new AgentServiceError('REFUSED', `${what}: \`request.prompt\` must be a string`);
      const parent = isPlainObject(req.parent) ? req.parent.id : req.parent;
      if (parent !== undefined && parent !== s.agentId) throw new AgentServiceError('REFUSED', `${what}: \`request.parent\` must be the agent of the running tool call`);
      const ao = isPlainObject(req.agentOptions) ? req.agentOptions : {};
      const input: Record<string, unknown> = { prompt: req.prompt };
      if (typeof ao.persona === 'string') input.persona = ao.persona;
      if (typeof ao.model === 'string') input.model = ao.model;
      if (ao.toolFilter !== undefined) {
        if (!isPlainObject(ao.toolFilter)) throw new AgentServiceError('REFUSED', `${what}: \`toolFilter\` must be an object`);
        const f: Record<string, string[]> = {};
        const allow = strings(ao.toolFilter.allow, `${what}: toolFilter.allow`);
        const deny = strings(ao.toolFilter.deny, `${what}: toolFilter.deny`);
        if (allow !== undefined) f.allow = allow;
        if (deny !== undefined) f.deny = deny;
        input.tool_filter = f;
      }
      const signal = opts.signal instanceof AbortSignal ? opts.signal : undefined;
      const started = structured(await ask(s, what, 'subagents_start', input, signal));
      const childId = String(started.child_id);
      const tools = Object.freeze(Array.isArray(started.tools) ? started.tools.map(String) : []);
      let result: Promise<Readonly<{ status: string; text: string }>> | undefined;
      let disposed: Promise<void> | undefined;
      const dispose = (): Promise<void> => (disposed ??= ask(s, 'activation.dispose', 'subagents_dispose', { child_id: childId }).then(() => undefined));
      const activation: Activation = {
        childId,
        tools,
        get result() {
          result ??= ask(s, 'activation.result', 'subagents_result', { child_id: childId }).then((r) => {
            const v = structured(r);
            return Object.freeze({ status: String(v.status), text: String(v.text ?? '') });
          });
          return result;
        },
        dispose,
      };
      // the caller's signal cancels the child (and its descendants) once it started
      signal?.addEventListener('abort', () => { dispose().catch(() => undefined); }, { once: true });
      return Object.freeze(activation);
    }
  }
  Object.setPrototypeOf(Subagents.prototype, refusingBase('subagents', Service.prototype));

  class Skills extends Service {
    constructor(ctx: Context) {
      super(ctx, 'skills');
    }
    /** list is the skills the core discovered under the agent's roots: frozen {name, description, path}. */
    async list(): Promise<readonly Readonly<{ name: string; description: string; path: string }>[]> {
      const s = current(this.ctx, 'skills.list');
      const v = structured(await ask(s, 'skills.list', 'skills_list', {}));
      const list = Array.isArray(v.skills) ? v.skills : [];
      return Object.freeze(list.filter(isPlainObject).map((x) => Object.freeze({ name: String(x.name), description: String(x.description), path: String(x.path) })));
    }
  }
  Object.setPrototypeOf(Skills.prototype, refusingBase('skills', Service.prototype));

  class Agents extends Service {
    constructor(ctx: Context) {
      super(ctx, 'agents');
    }
  }
  Object.setPrototypeOf(Agents.prototype, refusingBase('agents', Service.prototype));

  for (const C of [Sessions, Subagents, Skills, Agents]) Object.freeze(C.prototype);
  return { Sessions, Subagents, Skills, Agents };
}
