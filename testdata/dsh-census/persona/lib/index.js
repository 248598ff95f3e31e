// @deepseek-ai/dsh-persona@0.1.0-rc.8, built by testdata/dsh-census/census.mjs from toninfo/deepseek-harness@611615650f1b:packages/preset/persona (MIT, see LICENSE).

// src/index.ts
import z from "@deepseek-ai/schemastery";
import { PERSONA_ORDER, PERSONA_SECTION } from "@deepseek-ai/dsh-system-prompt";
var name = "persona";
var inject = ["systemPrompt"];
var Config = z.object({
  text: z.string().required(),
  complete: z.boolean().default(false),
  includeRuntimeContext: z.boolean().default(true)
});
function apply(ctx, config) {
  ctx.effect(() => ctx.systemPrompt.section({
    name: PERSONA_SECTION,
    order: PERSONA_ORDER,
    text: config.text,
    ...config.complete ? { complete: true } : {}
  }), "persona.section()");
  if (!(config.includeRuntimeContext ?? true)) ctx.systemPrompt.suppressRuntimeContext();
}
export {
  Config,
  PERSONA_ORDER,
  PERSONA_SECTION,
  apply,
  inject,
  name
};
