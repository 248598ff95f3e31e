// @deepseek-ai/dsh-agent-presets@0.1.0-rc.8, built by testdata/dsh-census/census.mjs from toninfo/deepseek-harness@611615650f1b:packages/preset/agent-presets (MIT, see LICENSE).

// src/index.ts
import { stat as stat3 } from "node:fs/promises";
import { Service } from "@deepseek-ai/cordis";
import z from "@deepseek-ai/schemastery";
import { bindScopeParent, createScope, scopeOf as scopeOf2 } from "@deepseek-ai/dsh-scope";
import { settingsNamespace } from "@deepseek-ai/dsh-settings";
import { dshHomePath } from "@deepseek-ai/dsh-home-paths";

// src/discovery.ts
import { readdir, readFile as readFile2, stat } from "node:fs/promises";
import { join as join2, resolve } from "node:path";
import { load } from "js-yaml";
import { entryListSchema } from "@deepseek-ai/cordis-plugin-include";
import { expandHomePath } from "@deepseek-ai/dsh-home-paths";

// src/metadata.ts
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import yaml from "js-yaml";
var METADATA_FILE = "preset.yml";
function text(value) {
  if (typeof value !== "string") return void 0;
  const trimmed = value.trim();
  return trimmed === "" ? void 0 : trimmed;
}
async function readPresetMetadata(directory) {
  let raw;
  try {
    raw = await readFile(join(directory, METADATA_FILE), "utf8");
  } catch {
    return {};
  }
  let parsed;
  try {
    parsed = yaml.load(raw);
  } catch {
    return {};
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) return {};
  const record = parsed;
  const name = text(record.name);
  const description = text(record.description);
  const order = typeof record.order === "number" && Number.isFinite(record.order) ? record.order : void 0;
  return {
    ...name === void 0 ? {} : { name },
    ...description === void 0 ? {} : { description },
    ...order === void 0 ? {} : { order }
  };
}
function renderPresetMetadata(metadata) {
  const name = text(metadata.name);
  const description = text(metadata.description);
  const { order } = metadata;
  if (name === void 0 && description === void 0 && order === void 0) return void 0;
  return yaml.dump({
    ...name === void 0 ? {} : { name },
    ...description === void 0 ? {} : { description },
    ...order === void 0 ? {} : { order }
  }, { lineWidth: -1 });
}

// src/preset.ts
var PRESET_ID = /^[a-z0-9][a-z0-9-]*$/;
var UnknownPresetError = class extends Error {
  constructor(presetId, available) {
    super(`agent-presets: preset "${presetId}" not found (available: ${available.join(", ") || "none"})`);
    this.presetId = presetId;
    this.available = available;
  }
  presetId;
  available;
};
var PresetMountError = class extends Error {
  constructor(presetId, reason, options) {
    super(`agent-presets: preset "${presetId}" failed to mount: ${reason}`, options);
    this.presetId = presetId;
    this.reason = reason;
  }
  presetId;
  reason;
};

// src/discovery.ts
var COMPOSITION_FILE = "agent.cordis.yml";
var USER_PRESET_DIR = ".agent-presets";
function entryListProblem(rows, at = "") {
  if (!Array.isArray(rows)) {
    return at === "" ? "the composition must be a top-level list of plugin rows" : `group ${at} must hold a list of plugin rows`;
  }
  for (const [index, row] of rows.entries()) {
    const label = at === "" ? `row ${String(index + 1)}` : `${at} row ${String(index + 1)}`;
    if (typeof row !== "object" || row === null || Array.isArray(row)) {
      return `${label} is not a plugin row (expected a map with a "name")`;
    }
    const { name, group, config } = row;
    if (typeof name !== "string" || name === "") {
      return `${label} names no plugin (a "name" string is required)`;
    }
    if (group === true) {
      const nested = entryListProblem(config, label);
      if (nested !== void 0) return nested;
    }
  }
  return void 0;
}
async function compositionProblem(path) {
  let content;
  try {
    content = await readFile2(path, "utf8");
  } catch {
    return `the composition file ${COMPOSITION_FILE} cannot be read`;
  }
  let rows;
  try {
    rows = load(content, { schema: entryListSchema });
  } catch (error) {
    const full = error instanceof Error ? error.message : String(error);
    return `the composition is not valid YAML: ${full.replace(/\n[\s\S]*$/, "")}`;
  }
  return entryListProblem(rows);
}
async function isFile(path) {
  try {
    return (await stat(path)).isFile();
  } catch {
    return false;
  }
}
async function scanRoot(root) {
  const dir = resolve(expandHomePath(root.path));
  let children;
  try {
    children = await readdir(dir, { withFileTypes: true });
  } catch (error) {
    if (error.code === "ENOENT") return [];
    throw new Error(`agent-presets: cannot read preset root ${dir}: ${String(error)}`, { cause: error });
  }
  const found = [];
  for (const child of children) {
    if (!child.isDirectory() || !PRESET_ID.test(child.name)) continue;
    const directory = join2(dir, child.name);
    const path = join2(directory, COMPOSITION_FILE);
    const broken = await isFile(path) ? await compositionProblem(path) : `the composition file ${COMPOSITION_FILE} is missing — the directory still occupies the id; delete it or restore the file`;
    const metadata = await readPresetMetadata(directory);
    found.push({
      id: child.name,
      trust: root.trust,
      path,
      ...metadata,
      ...broken === void 0 ? {} : { broken }
    });
  }
  return found.sort((left, right) => {
    const byOrder = (left.order ?? Number.POSITIVE_INFINITY) - (right.order ?? Number.POSITIVE_INFINITY);
    return byOrder === 0 ? left.id.localeCompare(right.id) : byOrder;
  });
}
async function discoverPresets(roots) {
  const byId = /* @__PURE__ */ new Map();
  for (const root of roots) {
    for (const preset of await scanRoot(root)) {
      if (byId.has(preset.id)) continue;
      byId.set(preset.id, preset);
    }
  }
  return [...byId.values()];
}

// src/authoring.ts
import { chmod, cp, readdir as readdir2, readFile as readFile3, rm, stat as stat2 } from "node:fs/promises";
import { dirname, isAbsolute, join as join3, resolve as resolve2 } from "node:path";
import { writeFileAtomic } from "@deepseek-ai/dsh-atomic-write";
import { expandHomePath as expandHomePath2 } from "@deepseek-ai/dsh-home-paths";
var InvalidPresetIdError = class extends Error {
  constructor(presetId) {
    super(
      `agent-presets: preset id ${JSON.stringify(presetId)} must match ${String(PRESET_ID)} — the id is a directory name, so anything else could escape the preset root`
    );
    this.presetId = presetId;
  }
  presetId;
};
var PresetExistsError = class extends Error {
  constructor(presetId) {
    super(
      `agent-presets: preset "${presetId}" already exists — a copy never overwrites; delete the existing preset first or choose another id`
    );
    this.presetId = presetId;
  }
  presetId;
};
var PresetNotWritableError = class extends Error {
  constructor(presetId, reason) {
    super(`agent-presets: preset "${presetId}" cannot be written: ${reason}`);
    this.presetId = presetId;
  }
  presetId;
};
function writableRoot(roots) {
  const root = roots.find((candidate) => candidate.trust === "user");
  if (root === void 0) {
    throw new PresetNotWritableError("", "this deployment configures no user-writable preset root");
  }
  return resolve2(expandHomePath2(root.path));
}
async function readComposition(preset) {
  return await readFile3(preset.path, "utf8");
}
async function occupied(path) {
  let present = true;
  try {
    await stat2(path);
  } catch {
    present = false;
  }
  return present;
}
async function tightenModes(dir) {
  await chmod(dir, 448);
  for (const entry of await readdir2(dir, { withFileTypes: true })) {
    const target = join3(dir, entry.name);
    if (entry.isDirectory()) {
      await tightenModes(target);
    } else {
      await chmod(target, ((await stat2(target)).mode & 64) === 0 ? 384 : 448);
    }
  }
}
async function copyComposition(roots, source, id, name) {
  if (!PRESET_ID.test(id)) throw new InvalidPresetIdError(id);
  const dir = join3(writableRoot(roots), id);
  if (await occupied(dir)) throw new PresetExistsError(id);
  try {
    await cp(dirname(source.path), dir, {
      recursive: true,
      dereference: true,
      force: false,
      errorOnExist: true
    });
    await tightenModes(dir);
    const rendered = renderPresetMetadata({
      ...name === void 0 ? {} : { name },
      ...source.description === void 0 ? {} : { description: source.description }
    });
    const metadataPath = join3(dir, METADATA_FILE);
    if (rendered === void 0) {
      await rm(metadataPath, { force: true });
    } else {
      await writeFileAtomic(metadataPath, rendered, { mode: 384, dirMode: 448 });
    }
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
  return dir;
}
async function deleteComposition(roots, preset) {
  if (preset.trust !== "user") {
    throw new PresetNotWritableError(preset.id, "it ships with the deployment");
  }
  const dir = join3(writableRoot(roots), preset.id);
  if (!isAbsolute(preset.path) || !preset.path.startsWith(dir)) {
    throw new PresetNotWritableError(preset.id, "it does not live under the writable preset root");
  }
  await rm(dir, { recursive: true, force: true });
}

// src/mount.ts
import { isAbsolute as isAbsolute2 } from "node:path";
import { pathToFileURL } from "node:url";
import { Context } from "@deepseek-ai/cordis";
import { Include } from "@deepseek-ai/cordis-plugin-include";
import { scopeOf, scopeParentOf } from "@deepseek-ai/dsh-scope";
var mounted = /* @__PURE__ */ new WeakMap();
var harnessBase = /* @__PURE__ */ new WeakMap();
var PresetTree = class extends Include {
  constructor(ctx, config) {
    super(ctx, config);
    mounted.set(config, { tree: this, fiber: ctx.fiber });
  }
  /**
   * Resolve a bare specifier from the harness rather than from the preset.
   *
   * `EntryTree.import()` resolves against the tree's own `baseUrl`, which
   * `Include` sets to the composition's directory. That is right for a
   * relative specifier — a preset's own files travel with it — and wrong for
   * a package name: a locally authored preset lives under the user's home,
   * where Node's upward `node_modules` walk never reaches the harness's own
   * dependencies, so every `@deepseek-ai/dsh-*` row would fail to import. The
   * mount records the host composition's base instead, which is inside the
   * installed harness, and bare names resolve from there. An absolute
   * filesystem path names neither base and becomes a file URL before Node's
   * ESM loader receives it, which is required for drive-letter paths on
   * Windows.
   * @param name - the module specifier from the row.
   * @param getOuterStack - the loader's stack composer for import diagnostics.
   * @returns the imported module, or the `cordis:` builtin.
   */
  import(name, getOuterStack) {
    const specifier = isAbsolute2(name) ? pathToFileURL(name).href : name;
    const base = harnessBase.get(this.config);
    if (base === void 0) return super.import(specifier, getOuterStack);
    if (name.startsWith(".") || name.startsWith("cordis:")) return super.import(name, getOuterStack);
    const internal = this.ctx.loader.internal;
    if (internal === void 0) return super.import(specifier, getOuterStack);
    return internal.import(specifier, base, {});
  }
  /**
   * A preset is an input, never a persistence target.
   *
   * The Loader writes a tree back through this method whenever it decides the
   * config changed — a plugin self-disposing is enough, and tearing an agent
   * down disposes its whole subtree. Inherited, that rewrites the preset file
   * with whatever the dying tree held, which in practice means truncating a
   * shipped composition to `[]` the first time a session ends. Persisting a
   * preset is also meaningless: nothing here is user state, and the same file
   * backs every session that names it.
   *
   * Dropping the write drops the `loader/config-update` the inherited method
   * emits with it. Nothing observes one for a preset subtree today, and a
   * future "edit your preset while it runs" flow needs a deliberate
   * persistence path rather than this method's return.
   */
  write() {
  }
};
var mounts = /* @__PURE__ */ new Set();
function pruneDisposedMounts() {
  for (const mount of mounts) {
    if (mount.fiber.uid === null) mounts.delete(mount);
  }
}
function livePresetMounts() {
  pruneDisposedMounts();
  return [...mounts];
}
function withinFiber(fiber, root) {
  let current = fiber;
  while (true) {
    if (current === root) return true;
    const parent = current.parent.fiber;
    if (parent === current) return false;
    current = parent;
  }
}
function leakedServices(ctx, mount) {
  const store = ctx.reflect.store;
  const rootIsolate = ctx.root[Context.isolate];
  const leaked = [];
  for (const key of Object.getOwnPropertySymbols(store)) {
    const impl = store[key];
    if (impl === void 0) continue;
    if (!withinFiber(impl.fiber, mount)) continue;
    if (rootIsolate[impl.name] === key) leaked.push(impl.name);
  }
  return leaked.sort((left, right) => left.localeCompare(right));
}
function standingMountFor(agentCtx) {
  const agentKey = scopeOf(agentCtx);
  if (agentKey === void 0) return void 0;
  const standingKey = scopeParentOf(agentKey);
  if (standingKey === void 0) return void 0;
  return livePresetMounts().find(
    (candidate) => candidate.key === standingKey
  );
}
function serviceForAgent(ctx, agent, name) {
  const mount = standingMountFor(agent.ctx);
  if (mount === void 0) return void 0;
  const store = ctx.reflect.store;
  for (const key of Object.getOwnPropertySymbols(store)) {
    const impl = store[key];
    if (impl === void 0) continue;
    if (impl.name !== name) continue;
    if (withinFiber(impl.fiber, mount.fiber)) return impl.value;
  }
  return void 0;
}
function inactiveRows(tree) {
  const lines = [];
  for (const entry of tree.entries()) {
    if (entry.disabled) continue;
    const fiber = entry.fiber;
    if (fiber === void 0) {
      lines.push(`${entry.options.id} (${entry.options.name}): never started`);
      continue;
    }
    const missing = Object.keys(fiber.inject).filter((name) => fiber.ctx.get(name) === void 0);
    if (missing.length > 0) {
      lines.push(`${entry.options.id} (${entry.options.name}): waiting for ${missing.join(", ")}`);
    }
  }
  return lines;
}
function mountDetail(error) {
  if (!(error instanceof Error)) return String(error);
  if (!(error instanceof AggregateError)) return error.message;
  return [error.message, ...error.errors.map((cause) => `- ${mountDetail(cause)}`)].join("\n");
}
async function mountPreset(agentCtx, preset) {
  const scope = scopeOf(agentCtx);
  if (scope === void 0) {
    throw new Error(
      `agent-presets: refusing to mount preset "${preset.id}" into an unscoped context; its registrations would apply to every agent in the process`
    );
  }
  const config = { path: pathToFileURL(preset.path).href };
  if (agentCtx.baseUrl !== void 0) harnessBase.set(config, agentCtx.baseUrl);
  pruneDisposedMounts();
  const handle = agentCtx.plugin(PresetTree, config);
  try {
    await handle.await();
    const subtree = mounted.get(config);
    if (subtree === void 0) throw new Error("mounted subtree did not publish its entry tree");
    const { tree, fiber } = subtree;
    const unusable = inactiveRows(tree);
    if (unusable.length > 0) {
      throw new Error(`${String(unusable.length)} row(s) did not activate:
${unusable.join("\n")}`);
    }
    const leaked = leakedServices(agentCtx, fiber);
    if (leaked.length > 0) {
      throw new Error(
        `row(s) published process-global service(s) [${leaked.join(", ")}]; a preset service must sit behind an \`isolate\` realm or move to the host composition`
      );
    }
    mounts.add({ presetId: preset.id, fiber, key: scopeOf(agentCtx) });
  } catch (error) {
    try {
      await handle.dispose();
    } catch {
    }
    throw new PresetMountError(preset.id, `${mountDetail(error)} (${preset.path})`, { cause: error });
  }
}

// src/session.ts
function resolveSessionPreset(session) {
  for (let index = session.events.length - 1; index >= 0; index -= 1) {
    const event = session.events[index];
    if (event?.type === "agent-preset/selected") return event.data.agentPreset;
  }
  return session.header.agentPreset;
}

// src/index.ts
var SETTINGS_NAMESPACE = "agent-presets";
var AgentPresetSettingsSchema = z.object({
  default: z.string()
});
var AgentPresets = class extends Service {
  constructor(ctx, config) {
    super(ctx, "agentPresets");
    this.config = config;
    this.selfCtx = ctx;
    this.resolvedRoots = config.includeUserRoot ? [...config.roots, { path: dshHomePath(USER_PRESET_DIR), trust: "user" }] : [...config.roots];
    ctx.inject(["settings"], (settingsCtx) => {
      this.settings = settingsCtx.settings.register(
        settingsNamespace(SETTINGS_NAMESPACE),
        AgentPresetSettingsSchema,
        { base: { default: config.default } }
      );
      this.settingsService = settingsCtx.settings;
      settingsCtx.effect(() => () => {
        this.settings = void 0;
        this.settingsService = void 0;
      }, "agentPresets.settings()");
    });
    ctx.on("agent/created", ({ agent }) => {
      if (this.resolvedRoots.length === 0) return;
      if (this.composedPreset(agent.ctx) !== void 0) return;
      ctx.logger.warn(
        `agent "${agent.id}" was published without joining an agent preset; its tools, prompt sections, and skill catalog resolve against the empty global layer (join through AgentPresets.mount() or composeFrom() in the agent factory setup)`
      );
    });
    ctx.on("session/event", (session, event) => {
      if (event.type !== "agent-preset/selected") return;
      ctx.emit("agent-preset/selected", session.id, event.data.agentPreset);
    });
  }
  config;
  static inject = ["loader"];
  /** Runtime schema for the preset roster. */
  static Config = z.object({
    default: z.string().required(),
    roots: z.array(z.object({
      path: z.string().required(),
      trust: z.union(["system", "user"]).default("user")
    })).default([]),
    includeUserRoot: z.boolean().default(true)
  });
  /**
   * The roots discovery and authoring actually scan: every configured root in
   * order, then the harness-home user root unless `includeUserRoot` is false.
   *
   * Derived once, because a root set that changed between `list()` and the
   * `copy()` acting on its answer would author into a directory the caller
   * never saw. Appending rather than prepending keeps an earlier configured
   * root winning a duplicate id, so a shipped preset still shadows a
   * locally authored directory that claimed its name.
   */
  resolvedRoots;
  /**
   * The user layer over `config.default`, present only while a settings
   * provider is composed. Held rather than snapshotted so a hot-reloaded
   * document takes effect without a restart.
   */
  settings;
  /**
   * The settings service behind {@link settings}, held for the one write this
   * service makes: clearing a user default it has just deleted.
   */
  settingsService;
  /**
   * The service's own untraced context. Methods invoked through the traceable
   * proxy see `this.ctx` rebound to the CALLER's context, which carries a
   * shadow; a subtree minted from it resolves every service through that
   * shadow's fiber instead of each entry's own inject store, so preset rows
   * would fail on the very services they declare. Standing mounts must hang
   * off the untraced original (the `jobs-local` selfCtx precedent).
   */
  selfCtx;
  /**
   * The preset id mounted when a caller names none.
   *
   * Read per call rather than cached: the settings document is hot-reloaded, so
   * changing the default takes effect on the next session created and leaves
   * every running session on the preset it was composed from.
   */
  get defaultId() {
    return this.settings?.get().default ?? this.config.default;
  }
  /**
   * Every preset the configured roots currently supply.
   * @returns the presets, first-root-wins per id.
   */
  async list() {
    return await discoverPresets(this.resolvedRoots);
  }
  /**
   * Resolve one preset by id.
   *
   * A broken preset resolves — deleting one, reading one, and reporting one
   * all need the row — and the mounting paths refuse it AFTER resolution
   * through {@link resolveMountable}.
   * @param id - the preset id, or `undefined` for {@link defaultId}.
   * @returns the resolved preset.
   * @throws when no configured root supplies that id.
   */
  async resolve(id) {
    const wanted = id ?? this.defaultId;
    const presets = await this.list();
    const found = presets.find((preset) => preset.id === wanted);
    if (found === void 0) {
      throw new UnknownPresetError(wanted, presets.map((preset) => preset.id));
    }
    return found;
  }
  /**
   * Resolve one preset that is about to compose an agent, refusing a broken
   * one with its discovery-reported reason. Failing here rather than inside
   * the loader keeps the answer the same for every unloadable shape — ghost
   * directory, unparsable YAML, rowless list — and spends no mount attempt
   * on a composition discovery already read as unusable.
   * @param id - the preset id, or `undefined` for {@link defaultId}.
   * @returns the resolved, mountable preset.
   * @throws when the preset is unknown or discovery reports it broken.
   */
  async resolveMountable(id) {
    const preset = await this.resolve(id);
    if (preset.broken !== void 0) {
      throw new PresetMountError(preset.id, preset.broken);
    }
    return preset;
  }
  /**
   * Standing mounts by preset id, single-flight so two agents racing the
   * first use of one preset share one composition. A settled failure is
   * removed so a later session retries a preset whose file has been fixed; a
   * settled success serves until the composition FILE visibly changes — each
   * generation records its file stamp, and a stale stamp starts the next
   * generation for sessions created afterwards. Sessions already joined keep
   * the generation they run on; a superseded one is never disposed while the
   * process lives (reclaimed only by whole-tree teardown), so editing files
   * is bounded by how often compositions change, not by session count.
   */
  standing = /* @__PURE__ */ new Map();
  /**
   * Parent bindings of the agents this roster composed, keyed by the agent's
   * scope key. The binding is dsh-scope's only re-link capability; holding it
   * here makes this service the sole authority that can move an agent between
   * standing compositions. WeakMap: entries die with their agents.
   */
  bindings = /* @__PURE__ */ new WeakMap();
  /**
   * Compose one agent from a preset: ensure the preset's standing mount, then
   * parent the agent's scope key to it so the mount's registrations and
   * listeners cover this agent.
   *
   * Call from the agent factory's `setup(agentCtx)`; a rejection there rolls
   * the agent creation back, so a broken preset never yields a half-composed
   * session.
   * @param agentCtx - the agent's scope context.
   * @param id - the preset id, or `undefined` for {@link defaultId}.
   * @returns the preset that was composed, for the caller to record.
   * @throws when the preset is unknown or its composition is unusable.
   */
  async mount(agentCtx, id) {
    const agentKey = scopeOf2(agentCtx);
    if (agentKey === void 0) {
      throw new Error("agent-presets: refusing to compose an unscoped context; the scope key is what joins an agent to its preset");
    }
    const preset = await this.resolveMountable(id);
    const standing = await this.ensureStanding(preset);
    this.bindings.set(agentKey, bindScopeParent(agentKey, standing.key));
    return preset;
  }
  /**
   * Join one agent to the SAME standing composition another already runs on.
   *
   * This is how a child agent inherits its parent's capabilities. It is a bind,
   * not a mount: the parent's generation is already composed, so the child gets
   * that exact instance — the same plugin objects, the same tool registrations,
   * the same prompt sections. Re-resolving the parent's preset by id instead
   * would re-read the roster, and a composition file edited since the parent
   * started would hand the child a DIFFERENT generation than the one its
   * parent's history was produced under (and a preset deleted since would fail
   * the child outright while its parent keeps running).
   *
   * Synchronous, and with no composition failure mode of its own — it reads no
   * roster, mounts nothing, and touches no file — which is what lets a child
   * creation window use it: the two in-process subagent drivers compose their
   * children inside a synchronous `setup`. It still rejects a caller error, as
   * the `@throws` below record.
   *
   * A parent that joined no preset — a rosterless deployment — yields no join
   * and no error: there, the model-facing rows sit in the host composition and
   * the child already sees them through the global layer.
   * @param agentCtx - the joining agent's scope context.
   * @param parentCtx - the scope context of the agent whose composition to join.
   * @returns the preset id joined, or undefined when the parent joined none.
   * @throws when `agentCtx` carries no scope, or has already joined a preset.
   */
  composeFrom(agentCtx, parentCtx) {
    const agentKey = scopeOf2(agentCtx);
    if (agentKey === void 0) {
      throw new Error("agent-presets: refusing to compose an unscoped context; the scope key is what joins an agent to its preset");
    }
    const standing = standingMountFor(parentCtx);
    if (standing === void 0) return void 0;
    this.bindings.set(agentKey, bindScopeParent(agentKey, standing.key));
    return standing.presetId;
  }
  /**
   * The preset one live agent runs on.
   *
   * Read from the live scope chain rather than from the session, so it answers
   * for an agent whose session has not recorded a preset yet — a child agent
   * whose durable header is being built from its parent's composition.
   * @param agentCtx - the agent's scope context.
   * @returns the preset id, or undefined when the agent joined none.
   */
  composedPreset(agentCtx) {
    return standingMountFor(agentCtx)?.presetId;
  }
  /**
   * The roots this roster scans, which is not `config.roots`: it is every
   * configured root in order, then the harness-home user root unless
   * `includeUserRoot` is false. Read this — not the config field — to answer
   * whether a roster is composed at all, so one derivation decides it.
   */
  get roots() {
    return this.resolvedRoots;
  }
  /** Whether this deployment has a root locally authored presets go to. */
  get authorable() {
    return this.resolvedRoots.some((root) => root.trust === "user");
  }
  /**
   * Read one preset's composition text.
   * @param id - the preset id.
   * @returns the composition exactly as stored.
   * @throws when no configured root supplies that id.
   */
  async read(id) {
    return await readComposition(await this.resolve(id));
  }
  /**
   * Create a locally authored preset by copying an existing one whole.
   *
   * Copy is the only authoring write. Composition text never crosses this
   * seam: the source is named by id and its directory is copied as it stands,
   * so the copy is exactly as loadable as its source and authoring grants no
   * capability the roster did not already carry. The copy is NOT mounted to
   * validate — a source that mounts today yields a copy that mounts today.
   * @param from - the preset the copy starts from; shipped presets are the
   * primary source, so any trust is accepted.
   * @param id - the new preset's id, which becomes its directory name.
   * @param name - display name for the copy; absent falls back to the id.
   * @throws when the source is unknown, the id is unusable or already taken,
   * or the deployment configures no writable root.
   */
  async copy(from, id, name) {
    const source = await this.resolve(from);
    if ((await this.list()).some((preset) => preset.id === id)) {
      throw new PresetExistsError(id);
    }
    await copyComposition(this.resolvedRoots, source, id, name);
    this.standing.delete(id);
  }
  /**
   * Delete a locally authored preset.
   * @param id - the preset id.
   * @throws when the preset is unknown or ships with the deployment.
   */
  async remove(id) {
    await deleteComposition(this.resolvedRoots, await this.resolve(id));
    this.standing.delete(id);
    if (this.settings?.get().default !== id) return;
    await this.settingsService?.mutate(
      settingsNamespace(SETTINGS_NAMESPACE),
      [{ op: "unset", path: ["default"] }]
    );
  }
  /**
   * One agent's instance of a service its preset mounted.
   *
   * A preset publishes services behind `isolate` realms, which are invisible
   * outside the group that declares them — including to the host. This is how a
   * caller holding the agent reads one anyway: a request that is ABOUT a
   * session but arrives from outside it, which is every browser RPC.
   *
   * Read addressing only. A host row that `inject`s a service cannot use this,
   * because injection resolves before any session exists and has no agent to
   * key by; such a service belongs on the host plane instead.
   * @param agent - the agent whose composition to look inside.
   * @param name - the service name as the preset's rows resolve it.
   * @returns the agent's instance, or undefined when its preset mounts none.
   */
  serviceFor(agent, name) {
    return serviceForAgent(this.ctx, agent, name);
  }
  /**
   * Re-link one agent to a different preset's standing composition.
   *
   * Only valid while the agent has produced nothing: swapping tools mid
   * conversation would leave logged tool calls the new composition cannot
   * make. The CALLER owns that check — this method does not read session
   * history.
   *
   * The swap is a parent re-link, not an unmount: standing mounts are shared
   * and permanent, so the old composition stays for its other agents and the
   * new one is ensured BEFORE the link moves. An unknown or unusable preset
   * therefore throws with the agent exactly as it was — there is no torn-down
   * state to restore. The re-link runs through the binding this roster kept
   * from the agent's mount — dsh-scope's only re-link authority. An agent
   * that never composed one has nothing to re-link: the switch is then the
   * agent's first bind, exactly a mount.
   * @param agentCtx - the agent's scope context.
   * @param id - the preset to compose the agent from instead.
   * @returns the preset now installed.
   * @throws when the preset is unknown or its composition is unusable.
   */
  async recompose(agentCtx, id) {
    const agentKey = scopeOf2(agentCtx);
    if (agentKey === void 0) {
      throw new Error("agent-presets: refusing to recompose an unscoped context");
    }
    const preset = await this.resolveMountable(id);
    const standing = await this.ensureStanding(preset);
    const binding = this.bindings.get(agentKey);
    if (binding === void 0) {
      this.bindings.set(agentKey, bindScopeParent(agentKey, standing.key));
    } else {
      binding.rebind(standing.key);
    }
    return preset;
  }
  /**
   * The standing scope key of one preset, for a host reader with no agent.
   *
   * A cold transcript read resolves tool presenters against the composition
   * the session recorded, and the standing mount makes that possible without
   * resuming anything: ensuring the mount composes plugins but starts no
   * agent, no session, and no turn.
   * @param id - the preset id, or `undefined` for {@link defaultId}.
   * @returns the standing scope key readers pass as a registry view scope.
   * @throws when the preset is unknown or its composition is unusable.
   */
  async standingKeyFor(id) {
    const preset = await this.resolveMountable(id);
    return (await this.ensureStanding(preset)).key;
  }
  /** Resolve (or create, single-flight) the standing mount of one preset. */
  async ensureStanding(preset) {
    const pending = this.standing.get(preset.id);
    if (pending !== void 0) {
      const mounted2 = await pending;
      const current = await compositionStamp(preset.path);
      if (current === void 0 || sameStamp(mounted2.stamp, current)) return mounted2;
      if (this.standing.get(preset.id) === pending) this.standing.delete(preset.id);
      return this.ensureStanding(preset);
    }
    const created = (async () => {
      const key = { agentPreset: preset.id };
      const scope = createScope(this.selfCtx, key);
      try {
        const stamp = await compositionStamp(preset.path);
        if (stamp === void 0) {
          throw new PresetMountError(preset.id, `composition file is unreadable: ${preset.path}`);
        }
        await mountPreset(scope.ctx, preset);
        return { key, scope, stamp };
      } catch (error) {
        this.standing.delete(preset.id);
        await scope.dispose();
        throw error;
      }
    })();
    this.standing.set(preset.id, created);
    return created;
  }
};
async function compositionStamp(path) {
  try {
    const { mtimeMs, size } = await stat3(path);
    return { mtimeMs, size };
  } catch {
    return void 0;
  }
}
function sameStamp(a, b) {
  return a.mtimeMs === b.mtimeMs && a.size === b.size;
}
var index_default = AgentPresets;
export {
  AgentPresetSettingsSchema,
  AgentPresets,
  COMPOSITION_FILE,
  InvalidPresetIdError,
  METADATA_FILE,
  PresetExistsError,
  PresetMountError,
  PresetNotWritableError,
  SETTINGS_NAMESPACE,
  UnknownPresetError,
  copyComposition,
  index_default as default,
  deleteComposition,
  discoverPresets,
  inactiveRows,
  leakedServices,
  livePresetMounts,
  mountPreset,
  readComposition,
  readPresetMetadata,
  renderPresetMetadata,
  resolveSessionPreset,
  scanRoot,
  serviceForAgent,
  standingMountFor,
  writableRoot
};
