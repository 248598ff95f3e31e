// @deepseek-ai/dsh-workflow-worker-thread@0.1.0-rc.8, built by testdata/dsh-census/census.mjs from toninfo/deepseek-harness@611615650f1b:packages/workflow/workflow-worker-thread (MIT, see LICENSE).

// src/index.ts
import { randomUUID } from "node:crypto";
import { availableParallelism } from "node:os";
import * as vm from "node:vm";
import z from "@deepseek-ai/schemastery";
import WorkflowEngine, { WorkflowError as WorkflowError2, WorkflowRunId } from "@deepseek-ai/dsh-workflow";

// src/host.ts
import { tmpdir } from "node:os";
import { Worker } from "node:worker_threads";
import { fileURLToPath } from "node:url";
import { assertNever } from "@deepseek-ai/dsh-llm";
import { snapshotJsonValue } from "@deepseek-ai/dsh-session";

// src/realm.ts
var MaterializeError = class extends Error {
  constructor(path, reason) {
    super(`${path}: ${reason}`);
    this.path = path;
    this.reason = reason;
    this.name = "MaterializeError";
  }
  path;
  reason;
};
function renderThrown(error) {
  try {
    const stack = error?.stack;
    if (typeof stack === "string" && stack.length > 0) return stack;
    const message = error?.message;
    if (typeof message === "string" && message.length > 0) return message;
    return String(error);
  } catch {
    return "[unrenderable thrown value]";
  }
}
function hasPlainPrototype(value) {
  const proto = Object.getPrototypeOf(value);
  if (proto === null) return true;
  return Object.getPrototypeOf(proto) === null;
}
function materializeFromRealm(value, root = "value") {
  if (value === void 0) return void 0;
  try {
    return materialize(value, root, /* @__PURE__ */ new Set());
  } catch (error) {
    if (error instanceof MaterializeError) throw error;
    throw new MaterializeError(root, `reading the value threw: ${renderThrown(error)}`);
  }
}
function materialize(value, path, seen) {
  switch (typeof value) {
    case "boolean":
    case "string":
      return value;
    case "number": {
      if (!Number.isFinite(value)) throw new MaterializeError(path, "non-finite numbers are not JSON data");
      return value;
    }
    case "bigint":
      throw new MaterializeError(path, "bigints are not JSON data");
    case "function":
      throw new MaterializeError(path, "functions are not plain JSON data");
    case "symbol":
      throw new MaterializeError(path, "symbols are not plain JSON data");
    case "undefined":
      throw new MaterializeError(path, "undefined is not JSON data");
    case "object":
      break;
  }
  if (value === null) return null;
  const objectValue = value;
  if (seen.has(objectValue)) throw new MaterializeError(path, "circular references are not JSON data");
  seen.add(objectValue);
  try {
    if (Array.isArray(objectValue)) return materializeArray(objectValue, path, seen);
    return materializeObject(objectValue, path, seen);
  } finally {
    seen.delete(objectValue);
  }
}
function materializeArray(value, path, seen) {
  const out = [];
  for (let index = 0; index < value.length; index++) {
    if (!(index in value)) throw new MaterializeError(`${path}[${index}]`, "sparse arrays are not JSON data");
    out.push(materialize(value[index], `${path}[${index}]`, seen));
  }
  for (const key of Object.keys(value)) {
    const index = Number(key);
    if (!Number.isInteger(index) || index < 0 || index >= value.length) {
      throw new MaterializeError(`${path}.${key}`, "arrays with non-index properties are not JSON data");
    }
  }
  if (Object.getOwnPropertySymbols(value).length > 0) {
    throw new MaterializeError(path, "symbol-keyed properties are not plain JSON data");
  }
  return out;
}
function materializeObject(value, path, seen) {
  if (!hasPlainPrototype(value)) {
    throw new MaterializeError(path, "only plain objects and arrays are JSON data (exotic prototype)");
  }
  if (Object.getOwnPropertySymbols(value).length > 0) {
    throw new MaterializeError(path, "symbol-keyed properties are not plain JSON data");
  }
  const out = {};
  for (const key of Object.keys(value)) {
    Object.defineProperty(out, key, {
      value: materialize(value[key], `${path}.${key}`, seen),
      enumerable: true,
      writable: true,
      configurable: true
    });
  }
  return out;
}

// src/host.ts
function workerSpawnEnv(platform = process.platform, tsconfigPath) {
  const env = {};
  if (platform === "win32") {
    const tmp = tmpdir();
    env.TMP = tmp;
    env.TEMP = tmp;
  }
  if (tsconfigPath !== void 0) env.TSX_TSCONFIG_PATH = tsconfigPath;
  return env;
}
function resolveWorkerSpawn(init) {
  if (!import.meta.url.endsWith(".ts")) {
    return { entry: fileURLToPath(new URL("./worker.cjs", import.meta.url)), options: { workerData: init, env: workerSpawnEnv(), execArgv: [] } };
  }
  const workerEntry = new URL("./worker.ts", import.meta.url);
  const tsxEsmApiEntry = import.meta.resolve("tsx/esm/api");
  const tsxCjsApiEntry = import.meta.resolve("tsx/cjs/api");
  const bootstrap = [
    `import { register as registerEsm } from ${JSON.stringify(tsxEsmApiEntry)}`,
    `import { register as registerCjs } from ${JSON.stringify(tsxCjsApiEntry)}`,
    "registerCjs()",
    "registerEsm()",
    `await import(${JSON.stringify(workerEntry.href)})`
  ].join("\n");
  return {
    entry: new URL(`data:text/javascript,${encodeURIComponent(bootstrap)}`),
    options: {
      workerData: init,
      env: workerSpawnEnv(void 0, process.env.TSX_TSCONFIG_PATH),
      execArgv: []
    }
  };
}
var WorkerRun = class {
  constructor(ctx, subagents, id, meta, parent, init, provider, disposeGraceMs, observer, signal) {
    this.ctx = ctx;
    this.subagents = subagents;
    this.id = id;
    this.meta = meta;
    this.parent = parent;
    this.provider = provider;
    this.disposeGraceMs = disposeGraceMs;
    this.observer = observer;
    this.result = new Promise((resolve) => {
      this.settleResolve = resolve;
    });
    const { entry, options } = resolveWorkerSpawn(init);
    this.worker = new Worker(entry, options);
    this.worker.on("message", (message) => {
      this.onMessage(message);
    });
    this.worker.on("error", (error) => {
      this.onWorkerDeath(`workflow worker failed: ${renderThrown(error)}`, false);
    });
    this.worker.on("messageerror", (error) => {
      this.onWorkerDeath(`workflow worker message failed to deserialize: ${renderThrown(error)}`, false);
    });
    this.worker.on("exit", (code) => {
      this.workerGone = true;
      this.onWorkerDeath(`workflow worker exited before the run settled (exit code ${code})`, true);
    });
    if (signal?.aborted) {
      this.cancel("workflow start signal already aborted");
    } else if (signal !== void 0) {
      const onAbort = () => {
        this.detachInputSignal();
        this.cancel("workflow signal aborted");
      };
      this.inputSignal = signal;
      this.inputSignalAbort = onAbort;
      signal.addEventListener("abort", onAbort, { once: true });
    }
  }
  ctx;
  subagents;
  id;
  meta;
  parent;
  provider;
  disposeGraceMs;
  observer;
  /** Settles exactly once with the run's outcome; never rejects. */
  result;
  settleResolve;
  settled = false;
  /** A Result/death/grace outcome atomically won before teardown callbacks. */
  terminalClaimed = false;
  /** The first death signal closes worker-message admission and owns failure-time cleanup. */
  workerDeathObserved = false;
  cancelReason;
  graceTimer;
  worker;
  /** Set on `exit`: the thread is gone, so posting has nowhere to go. */
  workerGone = false;
  /** Accepted `child-start` messages — the terminate-path `agentsStarted` (see module doc). */
  hostStarted = 0;
  /** Published children by callId; an entry leaves only after disposal settles. */
  children = /* @__PURE__ */ new Map();
  /** Provider starts that have not yet fulfilled or rejected. */
  pendingStarts = /* @__PURE__ */ new Set();
  /** Started-but-not-ended agents by seq — the pairing ledger the HOST guarantees (see {@link endAgent}). */
  liveAgents = /* @__PURE__ */ new Map();
  quiescenceWaiters = [];
  /** The per-run abort fanout every child start request carries. */
  controller = new AbortController();
  /** External start signal and the exact callback installed on it, retained only until first settle/teardown. */
  inputSignal;
  inputSignalAbort;
  disposed;
  /**
   * Cancel the run: the worker is told (its hooks start throwing and the
   * script dies at its next await), the required signal shared by every child
   * start is aborted, and the grace timer
   * arms: a run still unsettled `disposeGraceMs` later force-settles
   * `cancelled` and its worker is TERMINATED. Idempotent; the first reason
   * wins.
   * @param reason - human-readable cause (default `'workflow cancelled'`).
   */
  cancel(reason) {
    if (this.settled || this.terminalClaimed || this.cancelReason !== void 0) return;
    this.cancelReason = reason ?? "workflow cancelled";
    this.post("cancel" /* Cancel */, { reason: this.cancelReason });
    this.abortChildren(this.cancelReason);
    this.graceTimer = setTimeout(() => {
      this.terminalClaimed = true;
      this.endStrandedAgents();
      this.settleResult(this.cancelledResult(this.hostStarted));
      void this.worker.terminate();
    }, this.disposeGraceMs);
    this.graceTimer.unref();
  }
  /**
   * Cancel + bounded settle + termination. Host-drives every registered
   * child's disposal IMMEDIATELY — a wedged worker can relay no dispose RPC,
   * and deferring child teardown to the post-terminate reap would spend the
   * whole grace waiting for a quiescence that cannot start, then return with
   * the disposals still in flight — so child disposal overlaps the same
   * grace the worker gets to settle (the worker's own dispose RPCs join the
   * shared per-child disposal). Waits (at most the grace) for the result and
   * child quiescence, then terminates the worker unconditionally — the
   * thread never outlives its run — and reaps whatever children remain
   * (their disposal is contained, not awaited past the grace, the same
   * abandonment the seam documents for a slow-disposing child). Idempotent;
   * safe on every path.
   * @returns resolves when the run's resources are released or abandoned.
   */
  dispose() {
    if (this.disposed !== void 0) return this.disposed;
    const claimed = Promise.withResolvers();
    this.disposed = claimed.promise;
    void (async () => {
      this.detachInputSignal();
      this.cancel("workflow disposed");
      this.reapChildren("workflow disposed");
      await Promise.race([
        (async () => {
          await this.result;
          await this.childQuiescence();
        })(),
        sleep(this.disposeGraceMs)
      ]);
      await this.worker.terminate();
      this.reapChildren("workflow disposed");
    })().then(
      () => {
        claimed.resolve(void 0);
      },
      /* v8 ignore next -- result/quiescence never reject and Worker.terminate is the only external promise */
      (error) => {
        claimed.reject(error);
      }
    );
    return this.disposed;
  }
  /** Post one message to the worker (payload looked up from the tag's map entry), tolerating a thread that is already gone. */
  post(type, payload) {
    if (this.workerGone || this.workerDeathObserved) return;
    try {
      this.worker.postMessage({ type, ...payload });
    } catch (error) {
      this.ctx.logger.warn(`workflow-worker-thread: postMessage failed: ${renderThrown(error)}`);
    }
  }
  onMessage(message) {
    if (this.workerDeathObserved) return;
    switch (message.type) {
      case "ready" /* Ready */:
        this.post("go" /* Go */, {});
        break;
      case "phase" /* Phase */:
        if (this.cancelReason === void 0) this.observer.phase(message.title);
        break;
      case "log" /* Log */:
        if (this.cancelReason === void 0) this.observer.log(message.message);
        break;
      case "agent-start" /* AgentStart */:
        this.liveAgents.set(message.info.seq, message.info);
        this.observer.agentStart(message.info);
        break;
      case "agent-end" /* AgentEnd */:
        this.endAgent(message.info);
        break;
      case "child-start" /* ChildStart */:
        this.onChildStart(message.callId, message.request);
        break;
      case "child-dispose" /* ChildDispose */:
        this.onChildDispose(message.callId);
        break;
      case "result" /* Result */:
        this.onResult(message.result);
        break;
      /* v8 ignore next 2 -- closed engine-owned union; the arm only makes adding a message type a compile error */
      default:
        assertNever(message, "worker-to-host message");
    }
  }
  /** Why a ready provider result may no longer be admitted to the worker. */
  childAdmissionFailure() {
    if (this.cancelReason !== void 0) {
      return { reason: this.cancelReason, rendered: `workflow run cancelled: ${this.cancelReason}` };
    }
    if (this.workerDeathObserved) {
      return { reason: "workflow worker gone", rendered: "workflow worker is no longer available" };
    }
    if (this.terminalClaimed) {
      return { reason: "workflow settled", rendered: "workflow run already settled" };
    }
    return void 0;
  }
  onChildStart(callId, request) {
    const initialFailure = this.childAdmissionFailure();
    if (initialFailure !== void 0) {
      this.post("child-start-error" /* ChildStartError */, { callId, rendered: initialFailure.rendered });
      return;
    }
    this.hostStarted += 1;
    const task = this.startChild(callId, request);
    this.pendingStarts.add(task);
    void task.then(
      () => {
        this.finishPendingStart(task);
      },
      /* v8 ignore next -- startChild contains provider and cleanup failures */
      () => {
        this.finishPendingStart(task);
      }
    );
  }
  /** Await one provider-owned startup transaction and publish only while admitted. */
  async startChild(callId, request) {
    let run;
    try {
      run = await this.subagents.start(this.provider, {
        prompt: [{ type: "text", text: request.prompt }],
        parent: this.parent,
        signal: this.controller.signal,
        ...request.schema !== void 0 ? { outputSchema: request.schema } : {},
        ...request.provider !== void 0 || request.model !== void 0 ? {
          agentOptions: {
            ...request.provider !== void 0 ? { provider: request.provider } : {},
            ...request.model !== void 0 ? { model: request.model } : {}
          }
        } : {}
      });
    } catch (error) {
      const failure2 = this.childAdmissionFailure();
      this.post("child-start-error" /* ChildStartError */, {
        callId,
        rendered: failure2?.rendered ?? renderThrown(error)
      });
      return;
    }
    const failure = this.childAdmissionFailure();
    if (failure !== void 0) {
      this.post("child-start-error" /* ChildStartError */, { callId, rendered: failure.rendered });
      try {
        await run.dispose();
      } catch (error) {
        this.ctx.logger.warn(`workflow-worker-thread: refused child dispose failed: ${renderThrown(error)}`);
      }
      return;
    }
    const record = { run };
    this.children.set(callId, record);
    const forwardResult = run.result.then(
      (result) => {
        try {
          const snapshot = snapshotJsonValue({
            output: result.output,
            ...result.structured !== void 0 ? { structured: result.structured } : {},
            stopReason: result.stopReason
          });
          if (snapshot === void 0) throw new TypeError("child result is not losslessly JSON-serializable");
          return () => {
            this.post("child-settled" /* ChildSettled */, { callId, result: snapshot });
          };
        } catch (error) {
          const rendered = `workflow child result could not cross the worker boundary: ${renderThrown(error)}`;
          return () => {
            this.post("child-failed" /* ChildFailed */, { callId, rendered });
          };
        }
      },
      (error) => {
        const rendered = renderThrown(error);
        return () => {
          this.post("child-failed" /* ChildFailed */, { callId, rendered });
        };
      }
    );
    this.post("child-started" /* ChildStarted */, { callId, childId: run.id });
    void forwardResult.then((forward) => {
      forward();
    });
  }
  onChildDispose(callId) {
    const record = this.children.get(callId);
    if (record === void 0) {
      this.post("child-disposed" /* ChildDisposed */, { callId });
      return;
    }
    void this.disposeChild(callId, record).then(() => {
      this.post("child-disposed" /* ChildDisposed */, { callId });
    });
  }
  /**
   * Start (or join) one registered child's disposal; the registry entry
   * leaves when it settles. Memoized per callId: the worker's dispose RPC,
   * the dispose() host drive, and the reap can all land on the same child —
   * the child's `dispose()` runs once and every caller awaits that one
   * settlement. A rejection is contained (the subagent seam's dispose() is
   * not supposed to reject, but a backend that does anyway must not break
   * quiescence): logged, and the child still leaves the registry.
   * @param callId - the child's registry key.
   * @param record - the registered child (the caller looked it up).
   * @returns resolves when the disposal settled either way; never rejects.
   */
  disposeChild(callId, record) {
    if (record.disposal !== void 0) return record.disposal;
    record.disposal = Promise.resolve().then(() => record.run.dispose()).catch((error) => {
      this.ctx.logger.warn(`workflow-worker-thread: child dispose failed: ${renderThrown(error)}`);
    }).then(() => {
      this.finishChild(callId);
    });
    return record.disposal;
  }
  /** Drop a child record and release quiescence waiters when all work ends. */
  finishChild(callId) {
    this.children.delete(callId);
    this.notifyChildQuiescence();
  }
  /** Retire one provider startup transaction. */
  finishPendingStart(task) {
    this.pendingStarts.delete(task);
    this.notifyChildQuiescence();
  }
  /** Release waiters only after both pending starts and published children end. */
  notifyChildQuiescence() {
    if (this.children.size !== 0 || this.pendingStarts.size !== 0) return;
    for (const waiter of this.quiescenceWaiters.splice(0)) waiter();
  }
  /** Resolves once every pending start and published child has reached quiescence. */
  childQuiescence() {
    if (this.children.size === 0 && this.pendingStarts.size === 0) return Promise.resolve();
    return new Promise((resolve) => {
      this.quiescenceWaiters.push(resolve);
    });
  }
  /** Abort + dispose every registered child (worker death / final teardown); disposal is contained, not awaited. */
  reapChildren(reason) {
    this.abortChildren(this.cancelReason ?? reason);
    for (const [callId, record] of [...this.children]) {
      void this.disposeChild(callId, record);
    }
  }
  /** Abort the one canonical signal shared by pending and published children. */
  abortChildren(reason) {
    if (!this.controller.signal.aborted) this.controller.abort(reason);
  }
  onResult(result) {
    if (this.terminalClaimed) return;
    const cancellationWasRequested = this.cancelReason !== void 0;
    this.terminalClaimed = true;
    this.reapChildren("workflow settled");
    if (!cancellationWasRequested) {
      this.settleResult(result);
      return;
    }
    if (result.stopReason !== "cancelled") {
      this.settleResult(this.cancelledResult(result.agentsStarted));
      return;
    }
    this.settleResult(result);
  }
  /** Process an error/messageerror/exit signal; `exit` also performs the final disposal sweep. */
  onWorkerDeath(message, isExit) {
    if (!this.workerDeathObserved) {
      this.workerDeathObserved = true;
      const outcomeWasClaimed = this.terminalClaimed;
      const cancellationWasRequested = this.cancelReason !== void 0;
      if (!outcomeWasClaimed) this.terminalClaimed = true;
      if (this.children.size > 0 || this.pendingStarts.size > 0) this.reapChildren("workflow worker gone");
      this.endStrandedAgents();
      if (!outcomeWasClaimed) {
        if (cancellationWasRequested) {
          this.settleResult(this.cancelledResult(this.hostStarted));
        } else {
          this.settleResult({ value: null, stopReason: "error", error: message, agentsStarted: this.hostStarted });
        }
      }
    }
    if (!isExit) return;
    for (const [callId, record] of [...this.children]) void this.disposeChild(callId, record);
    this.endStrandedAgents();
  }
  /**
   * The single agent-end emission gate: forwards `end` iff its start is still
   * unpaired in the ledger, so every forwarded `workflow/agent-start` gets
   * EXACTLY one `workflow/agent-end` — the worker's own report where it can
   * speak, a host-synthesized one where it cannot ({@link endStrandedAgents}).
   * @param end - the settlement to emit (worker-reported or synthesized).
   */
  endAgent(end) {
    if (!this.liveAgents.delete(end.seq)) return;
    this.observer.agentEnd(end);
  }
  /**
   * Synthesize the missing `agent-end` for every started-but-unpaired agent,
   * outcome `'cancelled'`: the reap cancels every child, and a real
   * settlement racing the force-settle loses to that already-started external
   * cancellation. The atomic terminal boundaries in {@link onResult} and
   * {@link onWorkerDeath} deliberately exclude teardown callbacks as contenders.
   * Called where the worker can no longer speak (the grace force-settle,
   * worker death, physical exit). When grace/death is the terminal source it
   * runs before settleResult, so already-known pairs precede `workflow/end`;
   * after an earlier Result, exit cleanup may close a survivor afterward.
   * The ledger preserves exactly-once pairing in both orders.
   */
  endStrandedAgents() {
    for (const info of [...this.liveAgents.values()]) {
      this.endAgent({ ...info, outcome: "cancelled" });
    }
  }
  cancelledResult(agentsStarted) {
    const reason = this.cancelReason ?? "workflow cancelled";
    return { value: null, stopReason: "cancelled", error: `workflow run cancelled: ${reason}`, agentsStarted };
  }
  /** Remove the exact abort callback installed on the caller's start signal. */
  detachInputSignal() {
    const signal = this.inputSignal;
    const onAbort = this.inputSignalAbort;
    if (signal === void 0 || onAbort === void 0) return;
    this.inputSignal = void 0;
    this.inputSignalAbort = void 0;
    signal.removeEventListener("abort", onAbort);
  }
  /** First settle wins; disarms the grace timer and releases the caller signal. */
  settleResult(result) {
    if (this.settled) return;
    this.terminalClaimed = true;
    this.settled = true;
    this.detachInputSignal();
    clearTimeout(this.graceTimer);
    this.settleResolve(result);
  }
};
function sleep(ms) {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    timer.unref();
  });
}

// src/meta.ts
import { WorkflowError } from "@deepseek-ai/dsh-workflow";
function validateMetaShape(meta) {
  const violations = [];
  if (typeof meta !== "object" || meta === null || Array.isArray(meta)) {
    return { violations: ["meta must be an object"] };
  }
  const record = meta;
  const known = /* @__PURE__ */ new Set(["name", "description", "whenToUse", "phases"]);
  for (const key of Object.keys(record)) {
    if (!known.has(key)) violations.push(`meta.${key} is not a recognized field (name/description/whenToUse/phases)`);
  }
  if (typeof record.name !== "string" || record.name.length === 0) violations.push("meta.name must be a non-empty string");
  if (typeof record.description !== "string" || record.description.length === 0) violations.push("meta.description must be a non-empty string");
  if (record.whenToUse !== void 0 && typeof record.whenToUse !== "string") violations.push("meta.whenToUse must be a string");
  const phases = [];
  if (record.phases !== void 0) {
    if (!Array.isArray(record.phases)) {
      violations.push("meta.phases must be an array");
    } else {
      record.phases.forEach((phase, index) => {
        if (typeof phase !== "object" || phase === null || Array.isArray(phase)) {
          violations.push(`meta.phases[${index}] must be an object`);
          return;
        }
        const entry = phase;
        for (const key of Object.keys(entry)) {
          if (!["title", "detail", "provider", "model"].includes(key)) violations.push(`meta.phases[${index}].${key} is not a recognized field`);
        }
        if (typeof entry.title !== "string" || entry.title.length === 0) violations.push(`meta.phases[${index}].title must be a non-empty string`);
        if (entry.detail !== void 0 && typeof entry.detail !== "string") violations.push(`meta.phases[${index}].detail must be a string`);
        if (entry.provider !== void 0 && typeof entry.provider !== "string") violations.push(`meta.phases[${index}].provider must be a string`);
        if (entry.model !== void 0 && typeof entry.model !== "string") violations.push(`meta.phases[${index}].model must be a string`);
        if (violations.length === 0) {
          phases.push({
            title: entry.title,
            ...entry.detail !== void 0 ? { detail: entry.detail } : {},
            ...entry.provider !== void 0 ? { provider: entry.provider } : {},
            ...entry.model !== void 0 ? { model: entry.model } : {}
          });
        }
      });
    }
  }
  if (violations.length > 0) return { violations };
  return {
    violations,
    meta: {
      name: record.name,
      description: record.description,
      ...record.whenToUse !== void 0 ? { whenToUse: record.whenToUse } : {},
      ...record.phases !== void 0 ? { phases } : {}
    }
  };
}
function validateMeta(value) {
  const { meta, violations } = validateMetaShape(value);
  if (meta === void 0) {
    throw new WorkflowError(`invalid meta: ${violations.join("; ")}`, "META_INVALID");
  }
  return meta;
}

// src/index.ts
var META_STATEMENT = /^\s*export\s+const\s+meta\b/;
function assertBodyParses(body, name) {
  if (META_STATEMENT.test(body)) {
    throw new WorkflowError2("workflow meta rides the `meta` request field, not the script: remove the `export const meta = {...}` statement from the body", "SCRIPT_PARSE");
  }
  try {
    void new vm.Script(`(async () => {
${body}
})()`, { filename: `workflow:${name}`, lineOffset: -1 });
  } catch (error) {
    throw new WorkflowError2(`workflow script does not parse: ${String(error)}`, "SCRIPT_PARSE", { cause: error });
  }
}
function resolveSubagentProvider(ctx, configured, override) {
  const provider = override ?? configured;
  if (provider.length === 0 || provider !== provider.trim()) {
    throw new WorkflowError2(
      "workflow subagentProvider must be a non-empty normalized string",
      "INVALID_ARGUMENT"
    );
  }
  if (ctx.subagents.getProvider(provider) === void 0) {
    throw new WorkflowError2(`no subagent provider registered for "${provider}"`, "AGENT_START");
  }
  return provider;
}
function resolveMaxTotalAgents(requested, ceiling) {
  if (requested === void 0) return ceiling;
  if (!Number.isSafeInteger(requested) || requested < 1) {
    throw new WorkflowError2("workflow maxTotalAgents must be a positive safe integer", "INVALID_ARGUMENT");
  }
  if (requested > ceiling) {
    throw new WorkflowError2(
      `workflow maxTotalAgents ${requested} exceeds the engine ceiling ${ceiling}`,
      "INVALID_ARGUMENT"
    );
  }
  return requested;
}
var WorkerThreadWorkflowEngine = class extends WorkflowEngine {
  static inject = ["subagents"];
  static Config = z.object({
    provider: z.string().default("spawn"),
    maxConcurrentAgents: z.natural().default(0),
    maxTotalAgents: z.natural().min(1).default(1e3),
    maxItemsPerCall: z.natural().min(1).default(4096),
    syncTimeoutMs: z.natural().min(1).default(5e3),
    disposeGraceMs: z.natural().default(5e3)
  });
  config;
  constructor(ctx, config) {
    super(ctx);
    this.config = config;
  }
  /**
   * Validate and execute a workflow script in a fresh worker thread. Throws
   * {@link WorkflowError} synchronously (`META_INVALID` for a malformed meta
   * block, `SCRIPT_PARSE` for a body that does not compile) for a request
   * that cannot begin; once a run is returned, every failure resolves through
   * `result.stopReason` instead.
   * @param request - the script body, its meta data and `args`, the parent
   *   agent, and an optional cancel signal.
   * @returns the live run (its `result` resolves when the script settles).
   */
  start(request) {
    const meta = validateMeta(request.meta);
    assertBodyParses(request.script, meta.name);
    const subagentProvider = resolveSubagentProvider(this.ctx, this.config.provider, request.subagentProvider);
    const maxTotalAgents = resolveMaxTotalAgents(request.maxTotalAgents, this.config.maxTotalAgents);
    const id = WorkflowRunId(randomUUID());
    const info = { id, meta };
    const limits = {
      maxConcurrentAgents: this.config.maxConcurrentAgents === 0 ? Math.min(16, Math.max(1, availableParallelism() - 2)) : this.config.maxConcurrentAgents,
      maxTotalAgents,
      maxItemsPerCall: this.config.maxItemsPerCall,
      syncTimeoutMs: this.config.syncTimeoutMs
    };
    const init = {
      meta,
      body: request.script,
      ...request.args !== void 0 ? { args: request.args } : {},
      limits
    };
    const runCtx = this.ctx;
    const subagents = runCtx.subagents;
    const workerRun = new WorkerRun(
      runCtx,
      subagents,
      id,
      meta,
      request.parent,
      init,
      subagentProvider,
      this.config.disposeGraceMs,
      {
        phase: (title) => {
          this.emitWorkflowEvent("workflow/phase", info, title);
        },
        log: (message) => {
          this.emitWorkflowEvent("workflow/log", info, message);
        },
        agentStart: (agent) => {
          this.emitWorkflowEvent("workflow/agent-start", info, agent);
        },
        agentEnd: (agent) => {
          this.emitWorkflowEvent("workflow/agent-end", info, agent);
        }
      },
      request.signal
    );
    this.emitWorkflowEvent("workflow/start", info);
    void workerRun.result.then((settled) => {
      this.emitWorkflowEvent("workflow/end", info, {
        stopReason: settled.stopReason,
        ...settled.error !== void 0 ? { error: settled.error } : {},
        agentsStarted: settled.agentsStarted
      });
    });
    return workerRun;
  }
};
var index_default = WorkerThreadWorkflowEngine;
export {
  MaterializeError,
  index_default as default,
  materializeFromRealm,
  validateMeta
};
