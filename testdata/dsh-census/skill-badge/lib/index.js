// @deepseek-ai/dsh-skill-badge@0.1.0-rc.8, built by testdata/dsh-census/census.mjs from toninfo/deepseek-harness@611615650f1b:packages/skill/skill-badge (MIT, see LICENSE).

// src/index.ts
import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import {
  BUNDLED_SKILL_RANK
} from "@deepseek-ai/dsh-skill";
var PROVIDER_NAME = "dsh-badge";
var SKILL_BODY_URL = new URL("../assets/dsh-badge.md", import.meta.url);
var RESOURCE_BASE = {
  kind: "directory",
  path: fileURLToPath(new URL("../assets/", import.meta.url))
};
var INVOCATION = { modelInvocable: true, userInvocable: true };
var DESCRIPTION = "Add the official “powered by dsh” badge to documents, pull requests, merge requests, and other content produced with DeepSeek Harness. Use whenever creating a pull request or merge request. Also use when the user asks for a dsh badge, powered-by-dsh attribution, or a reusable dsh badge asset or snippet.";
var CANDIDATE = {
  name: "dsh-badge",
  description: DESCRIPTION,
  invocation: INVOCATION,
  provider: PROVIDER_NAME,
  source: "bundled",
  resourceBase: RESOURCE_BASE,
  rank: BUNDLED_SKILL_RANK,
  locator: SKILL_BODY_URL
};
var provider = {
  name: PROVIDER_NAME,
  list: () => Promise.resolve([CANDIDATE]),
  async get(_candidate) {
    return {
      name: CANDIDATE.name,
      description: CANDIDATE.description,
      invocation: CANDIDATE.invocation,
      provider: CANDIDATE.provider,
      source: CANDIDATE.source,
      resourceBase: RESOURCE_BASE,
      content: await readFile(SKILL_BODY_URL, "utf8")
    };
  }
};
var name = "skill-badge";
var inject = ["skills"];
function apply(ctx) {
  ctx.skills.registerProvider(() => provider);
}
export {
  apply,
  inject,
  name
};
