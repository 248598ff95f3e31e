// @deepseek-ai/dsh-storage-json@0.1.0-rc.8, built by testdata/dsh-census/census.mjs from toninfo/deepseek-harness@611615650f1b:packages/storage/storage-json (MIT, see LICENSE).

// src/index.ts
import { mkdir } from "node:fs/promises";
import { join as join2 } from "node:path";
import z from "@deepseek-ai/schemastery";
import { StorageError as StorageError3, UNIT_NAME_RE, storageBackendServiceKey } from "@deepseek-ai/dsh-storage";

// src/unit.ts
import { readFile } from "node:fs/promises";
import { StorageError as StorageError2 } from "@deepseek-ai/dsh-storage";

// src/atomic.ts
import { open, rename, rm } from "node:fs/promises";
import { dirname, join } from "node:path";
import { randomUUID } from "node:crypto";
async function writeAtomic(path, data) {
  const tmp = join(dirname(path), `.${randomUUID()}.tmp`);
  try {
    const handle = await open(tmp, "wx", 384);
    try {
      await handle.writeFile(data, "utf8");
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(tmp, path);
    await fsyncDirectory(dirname(path));
  } catch (error) {
    await rm(tmp, { force: true });
    throw error;
  }
}
async function fsyncDirectory(path) {
  if (process.platform === "win32") return;
  const handle = await open(path, "r");
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

// src/format.ts
import { StorageError } from "@deepseek-ai/dsh-storage";
function serialize(name2, state) {
  const tables = {};
  for (const [table, records] of state.tables) {
    tables[table] = Object.fromEntries(records);
  }
  const document = {
    unit: { name: name2, version: state.version },
    global: state.global,
    tables
  };
  return `${JSON.stringify(document, null, 2)}
`;
}
function parse(text, descriptor) {
  let document;
  try {
    document = JSON.parse(text);
  } catch (error) {
    throw new StorageError("malformed-medium", `unit '${descriptor.name}': file is not valid JSON`, { cause: error });
  }
  if (typeof document !== "object" || document === null) {
    throw new StorageError("malformed-medium", `unit '${descriptor.name}': file is not a JSON object`);
  }
  const { unit, global: globalValue, tables } = document;
  if (typeof unit !== "object" || unit === null || unit["name"] !== descriptor.name || typeof unit["version"] !== "number") {
    throw new StorageError("malformed-medium", `unit '${descriptor.name}': missing or foreign unit header`);
  }
  const version = unit["version"];
  if (version !== descriptor.version) {
    throw new StorageError(
      "version-mismatch",
      `unit '${descriptor.name}': stored version ${version} != expected ${descriptor.version}`
    );
  }
  if (typeof tables !== "object" || tables === null) {
    throw new StorageError("malformed-medium", `unit '${descriptor.name}': tables is not an object`);
  }
  const state = { version, global: globalValue ?? null, tables: /* @__PURE__ */ new Map() };
  for (const table of descriptor.tables) {
    const records = tables[table];
    if (records === void 0) {
      state.tables.set(table, /* @__PURE__ */ new Map());
      continue;
    }
    if (typeof records !== "object" || records === null || Array.isArray(records)) {
      throw new StorageError("malformed-medium", `unit '${descriptor.name}': table '${table}' is not an object`);
    }
    state.tables.set(table, new Map(Object.entries(records)));
  }
  return state;
}

// src/unit.ts
async function openJsonUnit(descriptor, path, onClose) {
  let text;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    if (error.code !== "ENOENT") throw error;
  }
  const state = text === void 0 ? {
    version: descriptor.version,
    global: null,
    tables: new Map(descriptor.tables.map((table) => [table, /* @__PURE__ */ new Map()]))
  } : parse(text, descriptor);
  return new JsonKvUnit(descriptor, path, state, onClose);
}
var JsonKvUnit = class {
  constructor(descriptor, path, state, onClose) {
    this.descriptor = descriptor;
    this.path = path;
    this.state = state;
    this.onClose = onClose;
  }
  descriptor;
  path;
  state;
  onClose;
  closed = false;
  /** In-flight publishes; close() drains them before releasing the unit. */
  inFlight = /* @__PURE__ */ new Set();
  // oxlint-disable-next-line typescript/require-await -- async keeps the closed guard a rejection, not a synchronous throw
  async loadAll() {
    this.assertOpen();
    const tables = {};
    for (const [table, records] of this.state.tables) {
      tables[table] = Object.fromEntries(records);
    }
    return { tables, global: this.state.global };
  }
  async putRecord(table, key, value) {
    this.assertOpen();
    const records = this.records(table);
    const hadKey = records.has(key);
    const previous = records.get(key);
    records.set(key, value);
    await this.publish().catch((error) => {
      if (hadKey) records.set(key, previous);
      else records.delete(key);
      throw error;
    });
  }
  async deleteRecord(table, key) {
    this.assertOpen();
    const records = this.records(table);
    if (!records.has(key)) return;
    const previous = records.get(key);
    records.delete(key);
    await this.publish().catch((error) => {
      records.set(key, previous);
      throw error;
    });
  }
  async setGlobal(value) {
    this.assertOpen();
    if (!this.descriptor.hasGlobal) {
      throw new Error(`unit '${this.descriptor.name}' does not declare a global slot`);
    }
    const previous = this.state.global;
    this.state.global = value;
    await this.publish().catch((error) => {
      this.state.global = previous;
      throw error;
    });
  }
  async close() {
    if (this.closed) {
      await Promise.allSettled(this.inFlight);
      return;
    }
    this.closed = true;
    await Promise.allSettled(this.inFlight);
    this.onClose();
  }
  assertOpen() {
    if (this.closed) {
      throw new StorageError2("closed", `unit '${this.descriptor.name}' is closed`);
    }
  }
  records(table) {
    const records = this.state.tables.get(table);
    if (!records) {
      throw new Error(`unit '${this.descriptor.name}' does not declare table '${table}'`);
    }
    return records;
  }
  publish() {
    const write = writeAtomic(this.path, serialize(this.descriptor.name, this.state));
    this.inFlight.add(write);
    write.catch(() => {
    }).finally(() => this.inFlight.delete(write));
    return write;
  }
};

// src/index.ts
var name = "storage-json";
var inject = ["storage"];
var Config = z.object({
  root: z.string().required()
});
var JsonStorageBackend = class {
  constructor(root) {
    this.root = root;
  }
  root;
  open = /* @__PURE__ */ new Map();
  // Reserved synchronously at open() entry so a concurrent open of the same
  // unit fails, and close() can await opens still in flight.
  opening = /* @__PURE__ */ new Map();
  closed = false;
  kv = {
    // The body up to the first await runs synchronously, so the opening-slot
    // reservation below still excludes a concurrent open of the same unit.
    open: async (descriptor) => {
      if (this.closed) throw new StorageError3("closed", "json backend is closed");
      validateDescriptor(descriptor);
      if (this.open.has(descriptor.name) || this.opening.has(descriptor.name)) {
        throw new Error(`unit '${descriptor.name}' is already open; a unit has exactly one live handle`);
      }
      const opening = this.openUnit(descriptor);
      this.opening.set(descriptor.name, opening);
      return opening.finally(() => this.opening.delete(descriptor.name));
    }
  };
  async openUnit(descriptor) {
    await mkdir(this.root, { recursive: true, mode: 448 });
    const path = join2(this.root, `${descriptor.name}.json`);
    const unit = await openJsonUnit(descriptor, path, () => this.open.delete(descriptor.name));
    if (this.closed) {
      await unit.close();
      throw new StorageError3("closed", "json backend is closed");
    }
    this.open.set(descriptor.name, unit);
    return unit;
  }
  async close() {
    if (!this.closed) {
      this.closed = true;
    }
    await Promise.allSettled([...this.opening.values()]);
    for (const unit of [...this.open.values()]) {
      await unit.close();
    }
  }
};
function validateDescriptor(descriptor) {
  if (!UNIT_NAME_RE.test(descriptor.name)) {
    throw new StorageError3("malformed-medium", `invalid unit name '${descriptor.name}'`);
  }
  for (const table of descriptor.tables) {
    if (!UNIT_NAME_RE.test(table)) {
      throw new StorageError3("malformed-medium", `invalid table name '${table}' in unit '${descriptor.name}'`);
    }
  }
}
function apply(ctx, config) {
  const backend = new JsonStorageBackend(config.root);
  ctx.effect(() => {
    const unregister = ctx.storage.backend.register("json", backend);
    return async () => {
      unregister();
      await backend.close();
    };
  });
  ctx.provide(storageBackendServiceKey("json"), backend);
}
export {
  Config,
  JsonStorageBackend,
  apply,
  inject,
  name
};
