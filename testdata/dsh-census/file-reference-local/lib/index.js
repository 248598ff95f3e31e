// @deepseek-ai/dsh-file-reference-local@0.1.0-rc.8, built by testdata/dsh-census/census.mjs from toninfo/deepseek-harness@611615650f1b:packages/context/file-reference-local (MIT, see LICENSE).

// src/index.ts
import z from "@deepseek-ai/schemastery";
import FileReferenceService, {
  FILE_REFERENCE_PROMPT
} from "@deepseek-ai/dsh-file-reference";

// src/search.ts
import { lstat, readdir } from "node:fs/promises";
import { isAbsolute, join, relative, resolve, sep } from "node:path";
import { activeAtToken, formatFileMention } from "@deepseek-ai/dsh-file-reference/grammar";
var DEFAULT_FILE_SEARCH_MAX_RESULTS = 20;
var DEFAULT_FILE_SEARCH_MAX_ENTRIES = 1e4;
var DEFAULT_FILE_SEARCH_EXCLUDED_DIRECTORIES = [".git", "node_modules"];
var WorkspaceFileSearch = class {
  constructor(root, config) {
    this.root = root;
    this.config = config;
    if (!Number.isSafeInteger(config.maxResults) || config.maxResults <= 0) {
      throw new Error("file search maxResults must be a positive safe integer");
    }
    if (!Number.isSafeInteger(config.maxEntries) || config.maxEntries <= 0) {
      throw new Error("file search maxEntries must be a positive safe integer");
    }
    if (config.excludedDirectories.some((name) => name.length === 0 || name.includes("/") || name.includes("\\"))) {
      throw new Error("file search excludedDirectories entries must be non-empty directory basenames");
    }
    this.excludedDirectories = new Set(config.excludedDirectories);
  }
  root;
  config;
  excludedDirectories;
  generation;
  disposed = false;
  /**
   * Return ranked path candidates for the current token.
   * @param rawQuery - path text following `@` or `@"`.
   * @param signal - cancels this caller's wait without killing an index shared by a newer query.
   * @returns at most `maxResults` deterministic candidates.
   */
  async list(rawQuery, signal) {
    signal.throwIfAborted();
    if (this.disposed) return [];
    const query = rawQuery.replaceAll("\\", "/");
    const slash = query.lastIndexOf("/");
    if (query === "" || slash >= 0) {
      const directory = slash < 0 ? "" : query.slice(0, slash + 1);
      const fragment = slash < 0 ? "" : query.slice(slash + 1);
      return this.listDirectory(directory, fragment, signal);
    }
    const indexed = await waitForPromise(this.ensureIndex(), signal);
    return rankCandidates(
      indexed.filter((candidate) => visibleForGlobalQuery(candidate.path, query)),
      query,
      this.config.maxResults
    );
  }
  /** Discard the current index so the next bare query observes a fresh tree. */
  invalidate() {
    this.generation?.controller.abort(new Error("file search index invalidated"));
    this.generation = void 0;
  }
  /** Abort traversal and make later queries return no candidates. */
  dispose() {
    if (this.disposed) return;
    this.disposed = true;
    this.invalidate();
  }
  ensureIndex() {
    if (this.generation !== void 0) return this.generation.promise;
    const controller = new AbortController();
    const generation = {
      controller,
      promise: Promise.resolve([])
    };
    generation.promise = this.scanWorkspace(controller.signal).catch((error) => {
      if (this.generation === generation) this.generation = void 0;
      throw error;
    });
    this.generation = generation;
    return generation.promise;
  }
  async scanWorkspace(signal) {
    const indexed = [];
    const directories = [{ absolute: this.root, relative: "" }];
    for (let cursor = 0; cursor < directories.length && indexed.length < this.config.maxEntries; cursor += 1) {
      signal.throwIfAborted();
      const directory = directories[cursor];
      if (directory === void 0) {
        throw new Error("file search selected a missing directory");
      }
      const entries = await readDirectory(directory.absolute, signal);
      for (const entry of entries) {
        signal.throwIfAborted();
        const path = directory.relative === "" ? entry.name : `${directory.relative}/${entry.name}`;
        if (entry.isDirectory()) {
          if (this.excludedDirectories.has(entry.name)) continue;
          indexed.push({ path, kind: "directory" });
          directories.push({ absolute: join(directory.absolute, entry.name), relative: path });
        } else if (entry.isFile()) {
          indexed.push({ path, kind: "file" });
        }
        if (indexed.length >= this.config.maxEntries) break;
      }
    }
    return indexed;
  }
  async listDirectory(displayDirectory, fragment, signal) {
    if (displayDirectory.split("/").some((segment) => this.excludedDirectories.has(segment))) return [];
    const absolute = await resolveDisplayDirectory(this.root, displayDirectory, signal);
    if (absolute === void 0) return [];
    const entries = await readDirectory(absolute, signal);
    const candidates = [];
    for (const entry of entries) {
      if (entry.name.startsWith(".") && !fragment.startsWith(".")) continue;
      if (entry.isDirectory()) {
        if (this.excludedDirectories.has(entry.name)) continue;
        candidates.push({ path: `${displayDirectory}${entry.name}`, kind: "directory" });
      } else if (entry.isFile()) {
        candidates.push({ path: `${displayDirectory}${entry.name}`, kind: "file" });
      }
    }
    return rankCandidates(candidates, fragment, this.config.maxResults);
  }
};
async function resolveDisplayDirectory(root, displayDirectory, signal) {
  const resolvedRoot = resolve(root);
  const absolute = resolve(resolvedRoot, displayDirectory === "" ? "." : displayDirectory);
  const fromRoot = relative(resolvedRoot, absolute);
  if (fromRoot === ".." || fromRoot.startsWith(`..${sep}`)) return void 0;
  if (isAbsolute(fromRoot)) return void 0;
  let current = resolvedRoot;
  for (const segment of fromRoot.split(sep).filter(Boolean)) {
    signal.throwIfAborted();
    current = join(current, segment);
    try {
      const status = await lstat(current);
      signal.throwIfAborted();
      if (status.isSymbolicLink() || !status.isDirectory()) return void 0;
    } catch (_error) {
      signal.throwIfAborted();
      return void 0;
    }
  }
  return absolute;
}
async function readDirectory(absolute, signal) {
  signal.throwIfAborted();
  try {
    const entries = await readdir(absolute, { withFileTypes: true });
    signal.throwIfAborted();
    return entries.sort((left, right) => compareText(left.name, right.name));
  } catch (_error) {
    signal.throwIfAborted();
    return [];
  }
}
function visibleForGlobalQuery(path, query) {
  if (query.startsWith(".") || query.includes("/.")) return true;
  return !path.split("/").some((segment) => segment.startsWith("."));
}
function rankCandidates(candidates, query, limit) {
  const ranked = [];
  for (const candidate of candidates) {
    const score = scoreCandidate(candidate, query);
    if (score !== void 0) ranked.push({ candidate, score });
  }
  ranked.sort((left, right) => right.score - left.score || kindRank(left.candidate.kind) - kindRank(right.candidate.kind) || (query === "" ? 0 : left.candidate.path.length - right.candidate.path.length) || compareText(left.candidate.path, right.candidate.path));
  return ranked.slice(0, limit).map((entry) => entry.candidate);
}
function scoreCandidate(candidate, query) {
  if (query === "") return 0;
  const path = candidate.path.toLowerCase();
  const name = path.slice(path.lastIndexOf("/") + 1);
  const needle = query.toLowerCase();
  const directoryBonus = candidate.kind === "directory" ? 25 : 0;
  if (name === needle) return 1e3 + directoryBonus;
  if (name.startsWith(needle)) return 900 + directoryBonus;
  if (name.includes(needle)) return 700 + directoryBonus;
  if (path.includes(needle)) return 500 + directoryBonus;
  const subsequence = subsequenceScore(path, needle);
  return subsequence === void 0 ? void 0 : 300 + subsequence + directoryBonus;
}
function subsequenceScore(target, query) {
  let targetIndex = 0;
  let gap = 0;
  for (const character of query) {
    const found = target.indexOf(character, targetIndex);
    if (found < 0) return void 0;
    gap += found - targetIndex;
    targetIndex = found + 1;
  }
  return Math.max(0, 100 - gap);
}
function kindRank(kind) {
  return kind === "directory" ? 0 : 1;
}
function compareText(left, right) {
  return left < right ? -1 : left > right ? 1 : 0;
}
function waitForPromise(promise, signal) {
  if (signal.aborted) return Promise.reject(errorReason(signal.reason, "file search aborted"));
  return new Promise((resolvePromise, rejectPromise) => {
    const onAbort = () => {
      rejectPromise(errorReason(signal.reason, "file search aborted"));
    };
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        resolvePromise(value);
      },
      (error) => {
        signal.removeEventListener("abort", onAbort);
        rejectPromise(errorReason(error, "file search index failed"));
      }
    );
  });
}
function errorReason(reason, fallback) {
  return reason instanceof Error ? reason : new Error(fallback, { cause: reason });
}

// src/index.ts
import { FILE_REFERENCE_PROMPT as FILE_REFERENCE_PROMPT2 } from "@deepseek-ai/dsh-file-reference";
import { activeAtToken as activeAtToken2, formatFileMention as formatFileMention2 } from "@deepseek-ai/dsh-file-reference/grammar";
var LocalFileReferenceService = class extends FileReferenceService {
  static inject = ["agents"];
  static Config = z.object({
    maxResults: z.number().step(1).min(1).default(DEFAULT_FILE_SEARCH_MAX_RESULTS),
    maxEntries: z.number().step(1).min(1).default(DEFAULT_FILE_SEARCH_MAX_ENTRIES),
    excludedDirectories: z.array(z.string()).default([...DEFAULT_FILE_SEARCH_EXCLUDED_DIRECTORIES])
  });
  config;
  searches = /* @__PURE__ */ new Map();
  promptFibers = /* @__PURE__ */ new Map();
  promptDisposals = /* @__PURE__ */ new Set();
  constructor(ctx, config = {}) {
    super(ctx);
    this.config = {
      maxResults: config.maxResults ?? DEFAULT_FILE_SEARCH_MAX_RESULTS,
      maxEntries: config.maxEntries ?? DEFAULT_FILE_SEARCH_MAX_ENTRIES,
      excludedDirectories: config.excludedDirectories ?? DEFAULT_FILE_SEARCH_EXCLUDED_DIRECTORIES
    };
    validateConfig(this.config);
    const installPrompt = (agent) => {
      if (this.promptFibers.has(agent)) return;
      const fiber = agent.ctx.inject(["systemPrompt", "tools"], (scope) => {
        scope.systemPrompt.section({
          name: "context:file-reference",
          order: 99,
          text: () => agent.ctx.tools.get("read", agent) === void 0 ? "" : FILE_REFERENCE_PROMPT
        });
      });
      this.promptFibers.set(agent, fiber);
    };
    const disposePrompt = (agent) => {
      const fiber = this.promptFibers.get(agent);
      if (fiber === void 0) return;
      this.promptFibers.delete(agent);
      const task = fiber.dispose().catch((error) => {
        ctx.logger.warn(`file-reference-local: prompt cleanup failed: ${error instanceof Error ? error.message : String(error)}`);
      });
      this.promptDisposals.add(task);
      void task.finally(() => {
        this.promptDisposals.delete(task);
      });
    };
    for (const agent of ctx.agents.list()) installPrompt(agent);
    ctx.on("agent/created", ({ agent }) => {
      installPrompt(agent);
    });
    ctx.on("agent/disposed", ({ agent }) => {
      this.searches.get(agent)?.dispose();
      this.searches.delete(agent);
      disposePrompt(agent);
    });
    ctx.on("session/event", (session, event) => {
      if (event.type !== "tool/result") return;
      const agent = ctx.agents.get(session.id);
      if (agent !== void 0) this.searches.get(agent)?.invalidate();
    });
    ctx.effect(() => async () => {
      for (const search of this.searches.values()) search.dispose();
      this.searches.clear();
      const promptFibers = [...this.promptFibers.values()];
      this.promptFibers.clear();
      await Promise.all([
        ...promptFibers.map((fiber) => fiber.dispose()),
        ...this.promptDisposals
      ]);
    }, "file-reference-local: search cache");
  }
  list(agent, query, signal) {
    let search = this.searches.get(agent);
    if (search === void 0) {
      search = new WorkspaceFileSearch(agent.session.header.cwd ?? process.cwd(), this.config);
      this.searches.set(agent, search);
    }
    return search.list(query, signal);
  }
};
function validateConfig(config) {
  if (!Number.isSafeInteger(config.maxResults) || config.maxResults <= 0) {
    throw new Error("file-reference-local: maxResults must be a positive safe integer");
  }
  if (!Number.isSafeInteger(config.maxEntries) || config.maxEntries <= 0) {
    throw new Error("file-reference-local: maxEntries must be a positive safe integer");
  }
  if (config.excludedDirectories.some((name) => name.length === 0 || name.includes("/") || name.includes("\\"))) {
    throw new Error("file-reference-local: excludedDirectories entries must be non-empty directory basenames");
  }
}
var index_default = LocalFileReferenceService;
export {
  DEFAULT_FILE_SEARCH_EXCLUDED_DIRECTORIES,
  DEFAULT_FILE_SEARCH_MAX_ENTRIES,
  DEFAULT_FILE_SEARCH_MAX_RESULTS,
  FILE_REFERENCE_PROMPT2 as FILE_REFERENCE_PROMPT,
  LocalFileReferenceService,
  WorkspaceFileSearch,
  activeAtToken2 as activeAtToken,
  index_default as default,
  formatFileMention2 as formatFileMention
};
