// @deepseek-ai/dsh-tool-call-timeout-policy@0.1.0-rc.8, built by testdata/dsh-census/census.mjs from toninfo/deepseek-harness@611615650f1b:packages/guard/timeout-policy (MIT, see LICENSE).
var __knownSymbol = (name2, symbol) => (symbol = Symbol[name2]) ? symbol : /* @__PURE__ */ Symbol.for("Symbol." + name2);
var __typeError = (msg) => {
  throw TypeError(msg);
};
var __using = (stack, value, async) => {
  if (value != null) {
    if (typeof value !== "object" && typeof value !== "function") __typeError("Object expected");
    var dispose, inner;
    if (async) dispose = value[__knownSymbol("asyncDispose")];
    if (dispose === void 0) {
      dispose = value[__knownSymbol("dispose")];
      if (async) inner = dispose;
    }
    if (typeof dispose !== "function") __typeError("Object not disposable");
    if (inner) dispose = function() {
      try {
        inner.call(this);
      } catch (e) {
        return Promise.reject(e);
      }
    };
    stack.push([async, dispose, value]);
  } else if (async) {
    stack.push([async]);
  }
  return value;
};
var __callDispose = (stack, error, hasError) => {
  var E = typeof SuppressedError === "function" ? SuppressedError : function(e, s, m, _) {
    return _ = Error(m), _.name = "SuppressedError", _.error = e, _.suppressed = s, _;
  };
  var fail = (e) => error = hasError ? new E(e, error, "An error was suppressed during disposal") : (hasError = true, e);
  var next = (it) => {
    while (it = stack.pop()) {
      try {
        var result = it[1] && it[1].call(it[2]);
        if (it[0]) return Promise.resolve(result).then(next, (e) => (fail(e), next()));
      } catch (e) {
        fail(e);
      }
    }
    if (hasError) throw error;
  };
  return next();
};

// src/index.ts
import { deadline, timeoutOf } from "@deepseek-ai/dsh-timeout";
var TOOL_TIMEOUT = "TOOL_TIMEOUT";
var name = "timeout-policy";
var inject = ["tools"];
function toolTimeoutResult(timeoutMs) {
  const message = `tool call timed out after ${timeoutMs}ms`;
  return {
    content: [{ type: "text", text: `Error: ${message}` }],
    isError: true,
    error: { message, info: { name: "ToolTimeoutError", code: TOOL_TIMEOUT } }
  };
}
function apply(ctx) {
  ctx.on("tools/execute", async (exec, next) => {
    var _stack = [];
    try {
      const timeoutMs = ctx.tools.get(exec.name, exec.agent)?.timeoutMs;
      if (timeoutMs === void 0) return next();
      const d = __using(_stack, deadline(exec.signal, timeoutMs, TOOL_TIMEOUT));
      const upstream = exec.signal;
      exec.signal = d.signal;
      try {
        const result = await next();
        if (timeoutOf(d.signal, TOOL_TIMEOUT) !== void 0) {
          return toolTimeoutResult(timeoutMs);
        }
        return result;
      } finally {
        exec.signal = upstream;
      }
    } catch (_) {
      var _error = _, _hasError = true;
    } finally {
      __callDispose(_stack, _error, _hasError);
    }
  });
}
export {
  TOOL_TIMEOUT,
  apply,
  inject,
  name
};
