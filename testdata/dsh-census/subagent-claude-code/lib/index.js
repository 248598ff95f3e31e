// @deepseek-ai/dsh-subagent-claude-code@0.1.0-rc.8, built by testdata/dsh-census/census.mjs from toninfo/deepseek-harness@611615650f1b:packages/subagent/subagent-claude-code (MIT, see LICENSE).

// src/index.ts
import z from "@deepseek-ai/schemastery";
import { MAX_TIMER_DELAY_MS } from "@deepseek-ai/dsh-timeout";
import {
  assertPositiveFinite,
  NO_START_CAPABILITIES,
  resolveChildCwd
} from "@deepseek-ai/dsh-subagent";

// src/run.ts
import { randomUUID } from "node:crypto";
import {
  query as officialQuery
} from "@anthropic-ai/claude-agent-sdk";
import { SessionId } from "@deepseek-ai/dsh-session";
import {
  settleRunResult,
  subprocessRunHandle
} from "@deepseek-ai/dsh-subagent";
import {
  scrubbedParentEnv as scrubbedParentEnv2
} from "@deepseek-ai/dsh-subprocess";

// src/process.ts
import { EventEmitter } from "node:events";
import {
  scrubbedParentEnv
} from "@deepseek-ai/dsh-subprocess";
function thrown(value) {
  return value instanceof Error ? value : new Error(String(value));
}
function sdkEnvironmentOverlay(env) {
  const overlay = { ...env };
  for (const name2 of Object.keys(scrubbedParentEnv())) {
    if (!(name2 in env)) overlay[name2] = void 0;
  }
  return overlay;
}
function claudeSpawnSpec(options, graceMs) {
  if (options.cwd === void 0 || options.cwd.length === 0) {
    throw new Error("subagent-claude-code: SDK spawn request omitted its workspace");
  }
  return {
    argv: [options.command, ...options.args],
    cwd: options.cwd,
    stdio: { stdin: "pipe", stdout: "pipe", stderr: "inherit" },
    graceMs,
    signal: options.signal,
    env: sdkEnvironmentOverlay(options.env)
  };
}
var ManagedClaudeCodeProcess = class {
  /**
   * Project a managed process with piped stdin and stdout.
   * @param child - shared handle that remains the process-tree authority.
   */
  constructor(child) {
    this.child = child;
    this.stdin = child.stdin;
    this.stdout = child.stdout;
    this.events.on("error", () => {
    });
    void child.done.then(
      (outcome) => {
        this.outcomeValue = outcome;
        this.events.emit("exit", outcome.exitCode, outcome.signal);
      },
      (error) => {
        this.events.emit("error", thrown(error));
      }
    );
  }
  child;
  stdin;
  stdout;
  events = new EventEmitter();
  outcomeValue;
  killRequested = false;
  /** Whether the SDK has requested managed tree termination. */
  get killed() {
    return this.killRequested;
  }
  /** Direct-child exit code, or null while running or after signal exit. */
  get exitCode() {
    return this.outcomeValue?.exitCode ?? null;
  }
  /** Direct-child terminating signal, if any. */
  get signalCode() {
    return this.outcomeValue?.signal ?? null;
  }
  /** Exact managed-process outcome after exit, or undefined while running. */
  get outcome() {
    return this.outcomeValue;
  }
  /**
   * Route the SDK's termination request to the tree-scoped process owner.
   * @param _signal - SDK-selected signal; the shared seam owns its escalation ladder.
   * @returns false only after exit or a previous termination request.
   */
  kill(_signal) {
    if (this.killRequested || this.outcomeValue !== void 0) {
      return false;
    }
    this.killRequested = true;
    this.child.terminate();
    return true;
  }
  /** Register a persistent process lifecycle listener. */
  on(event, listener) {
    this.events.on(event, listener);
  }
  /** Register a one-shot process lifecycle listener. */
  once(event, listener) {
    this.events.once(event, listener);
  }
  /** Remove a process lifecycle listener. */
  off(event, listener) {
    this.events.off(event, listener);
  }
};

// src/run.ts
var DEFAULT_DISPOSE_GRACE_MS = 3e3;
var CLAUDE_CODE_PERMISSION_MODES = [
  "dontAsk",
  "acceptEdits",
  "auto",
  "plan",
  "bypassPermissions"
];
var DEFAULT_CLAUDE_CODE_PERMISSION_MODE = "dontAsk";
var SUPPORTED_UNATTENDED_DIALOG_KINDS = [
  "refusal_fallback_prompt"
];
function failureDiagnostic(facts) {
  const fields = [
    "product: Claude Code",
    `stage: ${facts.stage}`,
    `category: ${facts.category}`
  ];
  const exitCode = facts.outcome?.exitCode;
  if (exitCode !== null && exitCode !== void 0) {
    fields.push(`exit code: ${exitCode}`);
  }
  const signal = facts.outcome?.signal;
  if (signal !== null && signal !== void 0) {
    fields.push(`signal: ${signal}`);
  }
  return `Product subagent failure (${fields.join("; ")})`;
}
var ClaudeCodeFailure = class extends Error {
  constructor(facts, cause) {
    super(
      `subagent-claude-code: ${failureDiagnostic(facts)}`,
      cause === void 0 ? void 0 : { cause }
    );
    this.facts = facts;
    this.name = "ClaudeCodeFailure";
  }
  facts;
};
function sdkFailureCategory(subtype) {
  switch (subtype) {
    case "error_during_execution":
    case "error_max_turns":
    case "error_max_budget_usd":
    case "error_max_structured_output_retries":
      return subtype;
    default:
      return "unknown";
  }
}
function claudeCodeStartupFailure(cause) {
  return new ClaudeCodeFailure({
    stage: "query-start",
    category: "unknown"
  }, cause);
}
function unattendedDiagnostic(mode, request, decision, reason) {
  return `Claude Code unattended decision (mode: ${mode}; request: ${request}; decision: ${decision}): ${reason}`;
}
function thrown2(value) {
  return value instanceof Error ? value : new Error(String(value));
}
function isAborted(signal) {
  return signal.aborted;
}
function textTask(prompt) {
  if (prompt.length === 0) {
    throw new Error("subagent-claude-code: the one-shot task must contain only text blocks");
  }
  const texts = [];
  for (const block of prompt) {
    if (block.type !== "text") {
      throw new Error("subagent-claude-code: the one-shot task must contain only text blocks");
    }
    texts.push(block.text);
  }
  if (texts.every((text) => text.trim().length === 0)) {
    throw new Error("subagent-claude-code: the one-shot task must not be empty");
  }
  return texts.join("");
}
function successfulResult(message) {
  if (message.subtype !== "success") {
    const category = sdkFailureCategory(message.subtype);
    const detail = category === "unknown" ? void 0 : message.errors.join("; ");
    throw new ClaudeCodeFailure(
      { stage: "query-run", category },
      detail === void 0 || detail.length === 0 ? void 0 : new Error(detail)
    );
  }
  if (message.is_error || message.result.trim().length === 0) {
    throw new ClaudeCodeFailure({
      stage: "query-run",
      category: "invalid-success"
    });
  }
  return message.result;
}
async function consumeClaudeQuery(query, onPermissionDenied, onResult) {
  let answer;
  for await (const message of query) {
    if (message.type === "system" && message.subtype === "permission_denied") {
      onPermissionDenied?.();
      continue;
    }
    if (message.type !== "result") continue;
    onResult?.();
    answer = successfulResult(message);
  }
  if (answer === void 0) {
    throw new ClaudeCodeFailure({
      stage: "query-run",
      category: "missing-result"
    });
  }
  return {
    output: [{ type: "text", text: answer }],
    stopReason: "completed"
  };
}
async function disposeClaudeCodeChild(query, child) {
  const failures = [];
  try {
    query?.close();
  } catch (error) {
    failures.push(thrown2(error));
  }
  child.terminate();
  try {
    await child.waitForExit();
  } catch (error) {
    failures.push(thrown2(error));
  }
  const outcome = await child.done;
  const firstFailure = failures[0];
  if (firstFailure !== void 0) {
    const facts = {
      stage: "teardown",
      category: "unknown",
      outcome
    };
    const cause = failures.length === 1 ? firstFailure : new AggregateError(failures, "Claude Code teardown failures");
    throw new ClaudeCodeFailure(facts, cause);
  }
}
function claudeQueryOptions(spec, controller, capture, captureDiagnostic) {
  return {
    abortController: controller,
    cwd: spec.cwd,
    env: { ...scrubbedParentEnv2(), ...spec.env },
    persistSession: false,
    disallowedTools: spec.permissionMode === "plan" ? ["AskUserQuestion", "ExitPlanMode"] : ["AskUserQuestion"],
    permissionMode: spec.permissionMode,
    ...spec.permissionMode === "bypassPermissions" ? { allowDangerouslySkipPermissions: true } : {
      canUseTool: () => {
        captureDiagnostic(unattendedDiagnostic(
          spec.permissionMode,
          "tool permission",
          "denied",
          "the provider does not request human approval"
        ));
        return Promise.resolve({
          behavior: "deny",
          message: "This unattended Claude Code subagent cannot request human approval."
        });
      }
    },
    onElicitation: () => {
      captureDiagnostic(unattendedDiagnostic(
        spec.permissionMode,
        "MCP elicitation",
        "declined",
        "the provider does not collect interactive MCP input"
      ));
      return Promise.resolve({ action: "decline" });
    },
    onUserDialog: () => {
      captureDiagnostic(unattendedDiagnostic(
        spec.permissionMode,
        "user dialog",
        "cancelled",
        "the provider does not render blocking dialogs"
      ));
      return Promise.resolve({ behavior: "cancelled" });
    },
    supportedDialogKinds: SUPPORTED_UNATTENDED_DIALOG_KINDS,
    spawnClaudeCodeProcess: (options) => {
      const child = spec.spawn(claudeSpawnSpec(options, spec.disposeGraceMs));
      const process = new ManagedClaudeCodeProcess(child);
      capture(child, process);
      return process;
    }
  };
}
async function startClaudeCodeRun(request, spec) {
  const prompt = textTask(request.prompt);
  if (request.signal.aborted) {
    throw new Error("subagent-claude-code: request was aborted before SDK startup");
  }
  const controller = new AbortController();
  const requestCancel = () => {
    if (!controller.signal.aborted) {
      controller.abort(new Error("subagent-claude-code: run cancelled locally"));
    }
  };
  const onAbort = () => {
    requestCancel();
  };
  request.signal.addEventListener("abort", onAbort, { once: true });
  const reportFailure = (error) => {
    try {
      spec.onError?.(error, "error");
    } catch {
    }
  };
  let child;
  let query;
  let managedProcess;
  let diagnostic;
  const capturePermissionDiagnostic = (value) => {
    diagnostic = value;
  };
  const prependFailureDiagnostic = (facts) => {
    const failure = failureDiagnostic(facts);
    diagnostic = diagnostic === void 0 ? failure : `${failure}
${diagnostic}`;
  };
  const captureChild = (captured, process) => {
    child = captured;
    managedProcess = process;
  };
  try {
    query = officialQuery({
      prompt,
      options: claudeQueryOptions(
        spec,
        controller,
        captureChild,
        capturePermissionDiagnostic
      )
    });
    if (child === void 0 || child.pid <= 0) {
      throw new Error(
        "subagent-claude-code: official SDK did not publish a controllable Claude Code process"
      );
    }
    if (controller.signal.aborted) {
      throw new Error("subagent-claude-code: request was aborted before SDK startup");
    }
  } catch (error) {
    request.signal.removeEventListener("abort", onAbort);
    const cancelledBeforeCleanup = controller.signal.aborted;
    await Promise.resolve();
    const startupOutcome = managedProcess?.outcome;
    const startupFacts = {
      stage: "query-start",
      category: "unknown",
      outcome: startupOutcome
    };
    const startupFailure = (cause = error) => new ClaudeCodeFailure(
      startupFacts,
      thrown2(cause)
    );
    requestCancel();
    if (child !== void 0 && child.pid <= 0) {
      let closeError;
      try {
        query?.close();
      } catch (disposeError) {
        closeError = thrown2(disposeError);
      }
      let spawnError = thrown2(error);
      try {
        await child.done;
      } catch (childError) {
        spawnError = thrown2(childError);
      }
      if (closeError !== void 0) {
        const failure3 = startupFailure(spawnError);
        const cleanupFailure = new ClaudeCodeFailure({
          stage: "teardown",
          category: "unknown"
        }, closeError);
        const aggregate = new AggregateError(
          [failure3, cleanupFailure],
          `${failure3.message}; ${cleanupFailure.message}`
        );
        reportFailure(aggregate);
        throw aggregate;
      }
      if (cancelledBeforeCleanup || isAborted(request.signal)) {
        throw new Error("subagent-claude-code: request was aborted before SDK startup");
      }
      const failure2 = startupFailure(spawnError);
      reportFailure(failure2);
      throw failure2;
    }
    if (child !== void 0) {
      try {
        await disposeClaudeCodeChild(query, child);
      } catch (disposeError) {
        const failure2 = startupFailure();
        const cleanupFailure = thrown2(disposeError);
        const aggregate = new AggregateError(
          [failure2, cleanupFailure],
          `${failure2.message}; ${cleanupFailure.message}`
        );
        reportFailure(aggregate);
        throw aggregate;
      }
    } else if (query !== void 0) {
      try {
        query.close();
      } catch (disposeError) {
        const failure2 = startupFailure();
        const cleanupFailure = new ClaudeCodeFailure({
          stage: "teardown",
          category: "unknown"
        }, thrown2(disposeError));
        const aggregate = new AggregateError(
          [failure2, cleanupFailure],
          `${failure2.message}; ${cleanupFailure.message}`
        );
        reportFailure(aggregate);
        throw aggregate;
      }
    }
    if (cancelledBeforeCleanup || isAborted(request.signal)) {
      throw new Error("subagent-claude-code: request was aborted before SDK startup");
    }
    const failure = startupFailure();
    reportFailure(failure);
    throw failure;
  }
  const publishedQuery = query;
  const publishedChild = child;
  let receivedResult = false;
  const result = settleRunResult({
    attempt: async () => {
      try {
        return await consumeClaudeQuery(publishedQuery, () => {
          capturePermissionDiagnostic(unattendedDiagnostic(
            spec.permissionMode,
            "tool permission",
            "denied",
            "Claude Code denied the request before an interactive prompt"
          ));
        }, () => {
          receivedResult = true;
        });
      } catch (error) {
        const processOutcome = managedProcess?.outcome;
        let facts;
        if (error instanceof ClaudeCodeFailure) {
          facts = { ...error.facts, outcome: processOutcome };
        } else if (processOutcome !== void 0 && !receivedResult) {
          facts = {
            stage: "process",
            category: "process-exit",
            outcome: processOutcome
          };
        } else {
          facts = {
            stage: "query-run",
            category: "unknown",
            outcome: processOutcome
          };
        }
        prependFailureDiagnostic(facts);
        throw error instanceof ClaudeCodeFailure ? error : new ClaudeCodeFailure(facts, thrown2(error));
      }
    },
    collectOutput: () => [],
    collectDiagnostic: () => diagnostic,
    cancelled: () => controller.signal.aborted,
    onError: spec.onError,
    signal: request.signal,
    onAbort
  });
  return subprocessRunHandle({
    id: SessionId(randomUUID()),
    result,
    signal: request.signal,
    onAbort,
    requestCancel,
    teardown: async () => {
      try {
        await disposeClaudeCodeChild(publishedQuery, publishedChild);
      } catch (error) {
        const failure = thrown2(error);
        reportFailure(failure);
        throw failure;
      }
    }
  });
}

// src/index.ts
var name = "subagent-claude-code";
var inject = ["subagents", "subprocess"];
var DEFAULT_PROVIDER_NAME = "claude-code";
var Config = z.object({
  providerName: z.string().min(1).default(DEFAULT_PROVIDER_NAME),
  env: z.dict(z.string()).default({}),
  permissionMode: z.union([...CLAUDE_CODE_PERMISSION_MODES]).default(DEFAULT_CLAUDE_CODE_PERMISSION_MODE),
  disposeGraceMs: z.number().default(DEFAULT_DISPOSE_GRACE_MS)
});
var ClaudeCodeProvider = class {
  constructor(name2, ctx, config) {
    this.name = name2;
    this.ctx = ctx;
    this.config = config;
  }
  name;
  ctx;
  config;
  capabilities = NO_START_CAPABILITIES;
  inheritsParentContext = false;
  async start(request) {
    const parentCwd = request.parent.session.header.cwd;
    if (parentCwd === void 0) {
      throw new Error(
        "subagent-claude-code: no working directory for the child — delegate from a parent session that has one"
      );
    }
    let cwd;
    try {
      cwd = resolveChildCwd(
        "subagent-claude-code",
        void 0,
        parentCwd
      );
    } catch (error) {
      if (request.signal.aborted) {
        throw new Error(
          "subagent-claude-code: request was aborted before SDK startup"
        );
      }
      const failure = claudeCodeStartupFailure(error);
      this.ctx.logger.warn(
        `subagent-claude-code "${this.name}": child start failed: %o`,
        failure
      );
      throw failure;
    }
    const spec = {
      cwd,
      permissionMode: this.config.permissionMode,
      env: this.config.env,
      disposeGraceMs: this.config.disposeGraceMs,
      spawn: (spawnSpec) => this.ctx.subprocess.spawn(spawnSpec),
      onError: (error, stopReason) => {
        this.ctx.logger.warn(
          `subagent-claude-code "${this.name}": child run failed (${stopReason}): %o`,
          error
        );
      }
    };
    return startClaudeCodeRun(request, spec);
  }
};
function apply(ctx, config) {
  const resolved = {
    providerName: config.providerName ?? DEFAULT_PROVIDER_NAME,
    env: config.env,
    permissionMode: config.permissionMode ?? DEFAULT_CLAUDE_CODE_PERMISSION_MODE,
    disposeGraceMs: config.disposeGraceMs
  };
  assertPositiveFinite(
    "subagent-claude-code",
    "disposeGraceMs",
    resolved.disposeGraceMs
  );
  if (resolved.disposeGraceMs > MAX_TIMER_DELAY_MS) {
    throw new Error(
      `subagent-claude-code: disposeGraceMs must be no greater than ${MAX_TIMER_DELAY_MS}`
    );
  }
  ctx.subagents.registerProvider(new ClaudeCodeProvider(
    resolved.providerName,
    ctx,
    resolved
  ));
}
export {
  Config,
  apply,
  inject,
  name
};
