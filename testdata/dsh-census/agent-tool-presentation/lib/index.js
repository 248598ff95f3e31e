// @deepseek-ai/dsh-agent-tool-presentation@0.1.0-rc.8, built by testdata/dsh-census/census.mjs from toninfo/deepseek-harness@611615650f1b:packages/core/agent-tool-presentation (MIT, see LICENSE).

// src/index.ts
import z from "@deepseek-ai/schemastery";
var name = "tool-presentation";
var inject = ["tools"];
var Config = z.object({
  mode: z.union(["native", "code", "both"]).required()
});
function apply(ctx, config) {
  if (config.mode === "native") {
    ctx.tools.presentAs("native");
    return;
  }
  ctx.inject(["codeRuntime"], (runtimeCtx) => {
    runtimeCtx.tools.presentAs(config.mode);
  });
}
export {
  Config,
  apply,
  inject,
  name
};
