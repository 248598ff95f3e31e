// ext/activate and the owner teardown it shares with ext/deactivate and faults.
//
// Activation: refuse an owner of the other tier (InvalidParams, before anything is read), a reused
// owner token (unless it is a further, new entry of the same live plugin), and an entry whose
// bytes changed since review; import the entry inside the owner's async context; refuse services
// the host does not provide; load the plugin with its config under a context tagged with the
// owner; then wait for the fiber, refuse PENDING child fibers, and wait for every registration's
// answer. All or nothing: any failure disposes everything the owner registered. The deadline
// always produces an answer, even when `apply` never settles.
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  effectLabels as fiberEffects, failed as fiberFailed, injectedNames, isPlugin, loadPlugin, ownerScope, pendingInjects,
  type Context, type Plugin,
} from './cordis-adapter.ts';
import { ErrorCode, type ActivateParams, type EntryRef, type Tier } from './protocol.generated.ts';
import { RpcError, describeError, errorMessage } from './rpc.ts';
import { BUILTIN_SERVICES, PROVIDED_SERVICES, refusalReason } from './root.ts';
import { explainImportError } from './dsh/resolve.ts';
import { importModule } from './importer.ts';
import { ownerContext, sameRef, type OwnerRecord } from './owner.ts';
import { runAs } from './running.ts';
import { isPlainObject } from './validate.ts';
import type { Registrar } from './shims/registrar.ts';
import { describeSyntax, pluginRoot, topFrame } from './where.ts';

export interface ActivateDeps {
  root: Context;
  registrar: Registrar;
  activateDeadlineMs: number;
  disposeDeadlineMs: number;
  owners: Map<string, OwnerRecord>;
}

type Answer = { status: 'ok'; tools: string[]; commands: string[] } | { status: 'failed'; diagnostic: string };

class ActivationError extends Error {
  override name = 'ActivationError';
}

/** Diagnostic is an activation failure whose message is already the whole diagnostic. */
class Diagnostic extends Error {
  override name = 'Diagnostic';
}

/** diagnosticOf is the text of an activation failure: said where, on one first line. */
function diagnosticOf(err: unknown): string {
  return err instanceof Diagnostic ? err.message : describeError(err);
}

const failed = (diagnostic: string): Answer => ({ status: 'failed', diagnostic });

export async function activateEntry(d: ActivateDeps, tier: Tier, params: ActivateParams): Promise<Answer> {
  const start = Date.now();
  const ref = params.owner;
  const isBuiltinOwner = ref.plugin_id.startsWith('host:');
  if (isBuiltinOwner && tier !== 'builtin') throw new RpcError(ErrorCode.InvalidParams, `owner \`${ref.plugin_id}\` belongs to the builtin tier`);
  if (!isBuiltinOwner && tier === 'builtin') throw new RpcError(ErrorCode.InvalidParams, `the builtin tier serves only host: owners, not \`${ref.plugin_id}\``);
  const entry = params.entry;
  const pluginName = params.plugin_name;
  const existing = d.owners.get(ref.owner_token);
  if (existing) {
    const further = sameRef(existing.ref, ref) && existing.pluginName === pluginName && existing.state === 'active'
      && existing.activatingEntry === undefined && !existing.entries.some((e) => e.path === entry.path);
    if (!further) return failed('Error: owner token already active');
  }
  const owner: OwnerRecord = existing ?? {
    ref: { plugin_id: ref.plugin_id, generation: ref.generation, owner_token: ref.owner_token },
    pluginName,
    ...(params.data_dir !== undefined ? { dataDir: params.data_dir } : {}),
    state: 'activating',
    entries: [],
    entryDirs: [],
    registrations: new Set(),
    history: [],
  };
  owner.activatingEntry = entry.path;
  owner.state = 'activating';
  owner.fault = undefined;
  owner.history = [];
  if (!existing) d.owners.set(ref.owner_token, owner);
  owner.entryDirs.push(dirname(entry.path));

  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<'timeout'>((r) => { timer = setTimeout(() => r('timeout'), d.activateDeadlineMs); });
  const work = load(d, owner, entry, params.config ?? {}).then(() => null, diagnosticOf);
  const stopped = new Promise<'stopped'>((r) => { owner.stopped = () => r('stopped'); });
  const outcome = await Promise.race([work, deadline, stopped]);
  clearTimeout(timer);
  owner.stopped = undefined;
  if (outcome === 'stopped') return failed('Error: the plugin was stopped during activation');
  if (outcome === null && owner.state !== 'activating') {
    // deactivated, shut down or faulted while its apply was still running
    return failed('Error: the plugin was stopped during activation');
  }
  if (outcome === null) {
    owner.state = 'active';
    owner.activatingEntry = undefined;
    owner.history = [];
    return { status: 'ok', ...admitted(owner) };
  }
  const diagnostic = outcome === 'timeout' ? `Error: activation exceeded ${d.activateDeadlineMs} ms` : outcome;
  d.owners.delete(ref.owner_token);
  const regs = owner.history;
  const teardown = disposeOwner(owner, d.registrar, d.disposeDeadlineMs)
    // a registration the core admits after its rollback is withdrawn then: wait for that too
    .then(() => Promise.all(regs.map((r) => r.admitted.then(() => r.withdrawn))));
  if (outcome !== 'timeout') {
    const budget = Math.min(d.disposeDeadlineMs, Math.max(250, start + d.activateDeadlineMs + 500 - Date.now()));
    await Promise.race([teardown, new Promise((r) => setTimeout(r, budget))]);
  }
  return failed(diagnostic);
}

async function load(d: ActivateDeps, owner: OwnerRecord, entry: EntryRef, config: unknown): Promise<void> {
  let bytes: Buffer;
  try {
    bytes = await readFile(entry.path);
  } catch (err) {
    throw new ActivationError(`cannot read entry ${entry.path}: ${errorMessage(err)}`);
  }
  const digest = createHash('sha256').update(bytes).digest('hex');
  if (digest !== entry.sha256.toLowerCase()) {
    throw new ActivationError(`entry ${entry.path} changed after review (sha256 ${digest.slice(0, 12)}…)`);
  }
  let mod: unknown;
  try {
    mod = await ownerContext.run(owner, () => importModule(pathToFileURL(entry.path).href));
  } catch (err) {
    const where = describeSyntax(err, entry.path);
    if (where !== undefined) throw new Diagnostic(where);
    throw explainImportError(err);
  }
  const plugin = pickPlugin(mod);
  const refused = configIssues(plugin, config);
  if (refused.length > 0) throw new Diagnostic(`config refused: ${refused.join('; ')}`);
  const builtin = owner.ref.plugin_id.startsWith('host:'); // activateEntry refused a host: owner on the plugin tier
  const missing = injectedNames(plugin).filter((n) => !PROVIDED_SERVICES.has(n) && !(builtin && BUILTIN_SERVICES.has(n)));
  if (missing[0] !== undefined) throw new ActivationError(unprovided(missing[0]));
  const ctx = owner.ctx ??= ownerScope(d.root, owner);
  const fiber = runAs(owner, () => ownerContext.run(owner, () => loadPlugin(ctx, plugin, config)));
  owner.entries.push({ path: entry.path, fiber });
  try {
    await fiber;
  } catch (err) {
    const at = topFrame(err, pluginRoot(entry.path));
    throw at === undefined ? err : new Diagnostic(`apply threw: ${describeError(err)} (at ${at})`);
  }
  if (fiberFailed(fiber)) throw new ActivationError('the plugin failed while loading');
  const pending = pendingChildren(d.root, owner);
  if (pending) throw new ActivationError(pending);
  const regs = [...owner.registrations].filter((r) => r.entry === entry.path);
  await Promise.all(regs.map((r) => r.admitted));
  const refusals = regs.flatMap((r) => (r.refused ? [r.refused] : []));
  if (refusals.length > 0) throw new ActivationError(refusals.join('; '));
  if (owner.fault) throw new ActivationError(`fault during activation: ${owner.fault}`);
}

const SCHEMA = Symbol.for('schemastery');
const VALIDATION = Symbol.for('ValidationError');

type SchemaFn = ((value: unknown) => unknown) & { type?: unknown; dict?: unknown };

/** isSchema holds for a schemastery schema: a function carrying the library's brand. */
function isSchema(v: unknown): v is SchemaFn {
  return typeof v === 'function' && Boolean(Reflect.get(v, SCHEMA));
}

/** isValidationError holds for the error a schemastery check throws. */
function isValidationError(err: unknown): boolean {
  return typeof err === 'object' && err !== null && Boolean(Reflect.get(err, VALIDATION));
}

/**
 * configIssues checks config against the plugin's schemastery `Config` before `apply` runs,
 * and reports every problem, not the first: each key of an object schema on its own, and
 * every key the schema does not know, with the nearest known one.
 */
function configIssues(plugin: Plugin, config: unknown): string[] {
  const s: unknown = Reflect.get(plugin, 'Config') ?? Reflect.get(plugin, 'schema');
  if (!isSchema(s)) return [];
  const check = (fn: SchemaFn, value: unknown, key: string): string | undefined => {
    try {
      fn(value);
      return undefined;
    } catch (err) {
      if (!isValidationError(err)) return `${key || 'config'}: ${describeError(err)}`;
      const msg = errorMessage(err).replace(/^\$\.?(\S*) /, (_m, p: string) => (p ? `${key ? key + '.' : ''}${p}: ` : `${key}: `));
      return msg.includes(': ') ? msg : `${key || 'config'}: ${msg}`;
    }
  };
  if (s.type !== 'object' || !isPlainObject(s.dict) || !isPlainObject(config)) {
    const one = check(s, config, '');
    return one === undefined ? [] : [one];
  }
  const dict = s.dict;
  const issues: string[] = [];
  for (const [key, fn] of Object.entries(dict)) {
    const one = isSchema(fn) ? check(fn, config[key], key) : `${key}: the schema of this key is not a schemastery schema`;
    if (one !== undefined) issues.push(one);
  }
  const known = Object.keys(dict);
  for (const key of Object.keys(config).sort()) {
    if (Object.hasOwn(dict, key)) continue;
    const near = nearest(key, known);
    issues.push(`unknown key \`${key}\`${near ? ` (did you mean \`${near}\`?)` : ''}`);
  }
  return issues;
}

/** nearest is the known name closest to name within a third of its length, or undefined. */
function nearest(name: string, known: string[]): string | undefined {
  let best: string | undefined;
  let bestD = Math.max(1, Math.floor(name.length / 3)) + 1;
  for (const k of known) {
    const d = distance(name.toLowerCase(), k.toLowerCase());
    if (d < bestD) [best, bestD] = [k, d];
  }
  return best;
}

/** distance is the Levenshtein distance of a and b (adjacent transpositions count once). */
function distance(a: string, b: string): number {
  // one row-major table of (a.length + 1) × (b.length + 1); every cell read was written before
  const w = b.length + 1;
  const d = new Array<number>((a.length + 1) * w).fill(0);
  const at = (i: number, j: number): number => d[i * w + j] ?? 0;
  for (let i = 0; i <= a.length; i++) d[i * w] = i;
  for (let j = 0; j <= b.length; j++) d[j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let v = Math.min(at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) v = Math.min(v, at(i - 2, j - 2) + 1);
      d[i * w + j] = v;
    }
  }
  return at(a.length, b.length);
}

function pickPlugin(mod: unknown): Plugin {
  const candidate = isPlainObject(mod) ? (mod.default ?? mod) : mod;
  if (isPlugin(candidate)) return candidate;
  throw new ActivationError('entry module exports no Cordis plugin (a function, a class, or an object with `apply`)');
}

/** unprovided is the refusal of an injected service the host does not provide, with the compatibility table's reason when it has one. */
function unprovided(name: string): string {
  const why = refusalReason(name);
  return `requires \`${name}\`, which the cwx extension host does not provide${why === undefined ? '' : ` (${why})`}`;
}

/** pendingChildren finds fibers of the owner still waiting for a service nobody provides. */
function pendingChildren(root: Context, owner: OwnerRecord): string | null {
  const injects = pendingInjects(root, owner);
  if (injects === undefined) return null;
  const names = injects.filter((n) => !PROVIDED_SERVICES.has(n));
  return names[0] === undefined ? 'requires `an unavailable service`, which the cwx extension host does not provide' : unprovided(names[0]);
}

function admitted(owner: OwnerRecord): { tools: string[]; commands: string[] } {
  const live = [...owner.registrations].filter((r) => r.handle !== undefined && !r.undone);
  const names = (k: string) => [...new Set(live.filter((r) => r.kind === k).map((r) => r.name))].sort();
  return { tools: names('tool'), commands: names('command') };
}

/** disposeOwner disposes an owner's fibers in reverse order within the deadline. */
export async function disposeOwner(owner: OwnerRecord, registrar: Registrar, deadlineMs: number): Promise<boolean> {
  owner.state = 'disposing';
  owner.stopped?.();
  let disposed = true;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<void>((r) => { timer = setTimeout(() => { disposed = false; r(); }, deadlineMs); });
  const work = (async () => {
    for (const e of [...owner.entries].reverse()) {
      try {
        await runAs(owner, () => ownerContext.run(owner, () => e.fiber.dispose())); // a disposer's lines are the owner's
      } catch {
        // Cordis reports disposer errors through the logger
      }
    }
  })();
  await Promise.race([work, timeout]);
  clearTimeout(timer);
  owner.state = 'gone';
  owner.leakedEffects = effectLabels(owner);
  registrar.forget(owner);
  return disposed;
}

function effectLabels(owner: OwnerRecord): string[] {
  const out: string[] = [];
  for (const e of owner.entries) {
    for (const effect of fiberEffects(e.fiber)) {
      const label = effect ?? '(unlabelled)';
      if (/^(tools|commands)\.register\(/.test(label)) continue;
      out.push(`effect:${label}`);
    }
  }
  return out;
}

/** leakedOf names what an owner left behind: registrations never withdrawn and live effects. */
export function leakedOf(owner: OwnerRecord): string[] {
  const regs = [...owner.registrations].filter((r) => !r.undone).map((r) => `${r.kind}:${r.name}`);
  return [...regs, ...(owner.leakedEffects ?? [])];
}
