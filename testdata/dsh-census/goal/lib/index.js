// @deepseek-ai/dsh-goal@0.1.0-rc.8, built by testdata/dsh-census/census.mjs from toninfo/deepseek-harness@611615650f1b:packages/goal/goal (MIT, see LICENSE).
var __create = Object.create;
var __defProp = Object.defineProperty;
var __getOwnPropDesc = Object.getOwnPropertyDescriptor;
var __knownSymbol = (name, symbol) => (symbol = Symbol[name]) ? symbol : /* @__PURE__ */ Symbol.for("Symbol." + name);
var __typeError = (msg) => {
  throw TypeError(msg);
};
var __defNormalProp = (obj, key, value) => key in obj ? __defProp(obj, key, { enumerable: true, configurable: true, writable: true, value }) : obj[key] = value;
var __name = (target, value) => __defProp(target, "name", { value, configurable: true });
var __decoratorStart = (base) => [, , , __create(base?.[__knownSymbol("metadata")] ?? null)];
var __decoratorStrings = ["class", "method", "getter", "setter", "accessor", "field", "value", "get", "set"];
var __expectFn = (fn) => fn !== void 0 && typeof fn !== "function" ? __typeError("Function expected") : fn;
var __decoratorContext = (kind, name, done, metadata, fns) => ({ kind: __decoratorStrings[kind], name, metadata, addInitializer: (fn) => done._ ? __typeError("Already initialized") : fns.push(__expectFn(fn || null)) });
var __decoratorMetadata = (array, target) => __defNormalProp(target, __knownSymbol("metadata"), array[3]);
var __runInitializers = (array, flags, self, value) => {
  for (var i = 0, fns = array[flags >> 1], n = fns && fns.length; i < n; i++) flags & 1 ? fns[i].call(self) : value = fns[i].call(self, value);
  return value;
};
var __decorateElement = (array, flags, name, decorators, target, extra) => {
  var fn, it, done, ctx, access, k = flags & 7, s = !!(flags & 8), p = !!(flags & 16);
  var j = k > 3 ? array.length + 1 : k ? s ? 1 : 2 : 0, key = __decoratorStrings[k + 5];
  var initializers = k > 3 && (array[j - 1] = []), extraInitializers = array[j] || (array[j] = []);
  var desc = k && (!p && !s && (target = target.prototype), k < 5 && (k > 3 || !p) && __getOwnPropDesc(k < 4 ? target : { get [name]() {
    return __privateGet(this, extra);
  }, set [name](x) {
    return __privateSet(this, extra, x);
  } }, name));
  k ? p && k < 4 && __name(extra, (k > 2 ? "set " : k > 1 ? "get " : "") + name) : __name(target, name);
  for (var i = decorators.length - 1; i >= 0; i--) {
    ctx = __decoratorContext(k, name, done = {}, array[3], extraInitializers);
    if (k) {
      ctx.static = s, ctx.private = p, access = ctx.access = { has: p ? (x) => __privateIn(target, x) : (x) => name in x };
      if (k ^ 3) access.get = p ? (x) => (k ^ 1 ? __privateGet : __privateMethod)(x, target, k ^ 4 ? extra : desc.get) : (x) => x[name];
      if (k > 2) access.set = p ? (x, y) => __privateSet(x, target, y, k ^ 4 ? extra : desc.set) : (x, y) => x[name] = y;
    }
    it = (0, decorators[i])(k ? k < 4 ? p ? extra : desc[key] : k > 4 ? void 0 : { get: desc.get, set: desc.set } : target, ctx), done._ = 1;
    if (k ^ 4 || it === void 0) __expectFn(it) && (k > 4 ? initializers.unshift(it) : k ? p ? extra = it : desc[key] = it : target = it);
    else if (typeof it !== "object" || it === null) __typeError("Object expected");
    else __expectFn(fn = it.get) && (desc.get = fn), __expectFn(fn = it.set) && (desc.set = fn), __expectFn(fn = it.init) && initializers.unshift(fn);
  }
  return k || __decoratorMetadata(array, target), desc && __defProp(target, name, desc), p ? k ^ 4 ? extra : desc : target;
};
var __publicField = (obj, key, value) => __defNormalProp(obj, typeof key !== "symbol" ? key + "" : key, value);
var __accessCheck = (obj, member, msg) => member.has(obj) || __typeError("Cannot " + msg);
var __privateIn = (member, obj) => Object(obj) !== obj ? __typeError('Cannot use the "in" operator on this value') : member.has(obj);
var __privateGet = (obj, member, getter) => (__accessCheck(obj, member, "read from private field"), getter ? getter.call(obj) : member.get(obj));
var __privateSet = (obj, member, value, setter) => (__accessCheck(obj, member, "write to private field"), setter ? setter.call(obj, value) : member.set(obj, value), value);
var __privateMethod = (obj, member, method) => (__accessCheck(obj, member, "access private method"), method);

// src/index.ts
import { randomUUID } from "node:crypto";
import z from "@deepseek-ai/schemastery";
import { z as zod } from "zod";
import { agentEvents } from "@deepseek-ai/dsh-agent";
import { TypertRemoteService, Remote } from "@deepseek-ai/dsh-typert-protocol";

// src/runtime.ts
import { HarnessError } from "@deepseek-ai/dsh-llm";
var GOAL_CHANGE_VERSION = 1;
function GoalId(id) {
  return id;
}
var GoalError = class extends HarnessError {
  /**
   * @param message - human-readable rejection reason.
   * @param code - stable machine-routable classification.
   */
  // Keep the constructor to narrow HarnessError's string code at this boundary.
  // oxlint-disable-next-line typescript/no-useless-constructor -- type-only narrowing
  constructor(message, code) {
    super(message, code);
  }
};

// src/fold.ts
var SNAPSHOT_OPERATIONS = /* @__PURE__ */ new Set([
  "create",
  "edit",
  "pause",
  "resume",
  "complete",
  "block"
]);
var PHASES = /* @__PURE__ */ new Set(["active", "paused", "blocked", "complete"]);
function emptyGoalFoldState() {
  return {
    goal: void 0,
    roundsStarted: 0,
    createdAt: void 0,
    updatedAt: void 0,
    lastRef: void 0,
    seenGoalIds: /* @__PURE__ */ new Set()
  };
}
function isRecord(value) {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
function positiveInteger(value, field) {
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 1) {
    throw new Error(`goal change ${field} must be a positive safe integer`);
  }
  return value;
}
function nonNegativeInteger(value, field) {
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 0) {
    throw new Error(`goal change ${field} must be a non-negative safe integer`);
  }
  return value;
}
function decodeBlockReason(value) {
  if (!isRecord(value) || Object.keys(value).sort().join(",") !== "code,message") {
    throw new Error("goal change goal.blockedReason must have exactly code and message fields");
  }
  if (typeof value["code"] !== "string" || !/^[a-z][a-z0-9]*(?:-[a-z0-9]+)*$/.test(value["code"])) {
    throw new Error("goal change goal.blockedReason.code must be lower-kebab-case");
  }
  if (typeof value["message"] !== "string" || value["message"].trim().length === 0 || value["message"] !== value["message"].trim()) {
    throw new Error("goal change goal.blockedReason.message must be non-empty and normalized");
  }
  return { code: value["code"], message: value["message"] };
}
function decodeSnapshot(value) {
  if (!isRecord(value)) throw new Error("goal change goal must be a record");
  if (typeof value["id"] !== "string" || value["id"].length === 0) {
    throw new Error("goal change goal.id must be a non-empty string");
  }
  if (typeof value["objective"] !== "string" || value["objective"].trim().length === 0 || value["objective"] !== value["objective"].trim()) {
    throw new Error("goal change goal.objective must be non-empty and normalized");
  }
  if (typeof value["phase"] !== "string" || !PHASES.has(value["phase"])) {
    throw new Error("goal change goal.phase is invalid");
  }
  const phase = value["phase"];
  const expectedKeys = phase === "blocked" ? "blockedReason,id,maxGoalRounds,objective,phase,revision" : "id,maxGoalRounds,objective,phase,revision";
  if (Object.keys(value).sort().join(",") !== expectedKeys) {
    throw new Error(`goal change goal for phase ${phase} must have exactly ${expectedKeys} fields`);
  }
  return {
    id: GoalId(value["id"]),
    revision: positiveInteger(value["revision"], "goal.revision"),
    objective: value["objective"],
    phase,
    maxGoalRounds: positiveInteger(value["maxGoalRounds"], "goal.maxGoalRounds"),
    ...phase === "blocked" ? { blockedReason: decodeBlockReason(value["blockedReason"]) } : {}
  };
}
function decodeRef(value) {
  if (!isRecord(value) || Object.keys(value).sort().join(",") !== "id,revision") {
    throw new Error("goal clear tombstone must have exactly id and revision fields");
  }
  if (typeof value["id"] !== "string" || value["id"].length === 0) {
    throw new Error("goal clear tombstone id must be a non-empty string");
  }
  return { id: GoalId(value["id"]), revision: positiveInteger(value["revision"], "cleared.revision") };
}
function decodeGoalChange(value) {
  if (!isRecord(value) || value["kind"] !== "goal/change") return void 0;
  if (value["version"] !== GOAL_CHANGE_VERSION) {
    throw new Error(`unsupported goal change version ${String(value["version"])}`);
  }
  if (value["operation"] === "clear") {
    const allowed2 = ["cleared", "clearedAt", "kind", "operation", "version"];
    if (Object.keys(value).sort().join(",") !== allowed2.sort().join(",")) {
      throw new Error(`goal clear change must have exactly ${allowed2.sort().join(",")} fields`);
    }
    return {
      kind: "goal/change",
      version: GOAL_CHANGE_VERSION,
      operation: "clear",
      cleared: decodeRef(value["cleared"]),
      clearedAt: nonNegativeInteger(value["clearedAt"], "clearedAt")
    };
  }
  if (typeof value["operation"] !== "string" || !SNAPSHOT_OPERATIONS.has(value["operation"])) {
    throw new Error("goal change operation is invalid");
  }
  const allowed = ["createdAt", "goal", "kind", "operation", "roundsStarted", "updatedAt", "version"];
  if (Object.keys(value).sort().join(",") !== allowed.sort().join(",")) {
    throw new Error(`goal snapshot change must have exactly ${allowed.sort().join(",")} fields`);
  }
  const createdAt = nonNegativeInteger(value["createdAt"], "createdAt");
  const updatedAt = nonNegativeInteger(value["updatedAt"], "updatedAt");
  if (updatedAt < createdAt) throw new Error("goal change updatedAt cannot precede createdAt");
  return {
    kind: "goal/change",
    version: GOAL_CHANGE_VERSION,
    operation: value["operation"],
    goal: decodeSnapshot(value["goal"]),
    roundsStarted: nonNegativeInteger(value["roundsStarted"], "roundsStarted"),
    createdAt,
    updatedAt
  };
}
function goalSource(source) {
  if (source.kind !== "goal") return void 0;
  if (typeof source.goalId !== "string" || source.goalId.length === 0 || !Number.isSafeInteger(source.revision) || source.revision < 1 || !Number.isSafeInteger(source.round) || source.round < 1) {
    throw new Error("goal message source is invalid");
  }
  return source;
}
function requireSameDefinition(current, next, operation) {
  if (next.objective !== current.objective || next.maxGoalRounds !== current.maxGoalRounds) {
    throw new Error(`goal ${operation} cannot change objective or maxGoalRounds`);
  }
}
function requireNextRevision(current, next, operation) {
  if (next.id !== current.id || next.revision !== current.revision + 1) {
    throw new Error(`goal ${operation} must advance the current goal by one revision`);
  }
}
function validateSnapshotTransition(state, change, current) {
  const next = change.goal;
  requireNextRevision(current, next, change.operation);
  if (state.updatedAt === void 0) throw new Error("current goal fold lacks updatedAt");
  if (change.createdAt !== state.createdAt || change.updatedAt < state.updatedAt || change.roundsStarted !== state.roundsStarted) {
    throw new Error(`goal ${change.operation} does not preserve the current counters and timestamps`);
  }
  switch (change.operation) {
    case "edit":
      if (next.phase !== current.phase || JSON.stringify(next.blockedReason) !== JSON.stringify(current.blockedReason)) {
        throw new Error("goal edit cannot change phase or blocked reason");
      }
      break;
    case "pause":
      requireSameDefinition(current, next, change.operation);
      if (current.phase !== "active" || next.phase !== "paused") throw new Error("goal pause has an invalid phase transition");
      break;
    case "resume": {
      requireSameDefinition(current, next, change.operation);
      const resumable = /* @__PURE__ */ new Set([
        "active",
        "paused",
        "blocked"
      ]);
      if (!resumable.has(current.phase) || next.phase !== "active" || state.roundsStarted >= next.maxGoalRounds) {
        throw new Error("goal resume has an invalid phase transition or exhausted round budget");
      }
      break;
    }
    case "complete":
      requireSameDefinition(current, next, change.operation);
      if (current.phase === "complete" || next.phase !== "complete") throw new Error("goal complete has an invalid phase transition");
      break;
    case "block":
      requireSameDefinition(current, next, change.operation);
      if (current.phase !== "active" || next.phase !== "blocked") throw new Error("goal block has an invalid phase transition");
      break;
    /* v8 ignore start -- the caller excludes create and GoalOperation is closed; these arms retain fail-loud exhaustiveness */
    case "create":
      throw new Error("goal create cannot be validated as a current-goal transition");
    default:
      change.operation;
      throw new Error("unknown goal snapshot operation");
  }
}
function goalChangeRef(change) {
  return change.operation === "clear" ? change.cleared : { id: change.goal.id, revision: change.goal.revision };
}
function applyGoalChange(state, change) {
  const ref = goalChangeRef(change);
  if (change.operation === "clear") {
    const current = state.goal;
    if (current === void 0) throw new Error("goal clear requires a current goal");
    requireNextRevision(current, change.cleared, change.operation);
    if (state.updatedAt === void 0) throw new Error("current goal fold lacks updatedAt");
    if (change.clearedAt < state.updatedAt) {
      throw new Error("goal clear timestamp cannot precede the current goal update");
    }
    state.goal = void 0;
    state.roundsStarted = 0;
    state.createdAt = void 0;
    state.updatedAt = void 0;
    state.lastRef = ref;
    return;
  }
  if (change.operation === "create") {
    if (change.goal.revision !== 1 || change.goal.phase !== "active" || change.roundsStarted !== 0 || state.goal !== void 0 && state.goal.phase !== "complete" || state.seenGoalIds.has(change.goal.id)) {
      throw new Error("goal create requires a fresh active revision-one goal with zero rounds");
    }
    state.seenGoalIds.add(change.goal.id);
  } else {
    const current = state.goal;
    if (current === void 0) throw new Error(`goal ${change.operation} requires a current goal`);
    validateSnapshotTransition(state, change, current);
  }
  state.goal = change.goal;
  state.roundsStarted = change.roundsStarted;
  state.createdAt = change.createdAt;
  state.updatedAt = change.updatedAt;
  state.lastRef = ref;
}
function applyGoalEvent(state, event) {
  if (event.type === "goal/change") {
    const change = decodeGoalChange(event.data);
    if (change === void 0) throw new Error(`goal change at session event ${event.seq} has an invalid kind`);
    applyGoalChange(state, change);
    return;
  }
  if (event.type === "user/message") {
    const source = goalSource(event.data.source);
    if (source === void 0) return;
    const current = state.goal;
    if (current === void 0 || current.phase !== "active" || source.goalId !== current.id || source.revision !== current.revision || source.round !== state.roundsStarted + 1 || source.round > current.maxGoalRounds) {
      throw new Error(`goal round at session event ${event.seq} is not the next admitted round of the active goal`);
    }
    state.roundsStarted = source.round;
  }
}
function foldGoal(events) {
  const state = emptyGoalFoldState();
  for (const event of events) applyGoalEvent(state, event);
  return {
    ...state.goal === void 0 ? {} : { goal: { ...state.goal } },
    roundsStarted: state.roundsStarted,
    ...state.createdAt === void 0 ? {} : { createdAt: state.createdAt },
    ...state.updatedAt === void 0 ? {} : { updatedAt: state.updatedAt },
    ...state.lastRef === void 0 ? {} : { lastRef: { ...state.lastRef } }
  };
}

// src/index.ts
var goalProjectionSchema = zod.union([
  zod.object({
    goal: zod.object({
      id: zod.string().min(1),
      revision: zod.number().int().positive(),
      objective: zod.string().min(1),
      phase: zod.union([zod.literal("active"), zod.literal("paused"), zod.literal("blocked"), zod.literal("complete")]),
      blockedReason: zod.object({ code: zod.string(), message: zod.string() }).optional(),
      maxGoalRounds: zod.number().int().positive()
    }),
    roundsStarted: zod.number().int().nonnegative(),
    createdAt: zod.number(),
    updatedAt: zod.number()
  }),
  zod.null()
]);
function applyGoalProjection(state, event) {
  if (event.type !== "goal/change") return state;
  let change;
  try {
    change = decodeGoalChange(event.data);
  } catch (_invalidPersistedGoalChange) {
    return state;
  }
  if (change === void 0) return state;
  return change.operation === "clear" ? null : {
    goal: change.goal,
    roundsStarted: change.roundsStarted,
    createdAt: change.createdAt,
    updatedAt: change.updatedAt
  };
}
function resolveMaxGoalRounds(value) {
  if (!Number.isSafeInteger(value) || value < 1) {
    throw new GoalError("maxGoalRounds must be a positive safe integer", "GOAL_INVALID_MAX_ROUNDS");
  }
  return value;
}
function resolveObjective(value) {
  if (typeof value !== "string" || value.trim().length === 0) {
    throw new GoalError("goal objective must be a non-empty string", "GOAL_INVALID_OBJECTIVE");
  }
  return value.trim();
}
function resolveCreateGoal(request, defaultMaxGoalRounds) {
  return {
    objective: resolveObjective(request.objective),
    maxGoalRounds: resolveMaxGoalRounds(request.maxGoalRounds ?? defaultMaxGoalRounds)
  };
}
function resolveBlockReason(reason) {
  const record = typeof reason === "object" && reason !== null && !Array.isArray(reason) ? reason : void 0;
  const code = record?.["code"];
  const message = record?.["message"];
  if (typeof code !== "string" || !/^[a-z][a-z0-9]*(?:-[a-z0-9]+)*$/.test(code) || typeof message !== "string" || message.trim().length === 0) {
    throw new GoalError(
      "goal block reason requires a lower-kebab-case code and a non-empty message",
      "GOAL_INVALID_BLOCK_REASON"
    );
  }
  return { code, message: message.trim() };
}
var _remoteExportCreate_dec, _clear_dec, _complete_dec, _resume_dec, _pause_dec, _edit_dec, _a, _init;
var GoalService = class extends (_a = TypertRemoteService, _edit_dec = [Remote("edit")], _pause_dec = [Remote("pause")], _resume_dec = [Remote("resume")], _complete_dec = [Remote("complete")], _clear_dec = [Remote("clear")], _remoteExportCreate_dec = [Remote("create")], _a) {
  constructor(ctx, config = {}) {
    super(ctx, "goals");
    __runInitializers(_init, 5, this);
    __publicField(this, "resolved");
    __publicField(this, "caches", /* @__PURE__ */ new WeakMap());
    this.resolved = {
      defaultMaxGoalRounds: resolveMaxGoalRounds(config.defaultMaxGoalRounds ?? 256)
    };
    ctx.on("agent/session-start", ({ agent }) => {
      this.cache(agent.session).activation = "disarmed";
    });
    ctx.inject(["sessionProjections"], (projectionCtx) => {
      projectionCtx.sessionProjections.register({
        key: "goal",
        schema: goalProjectionSchema,
        init: () => null,
        apply: applyGoalProjection,
        view: (state) => state,
        stateVersion: 4
      });
    });
  }
  /**
   * Read the current goal for one exact live agent.
   * @param agent - owning live agent.
   * @returns a fresh view or `undefined` when no goal is current.
   * @throws {@link GoalError} when the agent is not the registry's live instance.
   */
  get(agent) {
    this.assertLive(agent);
    const cache = this.cache(agent.session);
    this.sync(agent.session, cache);
    return this.view(cache);
  }
  /**
   * Remove process-local continuation authority without changing durable goal
   * phase or revision. Lifecycle owners use this before unloading a driver;
   * a later human-authorized {@link resume} records the new activation edge.
   * @param agent - owning live agent.
   * @returns a fresh disarmed view, or `undefined` when no goal is current.
   */
  disarm(agent) {
    this.assertLive(agent);
    const cache = this.cache(agent.session);
    this.sync(agent.session, cache);
    cache.activation = "disarmed";
    return this.view(cache);
  }
  /**
   * Create and arm a goal. A completed goal may be replaced; every other
   * current phase must be cleared or resumed instead.
   * @param agent - owning live agent.
   * @param request - objective and optional round cap.
   * @returns the created live view.
   */
  create(agent, request) {
    const spec = resolveCreateGoal(request, this.resolved.defaultMaxGoalRounds);
    const cache = this.prepareMutation(agent);
    const current = cache.state.goal;
    if (current !== void 0 && current.phase !== "complete") {
      throw new GoalError(`goal "${current.id}" already exists with phase "${current.phase}"`, "GOAL_ALREADY_EXISTS");
    }
    const now = Date.now();
    const goal = {
      id: GoalId(`goal-${randomUUID()}`),
      revision: 1,
      objective: spec.objective,
      phase: "active",
      maxGoalRounds: spec.maxGoalRounds
    };
    return this.commitSnapshot(agent, cache, "create", goal, 0, now, now, "armed");
  }
  edit(agent, ref, request) {
    const cache = this.prepareMutation(agent);
    const current = this.expectCurrent(cache, ref);
    if (request.objective === void 0 && request.maxGoalRounds === void 0) {
      throw new GoalError("goal edit requires objective and/or maxGoalRounds", "GOAL_INVALID_EDIT");
    }
    const goal = {
      ...current,
      revision: current.revision + 1,
      ...request.objective === void 0 ? {} : { objective: resolveObjective(request.objective) },
      ...request.maxGoalRounds === void 0 ? {} : { maxGoalRounds: resolveMaxGoalRounds(request.maxGoalRounds) }
    };
    return this.commitCurrent(agent, cache, "edit", goal, cache.activation);
  }
  pause(agent, ref) {
    return this.transition(agent, ref, "pause", ["active"], "paused", "disarmed");
  }
  resume(agent, ref) {
    const cache = this.prepareMutation(agent);
    const current = this.expectCurrent(cache, ref);
    const resumable = ["active", "paused", "blocked"];
    if (!resumable.includes(current.phase)) {
      throw this.transitionError(current, "resume", resumable);
    }
    if (current.phase === "active" && cache.activation === "armed") {
      throw new GoalError(`goal "${current.id}" is already active and armed`, "GOAL_INVALID_TRANSITION");
    }
    if (cache.state.roundsStarted >= current.maxGoalRounds) {
      throw new GoalError(
        `goal "${current.id}" exhausted ${current.maxGoalRounds} goal rounds; increase maxGoalRounds before resuming`,
        "GOAL_INVALID_TRANSITION"
      );
    }
    return this.commitCurrent(agent, cache, "resume", this.withPhase(current, "active"), "armed");
  }
  complete(agent, ref) {
    return this.transition(
      agent,
      ref,
      "complete",
      ["active", "paused", "blocked"],
      "complete",
      "disarmed"
    );
  }
  /**
   * Mark an active goal blocked and disarm it.
   * @param agent - owning live agent.
   * @param ref - expected current revision.
   * @param reason - policy-owned stable code and human-readable explanation.
   * @returns the blocked view with its durable reason.
   */
  block(agent, ref, reason) {
    const cache = this.prepareMutation(agent);
    const current = this.expectCurrent(cache, ref);
    if (current.phase !== "active") {
      throw this.transitionError(current, "block", ["active"]);
    }
    return this.commitCurrent(
      agent,
      cache,
      "block",
      { ...this.withPhase(current, "blocked"), blockedReason: resolveBlockReason(reason) },
      "disarmed"
    );
  }
  clear(agent, ref) {
    const cache = this.prepareMutation(agent);
    const current = this.expectCurrent(cache, ref);
    const tombstone = { id: current.id, revision: current.revision + 1 };
    const change = {
      kind: "goal/change",
      version: GOAL_CHANGE_VERSION,
      operation: "clear",
      cleared: tombstone,
      clearedAt: this.nextMutationTime(cache)
    };
    this.commit(agent, cache, change, "disarmed");
    return { ...tombstone };
  }
  /** Resolve and validate the cache used by a mutation. */
  prepareMutation(agent) {
    this.assertLive(agent);
    const cache = this.cache(agent.session);
    this.sync(agent.session, cache);
    return cache;
  }
  /** Reject stale or missing current-state refs. */
  expectCurrent(cache, ref) {
    const current = cache.state.goal;
    if (current === void 0) throw new GoalError("no current goal", "GOAL_NOT_FOUND");
    if (ref.id !== current.id || ref.revision !== current.revision) {
      throw new GoalError(
        `stale goal ref "${ref.id}" revision ${ref.revision}; current is "${current.id}" revision ${current.revision}`,
        "GOAL_STALE_REVISION"
      );
    }
    return current;
  }
  /** Enforce exact live-agent identity rather than trusting a matching id. */
  assertLive(agent) {
    if (this.ctx.agents.get(agent.id) !== agent) {
      throw new GoalError(`agent "${agent.id}" is not live in this registry`, "GOAL_AGENT_NOT_LIVE");
    }
  }
  /** Return the per-session cache, folding a seed once with activation disarmed. */
  cache(session) {
    let cache = this.caches.get(session);
    if (cache !== void 0) return cache;
    const state = emptyGoalFoldState();
    for (const event of session.events) applyGoalEvent(state, event);
    cache = {
      state,
      activation: "disarmed",
      observedSeq: session.seq,
      pendingActivation: void 0
    };
    this.caches.set(session, cache);
    return cache;
  }
  /** Incrementally observe durable events and reconcile local activation intent. */
  sync(session, cache) {
    for (const event of session.events.slice(cache.observedSeq)) {
      applyGoalEvent(cache.state, event);
      if (event.type === "goal/change") {
        cache.activation = cache.pendingActivation?.seq === event.seq ? cache.pendingActivation.activation : "disarmed";
      }
      cache.observedSeq += 1;
    }
  }
  /** Build a new revision with one replacement phase. */
  withPhase(current, phase) {
    return {
      id: current.id,
      revision: current.revision + 1,
      objective: current.objective,
      phase,
      maxGoalRounds: current.maxGoalRounds
    };
  }
  /** Shared validated phase transition. */
  transition(agent, ref, operation, allowed, phase, activation) {
    const cache = this.prepareMutation(agent);
    const current = this.expectCurrent(cache, ref);
    if (!allowed.includes(current.phase)) throw this.transitionError(current, operation, allowed);
    return this.commitCurrent(agent, cache, operation, this.withPhase(current, phase), activation);
  }
  /** Render a stable invalid-transition error. */
  transitionError(current, operation, allowed) {
    return new GoalError(
      `cannot ${operation} goal "${current.id}" from phase "${current.phase}"; expected ${allowed.join(" or ")}`,
      "GOAL_INVALID_TRANSITION"
    );
  }
  /** Commit a mutation that retains the current goal's derived counters/times. */
  commitCurrent(agent, cache, operation, goal, activation) {
    const createdAt = cache.state.createdAt;
    if (createdAt === void 0) throw new Error("current goal cache lacks createdAt");
    return this.commitSnapshot(
      agent,
      cache,
      operation,
      goal,
      cache.state.roundsStarted,
      createdAt,
      this.nextMutationTime(cache),
      activation
    );
  }
  /** Clamp a current goal's next timestamp across backward wall-clock movement. */
  nextMutationTime(cache) {
    const updatedAt = cache.state.updatedAt;
    if (updatedAt === void 0) throw new Error("current goal cache lacks updatedAt");
    return Math.max(Date.now(), updatedAt);
  }
  /** Build and commit one full-snapshot mutation. */
  commitSnapshot(agent, cache, operation, goal, roundsStarted, createdAt, updatedAt, activation) {
    const change = {
      kind: "goal/change",
      version: GOAL_CHANGE_VERSION,
      operation,
      goal,
      roundsStarted,
      createdAt,
      updatedAt
    };
    this.commit(agent, cache, change, activation);
    const view = this.view(cache);
    if (view === void 0) throw new Error("snapshot commit cleared the goal unexpectedly");
    return view;
  }
  /** Commit one mutation into the goal log, cache, and live event stream. */
  commit(agent, cache, change, activation) {
    const ref = goalChangeRef(change);
    cache.pendingActivation = { seq: agent.session.seq, activation };
    try {
      agent.session.append("goal/change", change);
      this.sync(agent.session, cache);
    } finally {
      cache.pendingActivation = void 0;
    }
    const goal = this.view(cache);
    const notification = {
      operation: change.operation,
      ref: { ...ref },
      ...goal === void 0 ? {} : { goal }
    };
    agentEvents(this.ctx, agent).emit("goal/changed", { change: notification });
  }
  /** Build a detached current view. */
  view(cache) {
    const goal = cache.state.goal;
    const createdAt = cache.state.createdAt;
    const updatedAt = cache.state.updatedAt;
    if (goal === void 0) return void 0;
    if (createdAt === void 0 || updatedAt === void 0) {
      throw new Error(`goal "${goal.id}" cache lacks timestamps`);
    }
    return {
      ...goal,
      roundsStarted: cache.state.roundsStarted,
      createdAt,
      updatedAt,
      activation: cache.activation
    };
  }
  remoteExportCreate(agent, request) {
    const view = this.create(agent, request);
    return { ref: { id: view.id, revision: view.revision } };
  }
};
_init = __decoratorStart(_a);
__decorateElement(_init, 1, "edit", _edit_dec, GoalService);
__decorateElement(_init, 1, "pause", _pause_dec, GoalService);
__decorateElement(_init, 1, "resume", _resume_dec, GoalService);
__decorateElement(_init, 1, "complete", _complete_dec, GoalService);
__decorateElement(_init, 1, "clear", _clear_dec, GoalService);
__decorateElement(_init, 1, "remoteExportCreate", _remoteExportCreate_dec, GoalService);
__decoratorMetadata(_init, GoalService);
__publicField(GoalService, "inject", ["agents"]);
__publicField(GoalService, "Config", z.object({
  defaultMaxGoalRounds: z.number().default(256)
}));
var index_default = GoalService;
export {
  GOAL_CHANGE_VERSION,
  GoalError,
  GoalId,
  GoalService,
  applyGoalProjection,
  decodeGoalChange,
  index_default as default,
  foldGoal,
  goalChangeRef
};
