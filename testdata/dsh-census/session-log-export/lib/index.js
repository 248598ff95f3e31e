// @deepseek-ai/dsh-session-log-export@0.1.0-rc.8, built by testdata/dsh-census/census.mjs from toninfo/deepseek-harness@611615650f1b:packages/session-query/session-log-export (MIT, see LICENSE).

// src/index.ts
var name = "session-log-download";
var inject = ["commands"];
var REQUESTED = {
  kind: "success",
  text: "Session log download requested."
};
function apply(ctx) {
  ctx.effect(() => ctx.commands.register({
    name: "export",
    description: "Download this Session log as a ZIP archive",
    handler: (invocation) => Promise.resolve(invocation.rawInput.trim() === "" ? REQUESTED : { kind: "error", text: "The Web /export command does not accept a path." })
  }), "session-log-download: command");
}
export {
  apply,
  inject,
  name
};
