// The `storage` service: owner-local plain JSON kept in the directory the core assigned to the
// plugin (ARCHITECTURE.md, “Owner-local storage”). One file per key, `<data_dir>/storage/<key>.json`:
//
//   - a key matches KEY_RE; a value is plain JSON (null, booleans, finite numbers, strings, arrays,
//     plain objects) of at most MAX_VALUE bytes encoded, and an owner keeps at most MAX_OWNER bytes;
//   - a write replaces its key atomically: a temporary file is written, fsynced and renamed over
//     the key, then the directory is fsynced, so a host killed mid-write leaves the old value;
//   - a symlink (the folder or a key) is never followed and a file that is not JSON is refused
//     as corrupt, never repaired;
//   - every operation of an owner runs after the previous one (writes are serialized per owner),
//     and only while the owner is activating or active.
//
// There is no protocol method: the core checks the quota when it activates the owner.
import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { lstat, mkdir, open, readdir, rename, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { Service, type Context } from '@deepseek-ai/cordis';
import { ownerOf } from '../cordis-adapter.ts';
import type { OwnerRecord } from '../owner.ts';

export const KEY_RE = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$/;
export const MAX_VALUE = 64 * 1024;
export const MAX_OWNER = 1024 * 1024;
const MAX_DEPTH = 64;
const TMP = '.tmp-';
const SUFFIX = '.json';

/** StorageError is every refusal of the storage service. */
export class StorageError extends Error {
  override name = 'StorageError';
}
Object.freeze(StorageError.prototype);

/** plainJSON refuses what JSON would change or drop; it returns the encoded value. */
function encode(key: string, value: unknown): string {
  const check = (v: unknown, depth: number): void => {
    if (depth > MAX_DEPTH) throw new StorageError(`storage.set: value of \`${key}\` nests deeper than ${MAX_DEPTH}`);
    if (v === null || typeof v === 'string' || typeof v === 'boolean') return;
    if (typeof v === 'number') {
      if (!Number.isFinite(v)) throw new StorageError(`storage.set: value of \`${key}\` holds a number JSON cannot keep (${String(v)})`);
      return;
    }
    if (Array.isArray(v)) {
      for (const x of v) check(x, depth + 1);
      return;
    }
    if (typeof v === 'object') {
      const proto: unknown = Object.getPrototypeOf(v);
      if (proto !== Object.prototype && proto !== null) throw new StorageError(`storage.set: value of \`${key}\` holds an object that is not plain JSON`);
      for (const x of Object.values(v)) check(x, depth + 1);
      return;
    }
    throw new StorageError(`storage.set: value of \`${key}\` holds a ${typeof v}, which is not JSON`);
  };
  check(value, 0);
  const text = JSON.stringify(value);
  const n = Buffer.byteLength(text, 'utf8');
  if (n > MAX_VALUE) throw new StorageError(`storage.set: value of \`${key}\` is ${n} bytes; the limit is ${MAX_VALUE}`);
  return text;
}

function checkKey(method: string, key: unknown): string {
  if (typeof key !== 'string' || !KEY_RE.test(key)) {
    throw new StorageError(`storage.${method}: key ${JSON.stringify(key)} must match ${KEY_RE.source}`);
  }
  return key;
}

/** errnoCode is the `code` of a Node system error (ENOENT, ELOOP, ...), or undefined. */
function errnoCode(err: unknown): unknown {
  return typeof err === 'object' && err !== null ? Reflect.get(err, 'code') : undefined;
}

function isMissing(err: unknown): boolean {
  return errnoCode(err) === 'ENOENT';
}

/** Store is one owner's folder. */
class Store {
  private tail: Promise<unknown> = Promise.resolve();
  readonly owner: OwnerRecord;
  readonly dir: string;

  constructor(owner: OwnerRecord, dataDir: string) {
    this.owner = owner;
    this.dir = join(dataDir, 'storage');
  }

  /** run queues op after every earlier operation of this owner. */
  run<T>(method: string, op: () => Promise<T>): Promise<T> {
    const next = this.tail.then(() => {
      this.live(method);
      return op();
    });
    this.tail = next.catch(() => undefined);
    return next;
  }

  live(method: string): void {
    const s = this.owner.state;
    if (s !== 'activating' && s !== 'active') {
      throw new StorageError(`storage.${method}: plugin ${this.owner.ref.plugin_id} is not active`);
    }
  }

  /** folder checks the folder is a real directory; create makes it when it is missing. */
  async folder(create: boolean): Promise<boolean> {
    try {
      const st = await lstat(this.dir);
      if (st.isSymbolicLink() || !st.isDirectory()) throw new StorageError(`storage: ${this.dir} is not a directory (a symlink is never followed)`);
      return true;
    } catch (err) {
      if (!isMissing(err)) throw err;
      if (!create) return false;
      await mkdir(this.dir, { mode: 0o700 });
      return true;
    }
  }

  file(key: string): string {
    return join(this.dir, key + SUFFIX);
  }

  async get(key: string): Promise<unknown> {
    if (!(await this.folder(false))) return undefined;
    let fh;
    try {
      fh = await open(this.file(key), constants.O_RDONLY | constants.O_NOFOLLOW);
    } catch (err) {
      if (isMissing(err)) return undefined;
      if (errnoCode(err) === 'ELOOP') throw new StorageError(`storage.get: \`${key}\` is a symlink; it is never followed`);
      throw err;
    }
    try {
      const st = await fh.stat();
      if (!st.isFile() || st.size > MAX_VALUE) throw new StorageError(`storage.get: \`${key}\` is corrupt (not a file of at most ${MAX_VALUE} bytes); delete it`);
      const text = (await fh.readFile()).toString('utf8');
      try {
        return JSON.parse(text);
      } catch {
        throw new StorageError(`storage.get: \`${key}\` is corrupt (not JSON); delete it`);
      }
    } finally {
      await fh.close();
    }
  }

  /** usage is the bytes every key but skip holds; it removes temporaries a killed write left. */
  async usage(skip: string): Promise<number> {
    let total = 0;
    for (const name of await readdir(this.dir)) {
      const path = join(this.dir, name);
      if (name.startsWith(TMP)) {
        await unlink(path).catch(() => undefined);
        continue;
      }
      if (name === skip + SUFFIX) continue;
      total += (await lstat(path)).size;
    }
    return total;
  }

  async set(key: string, text: string): Promise<void> {
    await this.folder(true);
    await this.refuseLink('set', key);
    const size = Buffer.byteLength(text, 'utf8');
    const used = await this.usage(key);
    if (used + size > MAX_OWNER) {
      throw new StorageError(`storage.set: \`${key}\` would make plugin ${this.owner.ref.plugin_id}'s storage ${used + size} bytes; the limit is ${MAX_OWNER}`);
    }
    const tmp = join(this.dir, `${TMP}${key}-${randomBytes(6).toString('hex')}`);
    const fh = await open(tmp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
    try {
      await fh.writeFile(text, 'utf8');
      await fh.sync();
    } catch (err) {
      await fh.close();
      await unlink(tmp).catch(() => undefined);
      throw err;
    }
    await fh.close();
    try {
      this.live('set');
      await rename(tmp, this.file(key));
    } catch (err) {
      await unlink(tmp).catch(() => undefined);
      throw err;
    }
    await this.syncDir();
  }

  async delete(key: string): Promise<boolean> {
    if (!(await this.folder(false))) return false;
    try {
      await unlink(this.file(key)); // a symlink key is removed itself, never followed
    } catch (err) {
      if (isMissing(err)) return false;
      throw err;
    }
    await this.syncDir();
    return true;
  }

  async list(): Promise<string[]> {
    if (!(await this.folder(false))) return [];
    const keys: string[] = [];
    for (const name of await readdir(this.dir)) {
      if (!name.endsWith(SUFFIX)) continue;
      const key = name.slice(0, -SUFFIX.length);
      if (KEY_RE.test(key)) keys.push(key);
    }
    return keys.sort();
  }

  private async refuseLink(method: string, key: string): Promise<void> {
    try {
      if ((await lstat(this.file(key))).isSymbolicLink()) throw new StorageError(`storage.${method}: \`${key}\` is a symlink; it is never followed`);
    } catch (err) {
      if (!isMissing(err)) throw err;
    }
  }

  private async syncDir(): Promise<void> {
    const dh = await open(this.dir, constants.O_RDONLY);
    try {
      await dh.sync();
    } catch {
      // a directory fsync is not supported everywhere; the rename itself is atomic
    } finally {
      await dh.close();
    }
  }
}

/** StorageMethods are the `storage` service's methods (cwx-plugin.d.ts declares them to authors). */
export interface StorageMethods {
  get(key: unknown): Promise<unknown>;
  set(key: unknown, value: unknown): Promise<void>;
  delete(key: unknown): Promise<boolean>;
  list(): Promise<string[]>;
}

export function defineStorage(): new (ctx: Context) => Service {
  const stores = new WeakMap<OwnerRecord, Store>();
  const storeOf = (ctx: Context, method: string): Store => {
    const owner = ownerOf(ctx);
    if (!owner) throw new StorageError(`storage.${method}: only a plugin has storage`);
    if (owner.dataDir === undefined) throw new StorageError(`storage.${method}: the core assigned plugin ${owner.ref.plugin_id} no data directory`);
    let s = stores.get(owner);
    if (!s) {
      s = new Store(owner, owner.dataDir);
      stores.set(owner, s);
    }
    return s;
  };

  class Storage extends Service implements StorageMethods {
    constructor(ctx: Context) {
      super(ctx, 'storage');
    }
    /** get is the key's value, or undefined when it has none. */
    get(key: unknown): Promise<unknown> {
      return this.op('get', key, (s, k) => s.get(k));
    }
    /** set replaces the key's value atomically; value must be plain JSON. */
    set(key: unknown, value: unknown): Promise<void> {
      return this.op('set', key, (s, k) => {
        const text = encode(k, value);
        return s.set(k, text);
      });
    }
    /** delete removes the key; it reports whether there was one. */
    delete(key: unknown): Promise<boolean> {
      return this.op('delete', key, (s, k) => s.delete(k));
    }
    /** list is every key, sorted. */
    list(): Promise<string[]> {
      try {
        const s = storeOf(this.ctx, 'list');
        return s.run('list', () => s.list());
      } catch (err) {
        return Promise.reject(err);
      }
    }
    private op<T>(method: string, key: unknown, fn: (s: Store, k: string) => Promise<T>): Promise<T> {
      try {
        const k = checkKey(method, key);
        const s = storeOf(this.ctx, method);
        return s.run(method, () => fn(s, k));
      } catch (err) {
        return Promise.reject(err);
      }
    }
  }
  Object.freeze(Storage.prototype);
  return Storage;
}
