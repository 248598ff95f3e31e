// @deepseek-ai/dsh-subagent-fork-in-process@0.1.0-rc.8, built by testdata/dsh-census/census.mjs from toninfo/deepseek-harness@611615650f1b:packages/subagent/subagent-fork-in-process (MIT, see LICENSE).

// src/index.ts
import z from "@deepseek-ai/schemastery";
import { startInProcessRun } from "@deepseek-ai/dsh-subagent-in-process-driver";
var name = "subagent-fork-in-process";
var inject = ["subagents"];
var Config = z.object({
  providerName: z.string().default("fork")
});
function completedTurnPrefix(parent) {
  const events = parent.session.events;
  const lastEnd = events.findLast((e) => e.type === "turn/end");
  if (lastEnd === void 0) return [];
  return events.slice(0, lastEnd.seq + 1);
}
var ForkInProcessProvider = class {
  constructor(name2) {
    this.name = name2;
  }
  name;
  capabilities = { outputSchema: true, depthLimit: true, toolFilter: true, persona: true };
  // Context contract: a forked child IS seeded with the parent's completed-turn prefix.
  inheritsParentContext = true;
  start(request) {
    const seed = completedTurnPrefix(request.parent);
    return startInProcessRun(request, {
      // Only pass a seed when there's a completed turn to inherit; an empty seed
      // is equivalent to a fresh child, so omit it to keep the session unseeded.
      ...seed.length > 0 ? { seed } : {}
    });
  }
  // TODO(fork-continuable-prefix-reuse): no shipped composition calls this —
  // they bind fork to `backgroundMode: one-shot` because a continuable child's
  // `report` tool and prompt section precede the inherited history, defeating
  // the prefix reuse a fork exists for. Reopening needs a byte-identical child
  // system prompt and tool schemas; see issue #2124 and
  // .agents/notes/implemented/architecture/2026-08-10-fork-children-stay-one-shot.md.
  prepareContinuable(request) {
    const seed = completedTurnPrefix(request.parent);
    return Promise.resolve(seed.length > 0 ? { seed } : {});
  }
};
function apply(ctx, config) {
  ctx.subagents.registerProvider(new ForkInProcessProvider(config.providerName));
}
export {
  Config,
  apply,
  inject,
  name
};
