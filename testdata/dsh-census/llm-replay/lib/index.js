// @deepseek-ai/dsh-llm-replay@0.1.0-rc.8, built by testdata/dsh-census/census.mjs from toninfo/deepseek-harness@611615650f1b:packages/test-support/llm-replay (MIT, see LICENSE).

// src/index.ts
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { delimiter as pathDelimiter } from "node:path";
import { decodeStorageRecord } from "@deepseek-ai/dsh-session";
import { LlmAdapter, LlmError, ReasoningEffortId, assertNever, resolveRetryPolicy } from "@deepseek-ai/dsh-llm";
function parseSessionLog(text) {
  const lines = text.split("\n").filter((line) => line.trim().length > 0);
  const events = [];
  for (let i = 1; i < lines.length; i++) {
    events.push(...decodeStorageRecord(JSON.parse(lines[i])));
  }
  return events;
}
function parseSessionHeader(text) {
  const firstLine = text.split("\n").find((line) => line.trim().length > 0) ?? "{}";
  const parsed = JSON.parse(firstLine);
  return {
    id: typeof parsed.id === "string" ? parsed.id : "",
    createdAt: typeof parsed.createdAt === "number" ? parsed.createdAt : 0,
    seedLength: typeof parsed.seedLength === "number" ? parsed.seedLength : 0
  };
}
function deriveReplayScript(events) {
  const script = [];
  let currentKey;
  let current = [];
  const close = (key, chunks) => {
    if (chunks.length === 0) return;
    if (chunks[chunks.length - 1]?.type !== "finish") {
      throw new Error(
        `llm-replay: model call ${key} ended without a finish chunk (a thrown stream); this scenario needs a replay.override.json sidecar`
      );
    }
    script.push({ kind: "chunks", chunks });
  };
  for (const event of events) {
    if (event.type === "compaction/summary") {
      close(currentKey, current);
      currentKey = void 0;
      current = [];
      const persisted = event.data;
      if (persisted.llmStreamCall === true) {
        if (persisted.rawOutput === void 0) {
          throw new Error("llm-replay: compaction/summary marks an LLM stream call without rawOutput");
        }
        const chunks = [];
        for (const [index, block] of persisted.rawOutput.entries()) {
          chunks.push({ type: "block-start", index, blockType: block.type });
          chunks.push({ type: "block-end", index, block });
        }
        if (persisted.usage !== void 0) chunks.push({ type: "usage", usage: persisted.usage });
        chunks.push({ type: "finish", reason: { kind: "stop" } });
        script.push({ kind: "chunks", chunks });
      }
      continue;
    }
    if (event.type !== "assistant/chunk") continue;
    const { turn, step, chunk } = event.data;
    const key = `${turn}/${step}`;
    if (current.length > 0 && key !== currentKey) {
      close(currentKey, current);
    }
    if (current.length === 0) currentKey = key;
    current.push(chunk);
    if (chunk.type === "finish") {
      close(currentKey, current);
      currentKey = void 0;
      current = [];
    }
  }
  close(currentKey, current);
  return script;
}
var REPLAY_CHUNK_TYPES = /* @__PURE__ */ new Set([
  "block-start",
  "text-delta",
  "reasoning-delta",
  "tool-call-delta",
  "block-end",
  "usage",
  "finish"
]);
var FROM_REQUEST_OPEN = "{{fromRequest:";
var FROM_REQUEST_CLOSE = "}}";
function collectStrings(value, out) {
  if (typeof value === "string") {
    out.push(value);
    return;
  }
  if (Array.isArray(value)) {
    for (const item of value) collectStrings(item, out);
    return;
  }
  if (value !== null && typeof value === "object") {
    for (const item of Object.values(value)) collectStrings(item, out);
  }
}
function resolveFromRequest(pattern, corpus) {
  let regex;
  try {
    regex = new RegExp(pattern, "g");
  } catch (error) {
    throw new Error(`llm-replay: fromRequest has an invalid pattern ${JSON.stringify(pattern)}: ${String(error)}`);
  }
  let last;
  for (const match of corpus.matchAll(regex)) last = match;
  if (last === void 0) {
    throw new Error(`llm-replay: fromRequest pattern ${JSON.stringify(pattern)} matched nothing in the request`);
  }
  return last[1] ?? last[0];
}
function substituteString(text, corpus) {
  let result = "";
  let cursor = 0;
  while (true) {
    const open = text.indexOf(FROM_REQUEST_OPEN, cursor);
    if (open === -1) return result + text.slice(cursor);
    let close = text.indexOf(FROM_REQUEST_CLOSE, open + FROM_REQUEST_OPEN.length);
    if (close === -1) {
      throw new Error(`llm-replay: fromRequest placeholder is unterminated in ${JSON.stringify(text)}`);
    }
    while (text[close + FROM_REQUEST_CLOSE.length] === "}") close += 1;
    const pattern = text.slice(open + FROM_REQUEST_OPEN.length, close);
    result += text.slice(cursor, open) + resolveFromRequest(pattern, corpus);
    cursor = close + FROM_REQUEST_CLOSE.length;
  }
}
function substituteValue(value, corpus) {
  if (typeof value === "string") {
    return value.includes(FROM_REQUEST_OPEN) ? substituteString(value, corpus) : value;
  }
  if (Array.isArray(value)) return value.map((item) => substituteValue(item, corpus));
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, substituteValue(item, corpus)]));
  }
  return value;
}
function resolveScriptedEntry(entry, messages) {
  if (!JSON.stringify(entry).includes(FROM_REQUEST_OPEN)) return entry;
  const leaves = [];
  collectStrings(messages, leaves);
  return substituteValue(entry, leaves.join("\n"));
}
function isRecord(value) {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
function hasExactKeys(value, keys) {
  return Object.keys(value).length === keys.length && keys.every((key) => Object.hasOwn(value, key));
}
function invalidOverride(file, location, detail) {
  throw new Error(`llm-replay: invalid override ${file}: ${location} ${detail}`);
}
function readChunks(value, file, location) {
  if (!Array.isArray(value)) invalidOverride(file, location, "chunks must be an array");
  for (const [index, chunk] of value.entries()) {
    if (!isRecord(chunk) || typeof chunk["type"] !== "string" || !REPLAY_CHUNK_TYPES.has(chunk["type"])) {
      invalidOverride(file, `${location}.chunks[${index}]`, "must have a known StreamChunk type");
    }
  }
  return value;
}
function readReplayEntry(value, file, location) {
  if (!isRecord(value)) invalidOverride(file, location, "must be an object");
  switch (value["kind"]) {
    case "chunks": {
      if (!hasExactKeys(value, ["kind", "chunks"])) invalidOverride(file, location, "has invalid chunks-entry fields");
      return { kind: "chunks", chunks: readChunks(value["chunks"], file, location) };
    }
    case "throw": {
      if (!hasExactKeys(value, ["kind", "chunks", "message", "code"])) {
        invalidOverride(file, location, "has invalid throw-entry fields");
      }
      if (typeof value["message"] !== "string" || value["message"].length === 0) {
        invalidOverride(file, location, "message must be a non-empty string");
      }
      if (typeof value["code"] !== "string" || value["code"].length === 0) {
        invalidOverride(file, location, "code must be a non-empty string");
      }
      return {
        kind: "throw",
        chunks: readChunks(value["chunks"], file, location),
        message: value["message"],
        code: value["code"]
      };
    }
    case "hang": {
      const readyFile = value["readyFile"];
      const keys = readyFile === void 0 ? ["kind"] : ["kind", "readyFile"];
      if (!hasExactKeys(value, keys)) invalidOverride(file, location, "has invalid hang-entry fields");
      if (readyFile !== void 0 && (typeof readyFile !== "string" || readyFile.length === 0)) {
        invalidOverride(file, location, "readyFile must be a non-empty string");
      }
      return { kind: "hang", ...readyFile === void 0 ? {} : { readyFile } };
    }
    default:
      return invalidOverride(file, location, `has unknown kind ${JSON.stringify(value["kind"])}`);
  }
}
function readOverrideDoc(value, file) {
  if (Array.isArray(value)) return value.map((entry, index) => readReplayEntry(entry, file, `entry ${index}`));
  if (!isRecord(value) || !hasExactKeys(value, ["patches"]) || !Array.isArray(value["patches"])) {
    return invalidOverride(file, "document", "must be a ReplayEntry[] or { patches: [...] }");
  }
  return {
    patches: value["patches"].map((value2, index) => {
      const location = `patch ${index}`;
      if (!isRecord(value2) || !hasExactKeys(value2, ["at", "entry"])) {
        return invalidOverride(file, location, "must contain exactly at and entry");
      }
      const at = value2["at"];
      if (typeof at !== "number" || !Number.isSafeInteger(at) || at < 0) {
        return invalidOverride(file, location, "at must be a non-negative safe integer");
      }
      return { at, entry: readReplayEntry(value2["entry"], file, `${location}.entry`) };
    })
  };
}
function loadReplayScript(config) {
  if (config.overrideFile !== void 0 && existsSync(config.overrideFile)) {
    const doc = readOverrideDoc(JSON.parse(readFileSync(config.overrideFile, "utf8")), config.overrideFile);
    if (Array.isArray(doc)) return doc;
    const script = deriveScriptFromFile(config.file);
    const derivedLength = script.length;
    const seenIndexes = /* @__PURE__ */ new Set();
    for (const patch of doc.patches) {
      if (patch.at > derivedLength) {
        throw new Error(
          `llm-replay: override patch index ${String(patch.at)} out of range (derived script has ${derivedLength} call(s); == length appends): ${config.overrideFile}`
        );
      }
      if (seenIndexes.has(patch.at)) {
        throw new Error(`llm-replay: duplicate override patch index ${patch.at}: ${config.overrideFile}`);
      }
      seenIndexes.add(patch.at);
      script[patch.at] = patch.entry;
    }
    return script;
  }
  return deriveScriptFromFile(config.file);
}
function deriveScriptFromFile(file) {
  if (!existsSync(file)) {
    throw new Error(`llm-replay: fixture not found: ${file} — run \`pnpm run test:snapshot:record\` first`);
  }
  return deriveReplayScript(parseSessionLog(readFileSync(file, "utf8")));
}
function loadSessionScripts(config) {
  const primaryEntries = loadReplayScript(config);
  const primaryHeader = existsSync(config.file) ? parseSessionHeader(readFileSync(config.file, "utf8")) : { id: "", createdAt: 0 };
  const primary = {
    recordedId: primaryHeader.id,
    createdAt: primaryHeader.createdAt,
    entries: primaryEntries,
    primary: true
  };
  const children = [];
  for (const childFile of config.childFiles ?? []) {
    if (!existsSync(childFile)) {
      throw new Error(`llm-replay: child fixture not found: ${childFile} — re-record the scenario`);
    }
    const text = readFileSync(childFile, "utf8");
    const header = parseSessionHeader(text);
    const ownEvents = parseSessionLog(text).slice(header.seedLength);
    children.push({
      recordedId: header.id,
      createdAt: header.createdAt,
      entries: deriveReplayScript(ownEvents),
      primary: false
    });
  }
  children.sort((a, b) => a.createdAt - b.createdAt || a.recordedId.localeCompare(b.recordedId));
  return [primary, ...children];
}
var ReplayAdapter = class extends LlmAdapter {
  constructor(providers, replay) {
    super();
    this.replay = replay;
    this.providers = new Map(providers.map((provider) => [provider.id, provider]));
  }
  replay;
  providers;
  providerInfo(provider) {
    const configured = this.providers.get(provider);
    if (configured === void 0) return super.providerInfo(provider);
    return { id: provider, name: configured.name ?? provider };
  }
  providerRetryPolicy(provider) {
    const configured = this.providers.get(provider);
    if (configured === void 0) return super.providerRetryPolicy(provider);
    return configured.retryPolicy === void 0 ? void 0 : resolveRetryPolicy(configured.retryPolicy, `llm-replay: provider "${provider}" retryPolicy`);
  }
  listModels(provider) {
    const configured = this.providers.get(provider);
    if (configured === void 0) return Promise.resolve([]);
    return Promise.resolve((configured.models ?? []).map((model) => ({
      provider,
      id: model.id,
      name: model.name ?? model.id,
      ...model.description === void 0 ? {} : { description: model.description },
      ...model.inputModalities === void 0 ? {} : { inputModalities: [...model.inputModalities] }
    })));
  }
  resolveModel(provider, model) {
    const configured = this.providers.get(provider);
    if (configured === void 0) return Promise.resolve({ provider, id: model, name: model });
    const configuredModel = configured.models?.find((candidate) => candidate.id === model);
    return Promise.resolve({
      provider,
      id: model,
      name: configuredModel?.name ?? model,
      ...configuredModel?.description === void 0 ? {} : { description: configuredModel.description },
      ...configuredModel?.inputModalities === void 0 ? {} : { inputModalities: [...configuredModel.inputModalities] },
      ...configuredModel?.contextWindow === void 0 ? {} : { context: { contextWindow: configuredModel.contextWindow } },
      ...configuredModel?.defaultMaxTokens === void 0 ? {} : { defaultMaxTokens: configuredModel.defaultMaxTokens },
      ...configuredModel?.reasoningEfforts === void 0 ? {} : {
        reasoning: {
          efforts: configuredModel.reasoningEfforts.map((id) => ({ id: ReasoningEffortId(id), name: id })),
          ...configuredModel.defaultReasoningEffort === void 0 ? {} : { defaultEffort: ReasoningEffortId(configuredModel.defaultReasoningEffort) }
        }
      }
    });
  }
  stream(options) {
    return this.replay(options);
  }
};
function paceDelay(paceMs, signal) {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, paceMs);
    const onAbort = () => {
      clearTimeout(timer);
      reject(new Error("aborted"));
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
async function* replayEntry(entry, signal, paceMs) {
  switch (entry.kind) {
    case "chunks":
      for (const chunk of entry.chunks) {
        if (signal?.aborted) throw new Error("aborted");
        if (paceMs > 0) await paceDelay(paceMs, signal);
        yield chunk;
      }
      return;
    case "throw":
      for (const chunk of entry.chunks) {
        if (signal?.aborted) throw new Error("aborted");
        if (paceMs > 0) await paceDelay(paceMs, signal);
        yield chunk;
      }
      throw new LlmError(entry.message, entry.code);
    case "hang":
      yield { type: "block-start", index: 0, blockType: "text" };
      yield { type: "text-delta", index: 0, text: "partial" };
      if (entry.readyFile !== void 0) writeFileSync(entry.readyFile, "");
      await new Promise((_resolve, reject) => {
        if (signal?.aborted) {
          reject(new Error("aborted"));
          return;
        }
        signal?.addEventListener("abort", () => {
          reject(new Error("aborted"));
        }, { once: true });
      });
      return;
    /* v8 ignore next -- sidecar entries are validated before they reach the closed local union. */
    default:
      return assertNever(entry, "llm-replay replay entry");
  }
}
function installLlmReplay(ctx, config) {
  const paceMs = config.paceMs ?? 0;
  if (!Number.isInteger(paceMs) || paceMs < 0) {
    throw new Error(`llm-replay: paceMs must be a non-negative integer, got ${String(config.paceMs)}`);
  }
  const scripts = loadSessionScripts(config);
  const bound = /* @__PURE__ */ new Map();
  let nextScript = 0;
  const ANON = "\0anon\0";
  const replay = (options) => {
    const key = options.sessionId ?? ANON;
    let state = bound.get(key);
    let unrecorded = false;
    if (state === void 0) {
      const script = scripts[nextScript];
      if (script === void 0) {
        unrecorded = true;
        state = { entries: [], cursor: 0 };
      } else {
        nextScript++;
        state = { entries: script.entries, cursor: 0 };
        bound.set(key, state);
      }
    }
    const boundState = state;
    const seenSessions = nextScript;
    const totalScripts = scripts.length;
    const index = boundState.cursor++;
    const entry = boundState.entries[index];
    return (async function* () {
      if (unrecorded) {
        throw new Error(
          `llm-replay: a model call arrived from an unrecorded session (#${seenSessions + 1}); the scenario recorded only ${totalScripts} session(s) — re-record it`
        );
      }
      if (entry === void 0) {
        throw new Error(
          `llm-replay: script exhausted — session requested model call #${index + 1} but its script has only ${boundState.entries.length}; re-record the scenario`
        );
      }
      yield* replayEntry(resolveScriptedEntry(entry, options.messages), options.signal, paceMs);
    })();
  };
  const providers = config.providers ?? [];
  const dispose = providers.length > 0 ? ctx.llm.registerAdapter(providers.map((provider) => provider.id), new ReplayAdapter(providers, replay)) : ctx.on("llm/stream", (options, _next) => replay(options));
  return {
    dispose,
    assertConsumed() {
      const problems = [];
      if (nextScript < scripts.length) {
        problems.push(`${scripts.length - nextScript} recorded script(s) never bound to a live session`);
      }
      for (const [key, state] of bound) {
        if (state.cursor < state.entries.length) {
          const who = key === ANON ? "the anonymous session" : `session ${key}`;
          problems.push(`${who} consumed ${state.cursor}/${state.entries.length} recorded call(s)`);
        }
      }
      if (problems.length > 0) {
        throw new Error(`llm-replay: fixture not fully consumed — ${problems.join("; ")}; the scenario drove fewer model calls than recorded`);
      }
    }
  };
}
var name = "llm-replay";
var inject = ["llm"];
function validateConfiguredModalities(providers) {
  for (const provider of providers ?? []) {
    for (const model of provider.models ?? []) {
      const modalities = model.inputModalities;
      if (modalities === void 0) continue;
      if (!Array.isArray(modalities) || !modalities.every((modality) => modality === "text" || modality === "image")) {
        throw new Error(
          `llm-replay: provider "${provider.id}" model "${model.id}" inputModalities must be an array containing only "text" and "image"`
        );
      }
    }
  }
}
function apply(ctx, config = {}) {
  const file = config.file ?? process.env.DSH_SNAPSHOT_FILE;
  if (file === void 0 || file.length === 0) {
    throw new Error("llm-replay: a fixture path is required (Config.file or $DSH_SNAPSHOT_FILE)");
  }
  validateConfiguredModalities(config.providers);
  const overrideFile = config.overrideFile ?? process.env.DSH_SNAPSHOT_OVERRIDE;
  const childEnv = process.env.DSH_SNAPSHOT_CHILD_FILES;
  const childFiles = config.childFiles ?? (childEnv !== void 0 && childEnv.length > 0 ? childEnv.split(pathDelimiter) : []);
  installLlmReplay(ctx, {
    file,
    ...overrideFile !== void 0 && overrideFile.length > 0 ? { overrideFile } : {},
    ...childFiles.length > 0 ? { childFiles } : {},
    ...config.providers !== void 0 ? { providers: config.providers } : {},
    ...config.paceMs !== void 0 ? { paceMs: config.paceMs } : {}
  });
}
export {
  apply,
  deriveReplayScript,
  inject,
  installLlmReplay,
  loadReplayScript,
  loadSessionScripts,
  name,
  parseSessionHeader,
  parseSessionLog,
  resolveScriptedEntry
};
