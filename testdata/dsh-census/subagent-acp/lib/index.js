// @deepseek-ai/dsh-subagent-acp@0.1.0-rc.8, built by testdata/dsh-census/census.mjs from toninfo/deepseek-harness@611615650f1b:packages/subagent/subagent-acp (MIT, see LICENSE).

// src/index.ts
import { accessSync, constants, statSync } from "node:fs";
import { isAbsolute, resolve } from "node:path";
import z from "@deepseek-ai/schemastery";
import { MAX_TIMER_DELAY_MS } from "@deepseek-ai/dsh-timeout";

// src/run.ts
import { randomUUID } from "node:crypto";
import { Readable as NodeReadable, Writable as NodeWritable } from "node:stream";
import {
  ClientSideConnection,
  ndJsonStream,
  PROTOCOL_VERSION
} from "@agentclientprotocol/sdk";
import { SessionId } from "@deepseek-ai/dsh-session";
import { AssistantOutputFold } from "@deepseek-ai/dsh-subagent";
var DEFAULT_DISPOSE_EOF_GRACE_MS = 6e3;
var DEFAULT_DISPOSE_GRACE_MS = 3e3;
async function treeExitsWithin(child, ms) {
  const controller = new AbortController();
  const timer = setTimeout(() => {
    controller.abort();
  }, ms);
  try {
    return await child.waitForExit(controller.signal);
  } finally {
    clearTimeout(timer);
  }
}
async function disposeAcpChild(child, eofGraceMs) {
  if (child.pid <= 0) {
    await child.done.catch(() => {
    });
    return;
  }
  child.stdin?.end();
  if (await treeExitsWithin(child, eofGraceMs)) return;
  child.terminate();
  await child.waitForExit();
}
function acpStopReason(reason) {
  switch (reason) {
    case "end_turn":
      return "completed";
    case "max_tokens":
      return "max-tokens";
    case "refusal":
      return "refusal";
    case "cancelled":
      return "aborted";
    // `max_turn_requests` (the child hit its turn-request budget) has no direct
    // harness equivalent and means the task did NOT finish cleanly — surface it
    // as a generic failure so the consumer maps it to an isError result rather
    // than reporting a partial answer as success.
    case "max_turn_requests":
      return "error";
    // ACP StopReason is a closed wire union, but a future SDK could add a
    // variant; treat an unknown terminal reason as a failure (never silently
    // 'completed').
    default:
      return "error";
  }
}
function acpContentText(content) {
  return content.type === "text" ? content.text : "";
}
function toAcpPrompt(prompt) {
  const blocks = [];
  for (const block of prompt) {
    if (block.type === "text") blocks.push({ type: "text", text: block.text });
  }
  return blocks;
}
function toError(value) {
  return value instanceof Error ? value : new Error(String(value));
}
async function startAcpRun(request, spec) {
  if (request.signal.aborted) throw new Error("subagent request was aborted before the ACP child started");
  const id = SessionId(randomUUID());
  const child = spec.spawn({
    argv: [spec.command, ...spec.args],
    cwd: spec.cwd,
    stdio: { stdin: "pipe", stdout: "pipe", stderr: "inherit" },
    graceMs: spec.disposeGraceMs,
    env: spec.env
  });
  if (child.stdin === void 0 || child.stdout === void 0) {
    throw new Error("subagent-acp: subprocess implementation dropped a piped protocol stream");
  }
  const spawnFailed = child.done.then(
    /* v8 ignore next -- the success arm's never-settling executor is intentionally empty. */
    () => new Promise(() => {
    }),
    (err) => Promise.reject(toError(err))
  );
  spawnFailed.catch(() => {
  });
  let processDisposal;
  const disposeProcess = () => processDisposal ??= disposeAcpChild(child, spec.disposeEofGraceMs);
  const fold = new AssistantOutputFold();
  const flags = { cancelled: false };
  const makeClient = (_agent) => ({
    sessionUpdate(params) {
      const update = params.update;
      if (update.sessionUpdate === "agent_message_chunk") {
        fold.pushText(acpContentText(update.content));
      }
      return Promise.resolve();
    },
    requestPermission(params) {
      if (spec.permission === "allow") {
        const allow = params.options.find((o) => o.kind === "allow_once" || o.kind === "allow_always");
        if (allow !== void 0) {
          return Promise.resolve({ outcome: { outcome: "selected", optionId: allow.optionId } });
        }
      }
      return Promise.resolve({ outcome: { outcome: "cancelled" } });
    }
  });
  const conn = new ClientSideConnection(
    makeClient,
    ndJsonStream(
      NodeWritable.toWeb(child.stdin),
      NodeReadable.toWeb(child.stdout)
    )
  );
  let sessionId;
  let signalCancelSettled;
  const cancelSettled = new Promise((resolve2) => {
    signalCancelSettled = resolve2;
  });
  const requestCancel = () => {
    if (flags.cancelled) return;
    flags.cancelled = true;
    signalCancelSettled();
    if (sessionId !== void 0) void conn.cancel({ sessionId }).catch(() => {
    });
  };
  const onAbort = () => {
    requestCancel();
  };
  request.signal.addEventListener("abort", onAbort, { once: true });
  const collectOutput = () => fold.collect() ?? [];
  try {
    await Promise.race([
      (async () => {
        await conn.initialize({
          protocolVersion: PROTOCOL_VERSION,
          // Advertise NO optional client capabilities (no fs, no terminal): the
          // child self-serves in its own process.
          clientCapabilities: {}
        });
        const session = await conn.newSession({ cwd: spec.cwd, mcpServers: [] });
        const returnedSessionId = Reflect.get(session, "sessionId");
        if (typeof returnedSessionId !== "string") throw new Error("ACP child published without a session id");
        sessionId = returnedSessionId;
        if (flags.cancelled) throw new Error("subagent cancelled before the ACP session started");
      })(),
      spawnFailed,
      cancelSettled.then(() => {
        throw new Error("subagent cancelled before the ACP session started");
      })
    ]);
  } catch (error) {
    request.signal.removeEventListener("abort", onAbort);
    await disposeProcess();
    if (flags.cancelled) throw new Error("subagent request was aborted before the ACP child started");
    throw toError(error);
  }
  if (sessionId === void 0) throw new Error("unreachable: ACP startup fulfilled without a session id");
  const remoteSessionId = sessionId;
  const result = (async () => {
    try {
      const prompt = async () => {
        const promptResult = await conn.prompt({ sessionId: remoteSessionId, prompt: toAcpPrompt(request.prompt) });
        return { output: collectOutput(), stopReason: acpStopReason(promptResult.stopReason) };
      };
      return await Promise.race([
        prompt(),
        cancelSettled.then(() => ({ output: collectOutput(), stopReason: "aborted" }))
      ]);
    } catch (error) {
      if (flags.cancelled) return { output: collectOutput(), stopReason: "aborted" };
      try {
        spec.onError?.(toError(error), "error");
      } catch {
      }
      return { output: collectOutput(), stopReason: "error" };
    } finally {
      request.signal.removeEventListener("abort", onAbort);
    }
  })();
  let disposal;
  return {
    id,
    localAgent: void 0,
    result,
    dispose() {
      if (disposal !== void 0) return disposal;
      request.signal.removeEventListener("abort", onAbort);
      requestCancel();
      disposal = disposeProcess();
      return disposal;
    }
  };
}

// src/index.ts
var name = "subagent-acp";
var inject = ["subagents", "subprocess"];
var Config = z.object({
  providerName: z.string().default("acp"),
  command: z.string().required(),
  args: z.array(z.string()).default([]),
  cwd: z.string(),
  permission: z.union(["allow", "reject"]).default("reject"),
  env: z.dict(z.string()).default({}),
  disposeEofGraceMs: z.number().default(DEFAULT_DISPOSE_EOF_GRACE_MS),
  disposeGraceMs: z.number().default(DEFAULT_DISPOSE_GRACE_MS)
});
function assertPositiveFinite(name2, value) {
  if (!Number.isFinite(value) || value <= 0 || value > MAX_TIMER_DELAY_MS) {
    throw new Error(`subagent-acp: ${name2} must be a positive finite number no greater than ${MAX_TIMER_DELAY_MS}`);
  }
}
function isDirectory(path) {
  try {
    if (!statSync(path).isDirectory()) return false;
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
function assertUsableCwd(label, cwd) {
  if (!isAbsolute(cwd)) {
    throw new Error(`subagent-acp: ${label} must be an absolute path: ${cwd}`);
  }
  if (!isDirectory(cwd)) {
    throw new Error(`subagent-acp: ${label} is not an accessible directory: ${cwd}`);
  }
  return cwd;
}
function resolveCwd(configured, request) {
  if (configured !== void 0) return configured;
  const parentCwd = request.parent.session.header.cwd;
  if (parentCwd === void 0) {
    throw new Error("subagent-acp: no working directory for the child — configure `cwd` or delegate from a parent session that has one");
  }
  return assertUsableCwd("parent session cwd", parentCwd);
}
var AcpProvider = class {
  constructor(name2, ctx, config) {
    this.name = name2;
    this.ctx = ctx;
    this.config = config;
  }
  name;
  ctx;
  config;
  capabilities = { outputSchema: false, depthLimit: false, toolFilter: false, persona: false };
  // Context contract: an out-of-process ACP child starts fresh — no parent conversation crosses the process boundary.
  inheritsParentContext = false;
  start(request) {
    const spec = {
      command: this.config.command,
      args: this.config.args,
      cwd: resolveCwd(this.config.cwd, request),
      permission: this.config.permission,
      env: this.config.env,
      disposeEofGraceMs: this.config.disposeEofGraceMs,
      disposeGraceMs: this.config.disposeGraceMs,
      spawn: (spec2) => this.ctx.subprocess.spawn(spec2),
      onError: (error, stopReason) => {
        this.ctx.logger.warn(`subagent-acp "${this.name}": child run failed (${stopReason}): ${error.message}`);
      }
    };
    return startAcpRun(request, spec);
  }
};
function apply(ctx, config) {
  const resolved = config;
  assertPositiveFinite("disposeEofGraceMs", resolved.disposeEofGraceMs);
  assertPositiveFinite("disposeGraceMs", resolved.disposeGraceMs);
  if (resolved.cwd === "") {
    throw new Error("subagent-acp: config cwd must not be empty — omit the key to inherit the parent session cwd");
  }
  const validated = resolved.cwd === void 0 ? resolved : { ...resolved, cwd: assertUsableCwd("config cwd", resolve(resolved.cwd)) };
  ctx.subagents.registerProvider(new AcpProvider(validated.providerName, ctx, validated));
}
export {
  Config,
  apply,
  inject,
  name
};
