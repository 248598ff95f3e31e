// @deepseek-ai/dsh-tool-fs-search@0.1.0-rc.8, built by testdata/dsh-census/census.mjs from toninfo/deepseek-harness@611615650f1b:packages/fs/tool-fs-search (MIT, see LICENSE).

// src/index.ts
import z from "@deepseek-ai/schemastery";
import { MAX_TIMER_DELAY_MS } from "@deepseek-ai/dsh-timeout";

// src/glob.ts
import { sep as sep2 } from "node:path";
import { defineTool } from "@deepseek-ai/dsh-tools";

// src/search-core.ts
import { existsSync } from "node:fs";
import { isAbsolute, relative, sep } from "node:path";
import { HarnessError } from "@deepseek-ai/dsh-llm";
import { ItemRetainer, TextRetainer } from "@deepseek-ai/dsh-output-retention";
var RAW_OUTPUT_MAX_BYTES = 2e7;
var SEARCH_TIMEOUT_MS = 3e4;
var SEARCH_STDERR_MAX_BYTES = 64 * 1024;
var SEARCH_GRACE_MS = 3e3;
var SEARCH_META_MAX_BYTES = 65536;
var SearchError = class extends HarnessError {
  code;
  constructor(message, code, options) {
    super(message, code, options);
    this.code = code;
  }
};
function stderrExcerpt(stderrText, truncated) {
  const text = stderrText.trim();
  if (text.length === 0) return "";
  return truncated ? `${text} [stderr truncated]` : text;
}
function classifyRunFailure(toolName, exitCode, stderrText, stderrTruncated) {
  const stderr = stderrExcerpt(stderrText, stderrTruncated);
  if (/regex parse error|error parsing glob/i.test(stderr)) {
    return new SearchError(`${toolName} pattern rejected by ripgrep: ${stderr}`, "SEARCH_INVALID_PATTERN");
  }
  return new SearchError(`${toolName} search failed (exit ${exitCode})${stderr.length > 0 ? `: ${stderr}` : ""}`, "SEARCH_FAILED");
}
function completeStdout(toolName, stdout, rawOutputMaxBytes) {
  const narrow = "narrow pattern, path, or include and retry";
  if (!stdout.lossy) {
    const inlineBytes = Buffer.byteLength(stdout.text, "utf8");
    if (inlineBytes > rawOutputMaxBytes) {
      throw new SearchError(
        `${toolName} produced ${inlineBytes} bytes of raw output, over the ${rawOutputMaxBytes}-byte cap; ${narrow}`,
        "SEARCH_RAW_OUTPUT_OVERFLOW"
      );
    }
    return stdout.text;
  }
  throw new SearchError(
    `${toolName} produced more raw output than the subprocess seam retained within the ${rawOutputMaxBytes}-byte cap; ${narrow}`,
    "SEARCH_RAW_OUTPUT_OVERFLOW"
  );
}
var rgPathPromise;
function resolveRgPath() {
  rgPathPromise ??= Promise.resolve().then(async () => {
    const executableSidecar = `${process.execPath}-rg`;
    if ("pkg" in process && existsSync(executableSidecar)) return executableSidecar;
    return (await import("@vscode/ripgrep")).rgPath;
  });
  return rgPathPromise;
}
async function runRipgrep(ctx, exec, toolName, argv, rawOutputMaxBytes, graceMs, stderrMaxBytes) {
  if (exec.signal.aborted) {
    throw new SearchError(`${toolName} was aborted before completion (tool timeout or caller cancellation)`, "SEARCH_ABORTED");
  }
  const cwd = exec.agent?.session.header.cwd;
  const workdir = cwd ?? process.cwd();
  let handle;
  try {
    handle = ctx.subprocess.spawn({
      argv: [await resolveRgPath(), "--no-config", ...argv],
      cwd: workdir,
      stdio: {
        stdin: "ignore",
        stdout: { maxBytes: rawOutputMaxBytes },
        stderr: { maxBytes: stderrMaxBytes }
      },
      graceMs,
      signal: exec.signal
    });
  } catch (error) {
    if (exec.signal.aborted) {
      throw new SearchError(`${toolName} was aborted before completion (tool timeout or caller cancellation)`, "SEARCH_ABORTED");
    }
    throw new SearchError(`${toolName} could not start its search command (ripgrep launch failed)`, "SEARCH_FAILED", { cause: error });
  }
  let outcome;
  try {
    outcome = await handle.done;
  } catch (error) {
    throw new SearchError(`${toolName} could not start its search command (ripgrep launch failed)`, "SEARCH_FAILED", { cause: error });
  }
  const stdout = handle.collected.stdout?.readFrom(0);
  const stderr = handle.collected.stderr?.readFrom(0);
  if (stdout === void 0 || stderr === void 0) {
    throw new SearchError(`${toolName} search command produced no collected output streams`, "SEARCH_FAILED");
  }
  if (exec.signal.aborted) {
    throw new SearchError(`${toolName} was aborted before completion (tool timeout or caller cancellation)`, "SEARCH_ABORTED");
  }
  if (outcome.signal !== null || outcome.exitCode === null) {
    throw new SearchError(`${toolName} search command was killed by signal ${outcome.signal ?? "(unknown)"}`, "SEARCH_FAILED");
  }
  if (outcome.exitCode !== 0 && outcome.exitCode !== 1) {
    throw classifyRunFailure(toolName, outcome.exitCode, stderr.text, stderr.lossy);
  }
  const text = completeStdout(toolName, stdout, rawOutputMaxBytes);
  return { stdout: text, noMatches: outcome.exitCode === 1, workdir };
}
function toWorkdirRelative(path, workdir) {
  if (!isAbsolute(path)) return path;
  const rel = relative(workdir, path);
  if (rel.length === 0) return ".";
  if (rel === ".." || rel.startsWith(`..${sep}`)) return path;
  return rel;
}
function previewLine(line, maxBytes) {
  const retainer = new TextRetainer({ kind: "head", maxBytes });
  retainer.push(line);
  const kept = retainer.finish();
  return kept.truncated ? `${kept.text} (line truncated)` : kept.text;
}
function retainGrepMatches(matches, maxMatches, maxLineBytes) {
  const retainer = new ItemRetainer({ kind: "head", maxItems: maxMatches });
  for (const match of matches) retainer.push({ ...match, line: previewLine(match.line, maxLineBytes) });
  return retainer.finish();
}
async function trySaveFormattedResult(ctx, exec, suggestedName, content) {
  const sessionId = exec.agent?.session.header.id;
  if (sessionId === void 0) {
    ctx.logger.warn(`tool-fs-search: no session owner for ${exec.name} result; complete result not saved`);
    return void 0;
  }
  const spillStore = ctx.get("spillStore");
  if (!spillStore) {
    ctx.logger.warn(`tool-fs-search: no ctx.spillStore backend loaded; complete ${exec.name} result not saved`);
    return void 0;
  }
  const save = {
    owner: { sessionId },
    source: { toolName: exec.name, callId: exec.callId, label: "result" },
    suggestedName,
    content
  };
  try {
    return await spillStore.saveText(save);
  } catch (error) {
    ctx.logger.warn(`tool-fs-search: saveText failed for ${exec.name}: ${String(error)}; complete result not saved`);
    return void 0;
  }
}

// src/presentation.ts
function groupMatchesByFile(matches) {
  const byFile = /* @__PURE__ */ new Map();
  for (const match of matches) {
    const entry = { lineNumber: match.lineNumber, line: match.line };
    const group = byFile.get(match.path);
    if (group !== void 0) group.push(entry);
    else byFile.set(match.path, [entry]);
  }
  return Array.from(byFile, ([path, fileMatches]) => ({ path, matches: fileMatches }));
}
function metaBytes(meta) {
  return Buffer.byteLength(JSON.stringify(meta), "utf8");
}
function capMetaBytes(meta, maxMetaBytes) {
  if (metaBytes(meta) <= maxMetaBytes) return meta;
  if (meta.shape === "matches") {
    const files = [...meta.files];
    while (files.length > 1 && metaBytes({ ...meta, files, truncated: true }) > maxMetaBytes) files.pop();
    return { ...meta, files, truncated: true };
  }
  const paths = [...meta.paths];
  while (paths.length > 1 && metaBytes({ ...meta, paths, truncated: true }) > maxMetaBytes) paths.pop();
  return { ...meta, paths, truncated: true };
}
function grepSearchMeta(retained, maxMetaBytes) {
  const meta = {
    shape: "matches",
    files: groupMatchesByFile(retained.items),
    truncated: retained.truncated,
    total: retained.seen
  };
  return capMetaBytes(meta, maxMetaBytes);
}
function globSearchMeta(retained, maxMetaBytes) {
  const meta = {
    shape: "paths",
    paths: retained.items,
    truncated: retained.truncated,
    total: retained.seen
  };
  return capMetaBytes(meta, maxMetaBytes);
}
function isSearchLineMatch(value) {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const { lineNumber, line } = value;
  return typeof lineNumber === "number" && typeof line === "string";
}
function isSearchFileMatches(value) {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const { path, matches } = value;
  return typeof path === "string" && Array.isArray(matches) && matches.every(isSearchLineMatch);
}
function searchViewFromMeta(meta) {
  if (typeof meta !== "object" || meta === null || Array.isArray(meta)) return void 0;
  const record = meta;
  const { truncated, total } = record;
  if (typeof truncated !== "boolean" || typeof total !== "number") return void 0;
  if (record.shape === "matches") {
    const { files } = record;
    if (!Array.isArray(files) || !files.every(isSearchFileMatches)) return void 0;
    return { card: "search", shape: "matches", files, truncated, total };
  }
  if (record.shape === "paths") {
    const { paths } = record;
    if (!Array.isArray(paths) || !paths.every((path) => typeof path === "string")) return void 0;
    return { card: "search", shape: "paths", paths, truncated, total };
  }
  return void 0;
}

// src/direct-call.ts
function acceptedDirectCallValue(ctx, tool, exec, result, decision) {
  if (decision.kind !== "accept" || decision.content !== void 0 || Object.hasOwn(decision, "value") || exec.parent !== void 0 || exec.name !== tool.name || result.isError || ctx.tools.get(exec.name, exec.agent) !== tool) return void 0;
  return result.value;
}

// src/glob.ts
var GLOB_MAX_RESULTS = 100;
var GLOB_VCS_EXCLUDES = [".git", ".svn", ".hg", ".bzr", ".jj", ".sl"];
function parseGlobArgs(args) {
  if (args.pattern.trim().length === 0) throw new Error("pattern must be a non-empty string");
  if (args.path !== void 0 && args.path.trim().length === 0) throw new Error("path must be a non-empty string when given");
  return { pattern: args.pattern, ...args.path !== void 0 ? { path: args.path } : {} };
}
function buildGlobCommand(input) {
  const parts = [
    "--files",
    `--glob=${input.pattern}`,
    "--sort=modified",
    "--no-ignore",
    "--hidden",
    // Two negated globs per VCS name: the bare form prunes the directory
    // during traversal; the /** form still excludes the contents when the
    // search root is AT or INSIDE the directory (where the bare form,
    // matched against root-prefixed paths, never fires).
    ...GLOB_VCS_EXCLUDES.flatMap((name2) => [
      `--glob=!**/${name2}`,
      `--glob=!**/${name2}/**`
    ])
  ];
  if (input.path !== void 0) parts.push("--", input.path);
  return parts;
}
function relativeToSearchRoot(path, root) {
  if (root === ".") return path.startsWith(`.${sep2}`) ? path.slice(2) : path;
  let rootEnd = root.length;
  while (rootEnd > 0 && root[rootEnd - 1] === sep2) rootEnd -= 1;
  const trimmedRoot = root.slice(0, rootEnd);
  if (trimmedRoot.length === 0) return stripLeadingSeparators(path);
  if (path === trimmedRoot) return "";
  if (path.startsWith(`${trimmedRoot}${sep2}`)) {
    return path.slice(trimmedRoot.length + 1);
  }
  return path;
}
function stripLeadingSeparators(path) {
  let start = 0;
  while (path[start] === sep2) start += 1;
  return path.slice(start);
}
function topLevelSegment(path) {
  const trimmed = stripLeadingSeparators(path);
  const cut = trimmed.indexOf(sep2);
  return cut === -1 ? trimmed : trimmed.slice(0, cut);
}
function sampleAcrossTopLevel(paths, maxItems, root = ".") {
  const groups = /* @__PURE__ */ new Map();
  let active = [];
  for (const path of paths) {
    const key = topLevelSegment(relativeToSearchRoot(path, root));
    const group = groups.get(key);
    if (group === void 0) {
      const items = [path];
      groups.set(key, items);
      active.push({ key, items, index: 0, current: path });
    } else {
      group.push(path);
    }
  }
  const taken = /* @__PURE__ */ new Map();
  let count = 0;
  while (active.length > 0 && count < maxItems) {
    const nextActive = [];
    for (const { key, items, index, current } of active) {
      if (count >= maxItems) break;
      count += 1;
      const bucket = taken.get(key);
      if (bucket === void 0) taken.set(key, [current]);
      else bucket.push(current);
      const nextIndex = index + 1;
      const nextPath = items[nextIndex];
      if (nextPath !== void 0) nextActive.push({ key, items, index: nextIndex, current: nextPath });
    }
    active = nextActive;
  }
  return { items: [...taken.values()].flat(), shown: taken.size, total: groups.size };
}
function formatGlobOutput(sample, seen, spillRef) {
  const basis = sample.total === seen ? "." : `, sampled across ${sample.shown} of the ${sample.total} top-level entries this pattern matched instead of taken in modification-time order.` + (sample.shown < sample.total ? " Narrow path to inspect a specific subtree." : "");
  return formatGlobPage(sample.items, seen, spillRef, basis);
}
function formatGlobPage(items, seen, spillRef, basis) {
  const body = items.join("\n");
  const recovery = spillRef !== void 0 ? `Full sorted result stored at: ${spillRef.locator}. ${spillRef.retrievalHint}` : "The complete result could not be saved; narrow pattern or path to see more.";
  return `${body}

(Showing ${items.length} of ${seen} paths${basis} ${recovery})`;
}
function renderGlobPaths(paths, caps, root, spillRef) {
  if (paths.length === 0) return "No files found";
  if (paths.length <= caps.maxResults) return paths.join("\n");
  if (!caps.sampleOverCapGlobResults) {
    return formatGlobPage(paths.slice(0, caps.maxResults), paths.length, spillRef, ".");
  }
  return formatGlobOutput(sampleAcrossTopLevel(paths, caps.maxResults, root), paths.length, spillRef);
}
function globCardPage(paths, caps, root) {
  if (paths.length <= caps.maxResults) return { items: paths, truncated: false };
  if (!caps.sampleOverCapGlobResults) return { items: paths.slice(0, caps.maxResults), truncated: true };
  return { items: sampleAcrossTopLevel(paths, caps.maxResults, root).items, truncated: true };
}
function presentGlobCall(args) {
  const where = args.path !== void 0 ? ` in ${args.path}` : "";
  return { card: "generic", title: `Glob ${args.pattern}${where}`, kind: "search", rawInput: args.pattern };
}
function presentGlobResult(_args, result) {
  if (result.isError) return void 0;
  const view = searchViewFromMeta(result.meta);
  if (view === void 0 || view.shape !== "paths") return void 0;
  return view;
}
function applyGlobTool(ctx, caps) {
  const overCapGuidance = caps.sampleOverCapGlobResults ? "while a larger one is sampled across top-level entries, so it spans the tree instead of one subtree." : "while a larger one keeps the modification-time-ordered head.";
  ctx.systemPrompt.section({
    name: "tool:glob",
    order: 103,
    text: `Use the glob tool — not shell find — to discover files by path pattern. A pattern with no "/" matches basenames at any depth, so "*" matches every file in the tree rather than its top level. Results are files only, never directories, and include hidden and ignored files: a result that fits comes back in modification-time order, ${overCapGuidance}`
  });
  const overCapDescription = caps.sampleOverCapGlobResults ? `a larger result instead returns ${caps.maxResults} paths sampled across top-level entries` : `a larger result returns the first ${caps.maxResults} paths in modification-time order`;
  const tool = defineTool({
    name: "glob",
    description: `Find files whose paths match a glob pattern. Returns matching file paths — never directories — including hidden and ignored files (VCS metadata directories are excluded). Up to ${caps.maxResults} paths come back in modification-time order; ${overCapDescription}, says so, and reports where the complete sorted list was saved. This tool does not enumerate directory entries.`,
    parameters: {
      pattern: {
        type: "string",
        required: true,
        description: 'Glob pattern to match file paths against (e.g. "**/*.ts", "src/**/*.test.js"). A pattern with no "/" matches the basename at any depth, so "*" and "*.ts" both search the whole tree; include a separator to anchor the depth.'
      },
      path: { type: "string", description: "Directory to search in. Defaults to the session workspace; a relative path resolves against it." }
    },
    timeoutMs: caps.timeoutMs,
    output: {
      schema: {
        type: "object",
        additionalProperties: false,
        properties: {
          root: { type: "string", required: true },
          paths: { type: "array", required: true, items: { type: "string" } }
        }
      },
      render: (_args, value) => [{ type: "text", text: renderGlobPaths(value.paths, caps, value.root) }],
      presentationMeta: (_args, value) => {
        const page = globCardPage(value.paths, caps, value.root);
        return globSearchMeta({ items: page.items, truncated: page.truncated, seen: value.paths.length }, caps.maxMetaBytes);
      }
    },
    async execute(args, exec) {
      const input = parseGlobArgs(args);
      const run = await runRipgrep(ctx, exec, "glob", buildGlobCommand(input), caps.rawOutputMaxBytes, caps.graceMs, caps.stderrMaxBytes);
      const root = input.path === void 0 ? "." : toWorkdirRelative(input.path, run.workdir);
      if (run.noMatches) return { root, paths: [] };
      const all = [];
      for (const line of run.stdout.split("\n")) {
        if (line.length === 0) continue;
        const displayPath = toWorkdirRelative(line, run.workdir);
        all.push(displayPath);
      }
      return { root, paths: all };
    },
    presentCall: presentGlobCall,
    presentResult: presentGlobResult
  });
  ctx.tools.register(tool);
  ctx.on("tools/post-execute", async (exec, result, next) => {
    const decision = await next();
    const value = acceptedDirectCallValue(ctx, tool, exec, result, decision);
    if (value === void 0) return decision;
    const paths = value.paths;
    if (paths.length <= caps.maxResults) return decision;
    const spillRef = await trySaveFormattedResult(ctx, exec, "glob-results.txt", paths.join("\n"));
    return {
      kind: "accept",
      content: [{ type: "text", text: renderGlobPaths(paths, caps, value.root, spillRef) }],
      ...decision.additionalContexts !== void 0 ? { additionalContexts: decision.additionalContexts } : {}
    };
  });
}

// src/grep.ts
import { defineTool as defineTool2 } from "@deepseek-ai/dsh-tools";
var GREP_MAX_MATCHES = 250;
var GREP_MAX_LINE_BYTES = 2e3;
function validateInclude(include) {
  if (include.trim().length === 0) throw new Error("include must be a non-empty glob when given");
  if (include.startsWith("!")) throw new Error('include must be a positive glob filter; negated patterns ("!…") are not supported');
  let braceDepth = 0;
  for (const char of include) {
    if (char === "{") braceDepth++;
    else if (char === "}") braceDepth = Math.max(0, braceDepth - 1);
    else if (char === "," && braceDepth === 0) {
      throw new Error("include must be one glob, not a comma-separated list (use {a,b} alternation instead)");
    }
  }
}
function parseGrepArgs(args) {
  if (args.pattern.length === 0) throw new Error("pattern must be a non-empty string");
  if (args.path !== void 0 && args.path.trim().length === 0) throw new Error("path must be a non-empty string when given");
  if (args.include !== void 0) validateInclude(args.include);
  return {
    pattern: args.pattern,
    ...args.path !== void 0 ? { path: args.path } : {},
    ...args.include !== void 0 ? { include: args.include } : {}
  };
}
function buildGrepCommand(input) {
  const parts = ["--json", `--regexp=${input.pattern}`];
  if (input.include !== void 0) parts.push(`--glob=${input.include}`);
  if (input.path !== void 0) parts.push("--", input.path);
  return parts;
}
function malformedRecord(detail, cause) {
  return new SearchError(`grep received malformed ripgrep --json output (${detail})`, "SEARCH_FAILED", cause !== void 0 ? { cause } : void 0);
}
function parseRecord(line) {
  let parsed;
  try {
    parsed = JSON.parse(line);
  } catch (error) {
    throw malformedRecord("a line is not JSON", error);
  }
  if (typeof parsed !== "object" || parsed === null) throw malformedRecord("a record is not an object");
  const record = parsed;
  if (record.type !== "match") return void 0;
  if (typeof record.data !== "object" || record.data === null) throw malformedRecord("a match record has no data");
  const data = record.data;
  const pathText = typeof data.path === "object" && data.path !== null ? data.path.text : void 0;
  if (typeof pathText !== "string") throw malformedRecord("a match record has no path text");
  if (typeof data.line_number !== "number") throw malformedRecord("a match record has no line number");
  if (typeof data.lines !== "object" || data.lines === null) throw malformedRecord("a match record has no line content");
  const lines = data.lines;
  if (typeof lines.text === "string") {
    return { path: pathText, lineNumber: data.line_number, line: lines.text.replace(/\r?\n$/, "") };
  }
  if (typeof lines.bytes === "string") {
    return { path: pathText, lineNumber: data.line_number, line: "(line is not valid UTF-8)" };
  }
  throw malformedRecord("a match record has neither line text nor bytes");
}
function parseGrepMatches(stdout) {
  const matches = [];
  for (const line of stdout.split("\n")) {
    if (line.length === 0) continue;
    const match = parseRecord(line);
    if (match !== void 0) matches.push(match);
  }
  return matches;
}
function matchNoun(count) {
  return count === 1 ? "match" : "matches";
}
function formatGrepMatches(matches) {
  const byFile = /* @__PURE__ */ new Map();
  for (const match of matches) {
    const group = byFile.get(match.path);
    if (group !== void 0) group.push(match);
    else byFile.set(match.path, [match]);
  }
  const sections = [];
  for (const [path, group] of byFile) {
    sections.push(`${path}
${group.map((m) => `Line ${m.lineNumber}: ${m.line}`).join("\n")}`);
  }
  return sections.join("\n\n");
}
function formatGrepOutput(retained, spillRef) {
  const header = retained.truncated ? `Found ${retained.kept} of ${retained.seen} matches` : `Found ${retained.seen} ${matchNoun(retained.seen)}`;
  const body = formatGrepMatches(retained.items);
  if (!retained.truncated) return `${header}

${body}`;
  const recovery = spillRef !== void 0 ? `Full grep result stored at: ${spillRef.locator}. ${spillRef.retrievalHint}` : "The complete result could not be saved; narrow pattern, path, or include to see more.";
  return `${header}

${body}

(${recovery})`;
}
function formatRetainedGrep(retained, spillRef) {
  if (retained.seen === 0) return "No matches found";
  return formatGrepOutput(retained, spillRef);
}
function presentGrepCall(args) {
  const where = args.path !== void 0 ? ` in ${args.path}` : "";
  const filter = args.include !== void 0 ? ` (${args.include})` : "";
  return { card: "generic", title: `Grep ${args.pattern}${where}${filter}`, kind: "search", rawInput: args.pattern };
}
function presentGrepResult(_args, result) {
  if (result.isError) return void 0;
  const view = searchViewFromMeta(result.meta);
  if (view === void 0 || view.shape !== "matches") return void 0;
  return view;
}
function applyGrepTool(ctx, caps) {
  ctx.systemPrompt.section({
    name: "tool:grep",
    order: 104,
    text: "Use the grep tool — not shell grep or rg — to search file contents. Use read on a matched file when you need surrounding context."
  });
  const tool = defineTool2({
    name: "grep",
    description: `Search file contents with a ripgrep regular expression. Returns matching lines with line numbers, grouped by file. Returns the first ${caps.maxMatches} matches inline; a capped result reports where the complete match list was saved. Use read on a matched file for surrounding context.`,
    parameters: {
      pattern: { type: "string", required: true, description: "Regular expression to search for (ripgrep syntax)." },
      path: { type: "string", description: "File or directory to search. Defaults to the session workspace; a relative path resolves against it." },
      include: { type: "string", description: 'One glob filter for which files to search (e.g. "*.ts", "*.{js,jsx}"). Not a list; negation is not supported.' }
    },
    timeoutMs: caps.timeoutMs,
    output: {
      schema: {
        type: "object",
        additionalProperties: false,
        properties: {
          matches: {
            type: "array",
            required: true,
            items: {
              type: "object",
              additionalProperties: false,
              properties: {
                path: { type: "string", required: true },
                lineNumber: { type: "integer", required: true },
                line: { type: "string", required: true }
              }
            }
          }
        }
      },
      render: (_args, value) => [{
        type: "text",
        text: formatRetainedGrep(retainGrepMatches(value.matches, caps.maxMatches, caps.maxLineBytes))
      }],
      presentationMeta: (_args, value) => grepSearchMeta(retainGrepMatches(value.matches, caps.maxMatches, caps.maxLineBytes), caps.maxMetaBytes)
    },
    async execute(args, exec) {
      const input = parseGrepArgs(args);
      const run = await runRipgrep(ctx, exec, "grep", buildGrepCommand(input), caps.rawOutputMaxBytes, caps.graceMs, caps.stderrMaxBytes);
      if (run.noMatches) return { matches: [] };
      const all = [];
      for (const raw of parseGrepMatches(run.stdout)) {
        const match = {
          path: toWorkdirRelative(raw.path, run.workdir),
          lineNumber: raw.lineNumber,
          line: raw.line
        };
        all.push(match);
      }
      return { matches: all };
    },
    presentCall: presentGrepCall,
    presentResult: presentGrepResult
  });
  ctx.tools.register(tool);
  ctx.on("tools/post-execute", async (exec, result, next) => {
    const decision = await next();
    const value = acceptedDirectCallValue(ctx, tool, exec, result, decision);
    if (value === void 0) return decision;
    const matches = value.matches;
    if (matches.length <= caps.maxMatches) return decision;
    const previewedAll = matches.map((match) => ({ ...match, line: previewLine(match.line, caps.maxLineBytes) }));
    const spillRef = await trySaveFormattedResult(
      ctx,
      exec,
      "grep-results.txt",
      `Found ${matches.length} ${matchNoun(matches.length)}

${formatGrepMatches(previewedAll)}`
    );
    return {
      kind: "accept",
      content: [{
        type: "text",
        text: formatRetainedGrep(retainGrepMatches(matches, caps.maxMatches, caps.maxLineBytes), spillRef)
      }],
      ...decision.additionalContexts !== void 0 ? { additionalContexts: decision.additionalContexts } : {}
    };
  });
}

// src/index.ts
var name = "tool-fs-search";
var inject = ["tools", "systemPrompt", "subprocess"];
var Config = z.object({
  sampleOverCapGlobResults: z.boolean().required(),
  globMaxResults: z.number().default(GLOB_MAX_RESULTS),
  grepMaxMatches: z.number().default(GREP_MAX_MATCHES),
  grepMaxLineBytes: z.number().default(GREP_MAX_LINE_BYTES),
  searchMetaMaxBytes: z.number().default(SEARCH_META_MAX_BYTES),
  rawOutputMaxBytes: z.number().default(RAW_OUTPUT_MAX_BYTES),
  graceMs: z.number().default(SEARCH_GRACE_MS),
  stderrMaxBytes: z.number().default(SEARCH_STDERR_MAX_BYTES),
  timeoutMs: z.number().default(SEARCH_TIMEOUT_MS)
});
function assertPositiveInteger(name2, value) {
  if (!Number.isInteger(value) || value < 1) {
    throw new Error(`tool-fs-search: ${name2} must be a positive integer`);
  }
}
async function apply(ctx, config) {
  const resolved = config;
  assertPositiveInteger("globMaxResults", resolved.globMaxResults);
  assertPositiveInteger("grepMaxMatches", resolved.grepMaxMatches);
  assertPositiveInteger("grepMaxLineBytes", resolved.grepMaxLineBytes);
  assertPositiveInteger("searchMetaMaxBytes", resolved.searchMetaMaxBytes);
  assertPositiveInteger("rawOutputMaxBytes", resolved.rawOutputMaxBytes);
  assertPositiveInteger("graceMs", resolved.graceMs);
  if (resolved.graceMs > MAX_TIMER_DELAY_MS) {
    throw new Error(`tool-fs-search: graceMs must be no greater than ${MAX_TIMER_DELAY_MS}`);
  }
  assertPositiveInteger("stderrMaxBytes", resolved.stderrMaxBytes);
  assertPositiveInteger("timeoutMs", resolved.timeoutMs);
  applyGlobTool(ctx, {
    sampleOverCapGlobResults: resolved.sampleOverCapGlobResults,
    maxResults: resolved.globMaxResults,
    maxMetaBytes: resolved.searchMetaMaxBytes,
    rawOutputMaxBytes: resolved.rawOutputMaxBytes,
    graceMs: resolved.graceMs,
    stderrMaxBytes: resolved.stderrMaxBytes,
    timeoutMs: resolved.timeoutMs
  });
  applyGrepTool(ctx, {
    maxMatches: resolved.grepMaxMatches,
    maxLineBytes: resolved.grepMaxLineBytes,
    maxMetaBytes: resolved.searchMetaMaxBytes,
    rawOutputMaxBytes: resolved.rawOutputMaxBytes,
    graceMs: resolved.graceMs,
    stderrMaxBytes: resolved.stderrMaxBytes,
    timeoutMs: resolved.timeoutMs
  });
}
export {
  Config,
  GLOB_MAX_RESULTS,
  GLOB_VCS_EXCLUDES,
  GREP_MAX_LINE_BYTES,
  GREP_MAX_MATCHES,
  RAW_OUTPUT_MAX_BYTES,
  SEARCH_GRACE_MS,
  SEARCH_META_MAX_BYTES,
  SEARCH_STDERR_MAX_BYTES,
  SEARCH_TIMEOUT_MS,
  SearchError,
  apply,
  applyGlobTool,
  applyGrepTool,
  buildGlobCommand,
  buildGrepCommand,
  formatGlobOutput,
  formatGrepMatches,
  formatGrepOutput,
  inject,
  name,
  parseGlobArgs,
  parseGrepArgs,
  parseGrepMatches,
  presentGlobCall,
  presentGlobResult,
  presentGrepCall,
  presentGrepResult,
  previewLine,
  resolveRgPath,
  runRipgrep,
  sampleAcrossTopLevel,
  toWorkdirRelative,
  trySaveFormattedResult
};
