// @deepseek-ai/dsh-client-ui-deliverables@0.1.0-rc.8, built by testdata/dsh-census/census.mjs from toninfo/deepseek-harness@611615650f1b:packages/client/ui-deliverables (MIT, see LICENSE).

// src/index.ts
var inject = ["systemPrompt"];
var FILE_REFERENCE_PROMPT = "When you successfully create or modify files, mention the primary outputs in your final response. To make those and any other changed-file references clickable in Web, format them as Markdown inline code using the exact file-tool path, or a basename when unique among the files changed in that turn.";
function apply(ctx) {
  ctx.systemPrompt.section({
    name: "ui:deliverable-file-references",
    order: 190,
    text: FILE_REFERENCE_PROMPT
  });
}
export {
  apply,
  inject
};
