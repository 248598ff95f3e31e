// @deepseek-ai/dsh-subagent-spawn-in-process@0.1.0-rc.8, built by testdata/dsh-census/census.mjs from toninfo/deepseek-harness@611615650f1b:packages/subagent/subagent-spawn-in-process (MIT, see LICENSE).

// src/index.ts
import z from "@deepseek-ai/schemastery";
import { startInProcessRun } from "@deepseek-ai/dsh-subagent-in-process-driver";
var name = "subagent-spawn-in-process";
var inject = ["subagents"];
var Config = z.object({
  providerName: z.string().default("spawn")
});
var SpawnInProcessProvider = class {
  constructor(name2) {
    this.name = name2;
  }
  name;
  capabilities = { outputSchema: true, depthLimit: true, toolFilter: true, persona: true };
  // Context contract: a spawned child starts fresh — it never sees the parent conversation.
  inheritsParentContext = false;
  start(request) {
    return startInProcessRun(request, {});
  }
  prepareContinuable() {
    return Promise.resolve({});
  }
};
function apply(ctx, config) {
  ctx.subagents.registerProvider(new SpawnInProcessProvider(config.providerName));
}
export {
  Config,
  apply,
  inject,
  name
};
