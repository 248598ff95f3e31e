// Owners: one record per activation (OwnerRef from the core). Every fiber, effect, timer and
// callback a plugin creates runs inside its owner's async context, so faults and log lines are
// attributed to the plugin that caused them.
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Context, Fiber } from './cordis-adapter.ts';
import type { OwnerRef } from './protocol.generated.ts';

export type RegKind = 'tool' | 'command' | 'prompt_section' | 'hook';

/** Registration is one tool or command an owner asked the core to admit. */
export interface Registration {
  kind: RegKind;
  name: string;
  owner: OwnerRecord;
  /** the object the plugin registered, read again at every call (a plugin's own shape). */
  def: Readonly<Record<string, unknown>>;
  handle?: number;
  /** settled once the core answered registry/register. */
  admitted: Promise<void>;
  refused?: string;
  undone: boolean;
  /** the registry/unregister exchange, once the registration is withdrawn from the core. */
  withdrawn?: Promise<void>;
  /** entry path that registered it (for per-entry deactivation). */
  entry: string;
}

export interface EntryFiber {
  path: string;
  fiber: Fiber;
}

export interface OwnerRecord {
  ref: OwnerRef;
  pluginName: string;
  dataDir?: string;
  state: 'activating' | 'active' | 'disposing' | 'gone';
  entries: EntryFiber[];
  entryDirs: string[];
  registrations: Set<Registration>;
  /** every registration made during the current activation, withdrawn or not. */
  history: Registration[];
  /** a fault raised while the owner was activating, reported by ext/activate. */
  fault?: string | undefined;
  /** effects still registered after teardown. */
  leakedEffects?: string[];
  /** the child context every fiber of this owner is loaded under. */
  ctx?: Context;
  /** stopped is called when the owner is torn down (ends a pending activation at once). */
  stopped?: (() => void) | undefined;
  /** the entry path currently being activated. */
  activatingEntry?: string | undefined;
}

export const ownerContext = new AsyncLocalStorage<OwnerRecord>();

export function sameRef(a: OwnerRef, b: OwnerRef): boolean {
  return a.plugin_id === b.plugin_id && a.generation === b.generation && a.owner_token === b.owner_token;
}
