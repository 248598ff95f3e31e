// @deepseek-ai/dsh-subagent-dsh-sdk@0.1.0-rc.8, built by testdata/dsh-census/census.mjs from toninfo/deepseek-harness@611615650f1b:packages/subagent/subagent-dsh-sdk (MIT, see LICENSE).

// src/index.ts
import z from "@deepseek-ai/schemastery";
import { assertPositiveFinite, NO_START_CAPABILITIES, resolveChildCwd, validateConfiguredCwd } from "@deepseek-ai/dsh-subagent";

// src/run.ts
import { randomUUID } from "node:crypto";
import { DeepSeekHarness } from "@deepseek-ai/dsh-sdk-client";
import { SessionId } from "@deepseek-ai/dsh-session";
import { AssistantOutputFold, settleRunResult, subprocessRunHandle } from "@deepseek-ai/dsh-subagent";
import { scrubbedParentEnv } from "@deepseek-ai/dsh-subprocess";
var DEFAULT_DISPOSE_EOF_GRACE_MS = 6e3;
var DEFAULT_DISPOSE_GRACE_MS = 3e3;
var DEFAULT_SHUTDOWN_TIMEOUT_MS = 1e3;
function sdkStopReason(reason) {
  switch (reason?.kind) {
    case "completed":
      return "completed";
    case "max-tokens":
      return "max-tokens";
    case "aborted":
      return "aborted";
    // error / interrupted / disposed / a future merged variant /
    // no turn at all: the task did NOT finish cleanly — surface a generic
    // failure so the consumer maps it to an isError result.
    default:
      return "error";
  }
}
function toError(value) {
  return value instanceof Error ? value : new Error(String(value));
}
async function startSdkRun(request, spec) {
  if (request.signal.aborted) throw new Error("subagent request was aborted before the SDK child started");
  const id = SessionId(randomUUID());
  const harness = new DeepSeekHarness({
    launch: {
      command: spec.command,
      args: spec.args,
      cwd: spec.cwd,
      env: { ...scrubbedParentEnv(), ...spec.env },
      shutdownTimeoutMs: spec.shutdownTimeoutMs,
      disposeEofGraceMs: spec.disposeEofGraceMs,
      disposeGraceMs: spec.disposeGraceMs
    },
    cwd: spec.cwd,
    provider: spec.provider,
    model: spec.model,
    ...spec.maxTokens === void 0 ? {} : { maxTokens: spec.maxTokens }
  });
  const flags = { cancelled: false };
  let signalCancelSettled;
  const cancelSettled = new Promise((resolve) => {
    signalCancelSettled = resolve;
  });
  const requestCancel = () => {
    if (flags.cancelled) return;
    flags.cancelled = true;
    signalCancelSettled();
  };
  const onAbort = () => {
    requestCancel();
  };
  request.signal.addEventListener("abort", onAbort, { once: true });
  try {
    await Promise.race([
      harness.start(),
      cancelSettled.then(() => {
        throw new Error("subagent cancelled before the SDK child initialized");
      })
    ]);
    if (flags.cancelled) throw new Error("subagent cancelled before the SDK child initialized");
  } catch (error) {
    request.signal.removeEventListener("abort", onAbort);
    await harness.close();
    if (flags.cancelled) throw new Error("subagent request was aborted before the SDK child started");
    throw toError(error);
  }
  const childSessionId = `session-${randomUUID().replaceAll("-", "")}`;
  const fold = new AssistantOutputFold();
  const observe = (notification) => {
    if (notification.method !== "session.event" || notification.params.sessionId !== childSessionId) return;
    fold.push(notification.params.event);
  };
  const collectOutput = () => fold.collect() ?? [];
  const result = settleRunResult({
    attempt: async () => {
      const turn = await Promise.race([
        harness.session(childSessionId).run(request.prompt, { onNotification: observe }),
        cancelSettled.then(() => "cancelled")
      ]);
      if (turn === "cancelled") return { output: collectOutput(), stopReason: "aborted" };
      const lastEnd = turn.events.findLast(
        (event) => event.type === "turn/end"
      );
      return { output: collectOutput(), stopReason: sdkStopReason(lastEnd?.data.reason) };
    },
    collectOutput,
    cancelled: () => flags.cancelled,
    onError: spec.onError,
    signal: request.signal,
    onAbort
  });
  return subprocessRunHandle({
    id,
    result,
    signal: request.signal,
    onAbort,
    requestCancel,
    teardown: () => harness.close()
  });
}

// src/index.ts
var name = "subagent-dsh-sdk";
var inject = ["subagents"];
var Config = z.object({
  providerName: z.string().default("dsh-sdk"),
  command: z.string().required(),
  args: z.array(z.string()).default([]),
  cwd: z.string(),
  provider: z.string().default("deepseek-official"),
  model: z.string().default("deepseek-v4-flash"),
  maxTokens: z.number().step(1).min(1).max(Number.MAX_SAFE_INTEGER),
  env: z.dict(z.string()).default({}),
  shutdownTimeoutMs: z.number().default(DEFAULT_SHUTDOWN_TIMEOUT_MS),
  disposeEofGraceMs: z.number().default(DEFAULT_DISPOSE_EOF_GRACE_MS),
  disposeGraceMs: z.number().default(DEFAULT_DISPOSE_GRACE_MS)
});
var SdkSubagentProvider = class {
  constructor(name2, ctx, config) {
    this.name = name2;
    this.ctx = ctx;
    this.config = config;
  }
  name;
  ctx;
  config;
  capabilities = NO_START_CAPABILITIES;
  // Context contract: an out-of-process SDK child starts fresh — no parent conversation crosses the process boundary.
  inheritsParentContext = false;
  start(request) {
    const spec = {
      command: this.config.command,
      args: this.config.args,
      cwd: resolveChildCwd("subagent-dsh-sdk", this.config.cwd, request.parent.session.header.cwd),
      provider: this.config.provider,
      model: this.config.model,
      ...this.config.maxTokens === void 0 ? {} : { maxTokens: this.config.maxTokens },
      env: this.config.env,
      shutdownTimeoutMs: this.config.shutdownTimeoutMs,
      disposeEofGraceMs: this.config.disposeEofGraceMs,
      disposeGraceMs: this.config.disposeGraceMs,
      onError: (error, stopReason) => {
        this.ctx.logger.warn(`subagent-dsh-sdk "${this.name}": child run failed (${stopReason}): ${error.message}`);
      }
    };
    return startSdkRun(request, spec);
  }
};
function apply(ctx, config) {
  const resolved = config;
  assertPositiveFinite("subagent-dsh-sdk", "shutdownTimeoutMs", resolved.shutdownTimeoutMs);
  assertPositiveFinite("subagent-dsh-sdk", "disposeEofGraceMs", resolved.disposeEofGraceMs);
  assertPositiveFinite("subagent-dsh-sdk", "disposeGraceMs", resolved.disposeGraceMs);
  if (resolved.maxTokens !== void 0 && (!Number.isSafeInteger(resolved.maxTokens) || resolved.maxTokens <= 0)) {
    throw new TypeError("subagent-dsh-sdk maxTokens must be a positive safe integer");
  }
  const configuredCwd = validateConfiguredCwd("subagent-dsh-sdk", resolved.cwd);
  const validated = configuredCwd === void 0 ? resolved : { ...resolved, cwd: configuredCwd };
  ctx.subagents.registerProvider(new SdkSubagentProvider(validated.providerName, ctx, validated));
}
export {
  Config,
  apply,
  inject,
  name
};
