// @deepseek-ai/dsh-llm-retry@0.1.0-rc.8, built by testdata/dsh-census/census.mjs from toninfo/deepseek-harness@611615650f1b:packages/llm/llm-retry (MIT, see LICENSE).

// src/index.ts
import { randomUUID } from "node:crypto";
import z from "@deepseek-ai/schemastery";

// src/brand.ts
function RetryId(id) {
  return id;
}

// src/index.ts
var name = "llm-retry";
var inject = ["agents"];
var Config = z.object({});
function validateConfig(config) {
  const [key] = Object.keys(config);
  if (key === void 0) return;
  if (key === "retryPolicy") {
    throw new Error("llm-retry: retryPolicy belongs under each provider configuration");
  }
  throw new Error(`llm-retry: unknown key "${key}"`);
}
async function settleDownstream(next) {
  try {
    return { type: "decision", decision: await next() };
  } catch (error) {
    return { type: "error", error };
  }
}
function localDelay(config, retry, random) {
  const exponent = Math.min(retry - 1, 1024);
  const exponential = Math.min(config.initialDelayMs * 2 ** exponent, config.maxDelayMs);
  const jitter = 1 - config.jitterRatio + 2 * config.jitterRatio * random();
  return Math.min(exponential * jitter, config.maxDelayMs);
}
function retryPolicyKey(policy) {
  return policy.mode === "always" ? JSON.stringify([policy.mode, policy.initialDelayMs, policy.maxDelayMs, policy.jitterRatio]) : JSON.stringify([
    policy.mode,
    policy.maxRetries,
    [...policy.retryableCodes].sort(),
    policy.initialDelayMs,
    policy.maxDelayMs,
    policy.jitterRatio
  ]);
}
function cancellableDelay(delayMs, signal) {
  if (signal.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve(true);
    }, delayMs);
    function onAbort() {
      clearTimeout(timer);
      resolve(false);
    }
    signal.addEventListener("abort", onAbort, { once: true });
  });
}
function apply(ctx, config = {}, internals = {}) {
  validateConfig(config);
  const random = internals.random ?? Math.random;
  const lifetime = new AbortController();
  const active = /* @__PURE__ */ new Set();
  function track(operation) {
    const tracked = operation.finally(() => active.delete(tracked));
    active.add(tracked);
    return tracked;
  }
  async function backoff(agent, turn, step, failure, provider, policy, policyKey, retry, retryId, delayMs, signal) {
    const fusedSignal = AbortSignal.any([signal, lifetime.signal]);
    if (fusedSignal.aborted) return;
    const eventData = policy.mode === "normal" ? {
      retryId,
      turn,
      step,
      provider,
      mode: policy.mode,
      policyKey,
      retry,
      maxRetries: policy.maxRetries,
      delayMs,
      failure
    } : {
      retryId,
      turn,
      step,
      provider,
      mode: policy.mode,
      policyKey,
      retry,
      delayMs,
      failure
    };
    agent.session.append("llm/retry", eventData);
    if (!await cancellableDelay(delayMs, fusedSignal)) return;
    agent.session.append("llm/retry-started", { retryId, turn, step, retry });
    return { kind: "retry" };
  }
  async function recover({ agent, turn, step, provider, failure, retryPolicy: policy, signal }, next) {
    if (policy === void 0) return next();
    if (policy.mode === "always") {
      if (signal.aborted || lifetime.signal.aborted) return;
      const fusedSignal = AbortSignal.any([signal, lifetime.signal]);
      const downstream = await settleDownstream(next);
      if (fusedSignal.aborted) return;
      if (downstream.type === "error") {
        ctx.logger.warn(
          `llm-retry: provider "${provider}" always policy ignored a downstream recovery failure: %o`,
          downstream.error
        );
      }
      if (downstream.type === "decision" && downstream.decision?.kind === "retry") {
        return downstream.decision;
      }
    } else if (!policy.retryableCodes.includes(failure.code)) {
      return next();
    }
    const policyKey = retryPolicyKey(policy);
    const priorPolicyRetry = agent.session.events.findLast(
      (event) => event.type === "llm/retry" && event.data.turn === turn && event.data.step === step && event.data.provider === provider && event.data.policyKey === policyKey
    );
    const previousRetry = priorPolicyRetry?.data.retry ?? 0;
    if (policy.mode === "normal" && previousRetry >= policy.maxRetries) return next();
    const retry = previousRetry + 1;
    const retryId = priorPolicyRetry?.data.retryId ?? RetryId(randomUUID());
    let delayMs;
    if (failure.providerRetryAfterMs !== void 0 && Number.isFinite(failure.providerRetryAfterMs) && failure.providerRetryAfterMs > 0) {
      if (failure.providerRetryAfterMs > policy.maxDelayMs) {
        if (policy.mode === "normal") return next();
        delayMs = localDelay(policy, retry, random);
      } else {
        delayMs = failure.providerRetryAfterMs;
      }
    } else {
      delayMs = localDelay(policy, retry, random);
    }
    return backoff(agent, turn, step, failure, provider, policy, policyKey, retry, retryId, delayMs, signal);
  }
  const disposeListener = ctx.on("agent/request-error", (payload, next) => {
    if (lifetime.signal.aborted) return Promise.resolve(void 0);
    return track(recover(payload, next));
  });
  ctx.effect(() => async () => {
    disposeListener();
    lifetime.abort(new Error("llm-retry plugin disposed"));
    await Promise.allSettled([...active]);
  }, "llm-retry: abort and drain active recovery");
}
export {
  Config,
  RetryId,
  apply,
  inject,
  name
};
