// @deepseek-ai/dsh-storage-sqlite@0.1.0-rc.8, built by testdata/dsh-census/census.mjs from toninfo/deepseek-harness@611615650f1b:packages/storage/storage-sqlite (MIT, see LICENSE).

// src/index.ts
import z from "@deepseek-ai/schemastery";
import { StorageError as StorageError3, UNIT_NAME_RE, storageBackendServiceKey } from "@deepseek-ai/dsh-storage";

// src/schema.ts
import { DatabaseSync } from "node:sqlite";
import { mkdir, open } from "node:fs/promises";
import { dirname, resolve } from "node:path";
import { StorageError } from "@deepseek-ai/dsh-storage";
var STORAGE_SQLITE_SCHEMA_VERSION = 1;
async function createDatabaseFile(path) {
  try {
    const handle = await open(path, "wx", 384);
    await handle.close();
  } catch (error) {
    if (error.code !== "EEXIST") throw error;
  }
}
async function openDatabase(path, journalMode) {
  const actual = path === ":memory:" ? path : resolve(path);
  if (actual !== ":memory:") {
    await mkdir(dirname(actual), { recursive: true, mode: 448 });
    await createDatabaseFile(actual);
  }
  const db = new DatabaseSync(actual);
  try {
    configureDatabase(db, actual, journalMode);
    return db;
  } catch (error) {
    db.close();
    throw error;
  }
}
function configureDatabase(db, path, journalMode) {
  db.exec("PRAGMA foreign_keys = ON");
  db.exec(`PRAGMA journal_mode = ${journalMode.toUpperCase()}`);
  const { user_version: onDisk } = db.prepare("PRAGMA user_version").get();
  if (onDisk !== 0 && onDisk !== STORAGE_SQLITE_SCHEMA_VERSION) {
    throw new StorageError(
      "version-mismatch",
      `storage database at "${path}" has schema version ${onDisk}, incompatible with this build (${STORAGE_SQLITE_SCHEMA_VERSION})`
    );
  }
  db.exec(`
    CREATE TABLE IF NOT EXISTS units (
      name    TEXT PRIMARY KEY,
      version INTEGER NOT NULL
    ) STRICT
  `);
  db.exec(`
    CREATE TABLE IF NOT EXISTS unit_globals (
      unit  TEXT PRIMARY KEY REFERENCES units(name),
      value TEXT NOT NULL
    ) STRICT
  `);
  if (onDisk === 0) {
    db.exec(`PRAGMA user_version = ${STORAGE_SQLITE_SCHEMA_VERSION}`);
  }
}
function recordTableName(unit, table) {
  return `u_${unit}_${table}`;
}

// src/unit.ts
import { StorageError as StorageError2 } from "@deepseek-ai/dsh-storage";
var SqliteKvUnit = class {
  /**
   * @param db - Open database handle owned by the backend (never closed here).
   * @param descriptor - Validated descriptor whose record tables already exist.
   * @param onClose - Backend callback releasing this unit's open-name slot.
   */
  constructor(db, descriptor, onClose) {
    this.descriptor = descriptor;
    this.onClose = onClose;
    for (const table of descriptor.tables) {
      const physical = recordTableName(descriptor.name, table);
      this.tables.set(table, {
        upsert: db.prepare(
          `INSERT INTO "${physical}" (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value`
        ),
        remove: db.prepare(`DELETE FROM "${physical}" WHERE key = ?`),
        selectAll: db.prepare(`SELECT key, value FROM "${physical}"`)
      });
    }
    this.globalUpsert = descriptor.hasGlobal ? db.prepare(
      "INSERT INTO unit_globals (unit, value) VALUES (?, ?) ON CONFLICT(unit) DO UPDATE SET value = excluded.value"
    ) : void 0;
    this.globalSelect = descriptor.hasGlobal ? db.prepare("SELECT value FROM unit_globals WHERE unit = ?") : void 0;
  }
  descriptor;
  onClose;
  tables = /* @__PURE__ */ new Map();
  globalUpsert;
  globalSelect;
  closed = false;
  loadAll() {
    return this.settle(() => {
      const tables = {};
      for (const [name2, statements] of this.tables) {
        const records = /* @__PURE__ */ Object.create(null);
        for (const row of statements.selectAll.all()) {
          records[row.key] = this.parseValue(row.value, `table '${name2}' key '${row.key}'`);
        }
        tables[name2] = records;
      }
      let global = null;
      if (this.globalSelect !== void 0) {
        const row = this.globalSelect.get(this.descriptor.name);
        if (row !== void 0) global = this.parseValue(row.value, "global slot");
      }
      return { tables, global };
    });
  }
  /** Parse one stored value column, mapping bad JSON to `malformed-medium`. */
  parseValue(text, slot) {
    try {
      return JSON.parse(text);
    } catch (error) {
      throw new StorageError2(
        "malformed-medium",
        `kv unit '${this.descriptor.name}' holds unparsable JSON at ${slot}`,
        { cause: error }
      );
    }
  }
  putRecord(table, key, value) {
    return this.settle(() => {
      this.statementsFor(table).upsert.run(key, JSON.stringify(value));
    });
  }
  deleteRecord(table, key) {
    return this.settle(() => {
      this.statementsFor(table).remove.run(key);
    });
  }
  setGlobal(value) {
    return this.settle(() => {
      if (this.globalUpsert === void 0) {
        throw new Error(`kv unit '${this.descriptor.name}' declared no global slot`);
      }
      this.globalUpsert.run(this.descriptor.name, JSON.stringify(value));
    });
  }
  close() {
    if (!this.closed) {
      this.closed = true;
      this.onClose();
    }
    return Promise.resolve();
  }
  /**
   * Run one synchronous primitive behind the closed guard, mapping a throw to
   * a rejection so the Promise-returning contract never throws synchronously.
   */
  settle(operation) {
    try {
      this.ensureOpen();
      return Promise.resolve(operation());
    } catch (error) {
      return Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
  }
  ensureOpen() {
    if (this.closed) {
      throw new StorageError2("closed", `kv unit '${this.descriptor.name}' is closed`);
    }
  }
  statementsFor(table) {
    const statements = this.tables.get(table);
    if (statements === void 0) {
      throw new Error(`kv unit '${this.descriptor.name}' declared no table '${table}'`);
    }
    return statements;
  }
};

// src/index.ts
var name = "storage-sqlite";
var inject = ["storage"];
var Config = z.object({
  path: z.string().required(),
  journalMode: z.union(["wal", "delete", "truncate", "persist"]).default("wal")
});
var SqliteStorageBackend = class {
  /** The key-value facet; the only shape this backend serves. */
  kv = { open: (descriptor) => this.openUnit(descriptor) };
  ready;
  /** Open (or still-opening) units by name; presence is the double-open guard. */
  units = /* @__PURE__ */ new Map();
  closing;
  /**
   * @param config - Validated plugin configuration.
   */
  constructor(config) {
    this.ready = openDatabase(config.path, config.journalMode);
    this.ready.catch(() => {
    });
  }
  openUnit(descriptor) {
    if (this.closing !== void 0) {
      return Promise.reject(new StorageError3("closed", "sqlite storage backend is closed"));
    }
    if (!UNIT_NAME_RE.test(descriptor.name)) {
      return Promise.reject(new Error(`kv unit name '${descriptor.name}' violates ${UNIT_NAME_RE}`));
    }
    for (const table of descriptor.tables) {
      if (!UNIT_NAME_RE.test(table)) {
        return Promise.reject(new Error(`kv table name '${table}' in unit '${descriptor.name}' violates ${UNIT_NAME_RE}`));
      }
    }
    if (this.units.has(descriptor.name)) {
      return Promise.reject(new Error(`kv unit '${descriptor.name}' is already open (double-open is a caller bug)`));
    }
    const pending = this.materializeUnit(descriptor);
    this.units.set(descriptor.name, pending);
    pending.catch(() => this.units.delete(descriptor.name));
    return pending;
  }
  async materializeUnit(descriptor) {
    const db = await this.ready;
    const row = db.prepare("SELECT version FROM units WHERE name = ?").get(descriptor.name);
    if (row === void 0) {
      db.prepare("INSERT INTO units (name, version) VALUES (?, ?)").run(descriptor.name, descriptor.version);
    } else if (row.version !== descriptor.version) {
      throw new StorageError3(
        "version-mismatch",
        `kv unit '${descriptor.name}' is stamped version ${row.version} on the medium, incompatible with descriptor version ${descriptor.version}`
      );
    }
    for (const table of descriptor.tables) {
      db.exec(`
        CREATE TABLE IF NOT EXISTS "${recordTableName(descriptor.name, table)}" (
          key   TEXT PRIMARY KEY,
          value TEXT NOT NULL
        ) STRICT
      `);
    }
    return new SqliteKvUnit(db, descriptor, () => {
      this.units.delete(descriptor.name);
    });
  }
  /**
   * Close every open unit and release the database. Idempotent; concurrent
   * and repeated calls resolve once teardown finishes.
   * @returns resolution after the medium is released.
   */
  close() {
    this.closing ??= this.doClose();
    return this.closing;
  }
  async doClose() {
    let db;
    try {
      db = await this.ready;
    } catch {
      return;
    }
    for (const pending of [...this.units.values()]) {
      const unit = await pending.catch(() => void 0);
      await unit?.close();
    }
    db.close();
  }
};
function apply(ctx, config) {
  const backend = new SqliteStorageBackend(config);
  ctx.effect(() => {
    const dispose = ctx.storage.backend.register("sqlite", backend);
    return async () => {
      dispose();
      await backend.close();
    };
  }, "storage-sqlite.registerBackend");
  ctx.provide(storageBackendServiceKey("sqlite"), backend);
}
export {
  Config,
  STORAGE_SQLITE_SCHEMA_VERSION,
  SqliteStorageBackend,
  apply,
  inject,
  name
};
