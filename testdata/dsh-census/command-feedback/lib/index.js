// @deepseek-ai/dsh-command-feedback@0.1.0-rc.8, built by testdata/dsh-census/census.mjs from toninfo/deepseek-harness@611615650f1b:packages/feedback/command-feedback (MIT, see LICENSE).

// src/index.ts
import { getOrCreateAnonymousUserId } from "@deepseek-ai/dsh-anonymous-user-id";
var name = "command-feedback";
var inject = ["commands"];
var USAGE = "Usage: /feedback <text>";
function assertNever(value) {
  throw new Error(`command-feedback: unsupported sharing status ${JSON.stringify(value)}`);
}
function sharingSentence(sharing) {
  switch (sharing) {
    case "full":
      return "Session sharing is enabled.";
    case "feedback-only":
      return "Session sharing is feedback-gated; recording feedback releases the session prefix for sharing.";
    case "disabled":
      return "Session sharing is disabled.";
    /* v8 ignore next 2 -- the seam's closed union cannot reach the default; a future status must be given a sentence here. */
    default:
      return assertNever(sharing);
  }
}
function sharingDisclosure(telemetry) {
  if (telemetry === void 0) {
    return "Session sharing is not configured.";
  }
  return sharingSentence(telemetry.sharing);
}
function recordFeedback(session, text) {
  const normalized = text.trim();
  if (normalized.length === 0) throw new TypeError("feedback text must not be empty");
  session.append("feedback/record", { text: normalized });
}
function executeFeedbackCommand(invocation, ctx) {
  if (invocation.rawInput.trim().length === 0) {
    return { kind: "error", text: `Feedback text is required. ${USAGE}` };
  }
  recordFeedback(invocation.agent.session, invocation.rawInput);
  const telemetry = ctx.get("sessionTelemetry");
  return {
    kind: "success",
    text: `Feedback recorded for session ${invocation.agent.session.id}
Anonymous user: ${getOrCreateAnonymousUserId()}. ${sharingDisclosure(telemetry)}`
  };
}
function apply(ctx) {
  ctx.commands.register({
    name: "feedback",
    description: "record feedback about this session",
    input: { hint: "<text>" },
    recordInput: false,
    handler: (invocation) => executeFeedbackCommand(invocation, ctx)
  });
}
export {
  apply,
  inject,
  name,
  recordFeedback
};
