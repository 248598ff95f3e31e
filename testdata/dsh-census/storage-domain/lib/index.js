// @deepseek-ai/dsh-storage-domain@0.1.0-rc.8, built by testdata/dsh-census/census.mjs from toninfo/deepseek-harness@611615650f1b:packages/storage/storage-domain (MIT, see LICENSE).

// src/index.ts
import z from "@deepseek-ai/schemastery";
import { storageBackendServiceKey } from "@deepseek-ai/dsh-storage";

// src/error.ts
var DomainError = class extends Error {
  /**
   * @param code - Stable discriminant for the failure class.
   * @param message - Human-readable diagnostic detail.
   * @param options - Standard error options plus the `invalid-record` location.
   */
  constructor(code, message, options) {
    super(message, options);
    this.code = code;
    if (options?.detail) this.detail = options.detail;
  }
  code;
  name = "DomainError";
  /** Present exactly when `code` is `invalid-record`. */
  detail;
};

// src/spec.ts
import { UNIT_NAME_RE } from "@deepseek-ai/dsh-storage";
function domainTable(schema) {
  return { valueSchema: schema };
}
function defineDomain(spec) {
  if (!UNIT_NAME_RE.test(spec.name)) {
    throw new Error(`domain name '${spec.name}' must match ${UNIT_NAME_RE}`);
  }
  if (!Number.isInteger(spec.version) || spec.version < 0) {
    throw new Error(`domain '${spec.name}' version must be a non-negative integer, got ${spec.version}`);
  }
  for (const table of Object.keys(spec.tables)) {
    if (!UNIT_NAME_RE.test(table)) {
      throw new Error(`domain '${spec.name}' table name '${table}' must match ${UNIT_NAME_RE}`);
    }
  }
  if (spec.global !== void 0 && spec.global.schema.safeParse(null).success) {
    throw new Error(
      `domain '${spec.name}' global schema must not accept null: null is the medium's "never written" sentinel, so a stored null could not round-trip`
    );
  }
  return spec;
}
function descriptorOf(spec) {
  return {
    name: spec.name,
    version: spec.version,
    tables: Object.keys(spec.tables),
    hasGlobal: spec.global !== void 0
  };
}

// src/domain.ts
var noop = () => {
};
var DomainImpl = class {
  /**
   * @param ctx - Context that carries `domain/changed` emissions.
   * @param spec - The domain declaration.
   * @param unit - The opened backend unit; this instance owns its lifecycle.
   * @param records - Validated records from the unit's `loadAll`, one entry
   * per declared table (empty maps included) — the facility builds it from
   * the spec, so the entry set IS the table set.
   * @param globalValue - Validated stored global, or the spec's `initial`
   * when the medium held none; `undefined` when the spec declares no global.
   * @param onClosed - Facility hook run once after teardown completes; frees
   * the domain name for a later open.
   */
  constructor(ctx, spec, unit, records, globalValue, onClosed) {
    this.ctx = ctx;
    this.unit = unit;
    this.onClosed = onClosed;
    this.name = spec.name;
    const host = {
      domainName: spec.name,
      unit,
      enqueue: (job) => this.enqueue(job),
      assertReadable: () => {
        this.assertReadable();
      },
      emitChanged: (change) => {
        this.emitChanged(change);
      }
    };
    for (const [table, tableRecords] of records) {
      this.tables.set(table, new KvTableImpl(host, table, tableRecords));
    }
    if (spec.global !== void 0) {
      this.globalValue = globalValue;
      this.globalHandle = {
        get: () => {
          this.assertReadable();
          return this.globalValue;
        },
        set: (value) => this.enqueue(async () => {
          await this.unit.setGlobal(value);
          this.globalValue = value;
          this.emitChanged({ domain: this.name, table: "", key: "", operation: "put", value });
        })
      };
    }
  }
  ctx;
  unit;
  onClosed;
  /** Domain name from the spec. */
  name;
  tables = /* @__PURE__ */ new Map();
  globalValue;
  globalHandle;
  /** Tail of the write chain; every link settles (rejections are observed by the caller's slice). */
  chain = Promise.resolve();
  /** Set when close begins: new writes reject while already-queued writes drain. */
  disposing = false;
  /** Set when close finishes (chain drained, unit closed): reads reject from here on. */
  closed = false;
  disposal;
  /** Global singleton handle; accessing it on a spec that declares no global is a caller bug and throws. */
  get global() {
    if (this.globalHandle === void 0) {
      throw new Error(`domain '${this.name}' declares no global`);
    }
    return this.globalHandle;
  }
  /**
   * Resolve one declared table handle; an undeclared name is a caller bug
   * and throws.
   * @param name - Declared table name.
   * @returns the stable table handle.
   */
  table(name2) {
    const table = this.tables.get(name2);
    if (table === void 0) {
      throw new Error(`domain '${this.name}' declares no table '${name2}'`);
    }
    return table;
  }
  /**
   * Close this domain: reject new writes immediately, drain already-queued
   * writes (their events still emit), close the unit, then free the name via
   * the facility hook. Idempotent — repeated calls share one teardown.
   * @returns resolution after the unit is released.
   */
  close() {
    this.disposal ??= this.runClose();
    return this.disposal;
  }
  async runClose() {
    this.disposing = true;
    await this.chain;
    await this.unit.close();
    this.closed = true;
    this.onClosed();
  }
  /**
   * Dispatch one post-durability change notification, containing observer
   * failures: the write is already committed (medium and memory both hold
   * the new state), so a throwing listener must not retroactively reject it.
   */
  emitChanged(change) {
    try {
      this.ctx.emit("domain/changed", change);
    } catch (error) {
      this.ctx.logger.warn(`domain '${this.name}': domain/changed listener failed: ${String(error)}`);
    }
  }
  enqueue(job) {
    if (this.disposing) {
      return Promise.reject(new DomainError("closed", `domain '${this.name}' is closed`));
    }
    const result = this.chain.then(job);
    this.chain = result.then(noop, noop);
    return result;
  }
  assertReadable() {
    if (this.closed) {
      throw new DomainError("closed", `domain '${this.name}' is closed`);
    }
  }
};
var KvTableImpl = class {
  constructor(host, tableName, records) {
    this.host = host;
    this.tableName = tableName;
    this.records = records;
  }
  host;
  tableName;
  records;
  get(key) {
    this.host.assertReadable();
    return this.records.get(key);
  }
  entries() {
    this.host.assertReadable();
    return [...this.records.entries()][Symbol.iterator]();
  }
  keys() {
    this.host.assertReadable();
    return [...this.records.keys()][Symbol.iterator]();
  }
  get size() {
    this.host.assertReadable();
    return this.records.size;
  }
  put(key, value) {
    return this.host.enqueue(async () => {
      await this.host.unit.putRecord(this.tableName, key, value);
      this.records.set(key, value);
      this.emitPut(key, value);
    });
  }
  delete(key) {
    return this.host.enqueue(async () => {
      if (!this.records.has(key)) return false;
      await this.host.unit.deleteRecord(this.tableName, key);
      this.records.delete(key);
      this.host.emitChanged({
        domain: this.host.domainName,
        table: this.tableName,
        key,
        operation: "deleted"
      });
      return true;
    });
  }
  update(key, fn) {
    return this.host.enqueue(async () => {
      if (!this.records.has(key)) {
        throw new DomainError(
          "missing-key",
          `domain '${this.host.domainName}' table '${this.tableName}' has no record '${key}' to update`
        );
      }
      const next = fn(this.records.get(key));
      await this.host.unit.putRecord(this.tableName, key, next);
      this.records.set(key, next);
      this.emitPut(key, next);
      return next;
    });
  }
  emitPut(key, value) {
    this.host.emitChanged({
      domain: this.host.domainName,
      table: this.tableName,
      key,
      operation: "put",
      value
    });
  }
};

// src/index.ts
var name = "storage-domain";
var inject = ["storage"];
var Config = z.object({
  backend: z.string().required(),
  routes: z.dict(z.string()).default({})
});
var DomainFacility = class {
  /**
   * @param ctx - Context of the domain plugin; open-domain effects and change
   * events attach here.
   * @param config - Validated plugin config.
   */
  constructor(ctx, config) {
    this.ctx = ctx;
    this.config = config;
  }
  ctx;
  config;
  domains = /* @__PURE__ */ new Map();
  /** Names reserved by an in-flight or completed open, so concurrent opens of one name fail loud. */
  reserved = /* @__PURE__ */ new Set();
  /**
   * Open one declared domain. Steps, each failing the whole call: reject a
   * name that is already open (`already-open`); resolve the backend route
   * (`backend-not-found` passes through from the hub); require its `kv` facet
   * (`facet-unsupported`); open the unit projected from the spec (backend
   * `version-mismatch`/`malformed-medium` pass through); load and validate
   * every stored record against the spec's zod schemas (`invalid-record`
   * with the offending table and key); construct the domain.
   *
   * Lifecycle: the CALLER owns the returned handle and closes it via
   * `Domain.close()` (typically as its own `ctx.effect` disposer) — the
   * facility does not tie the domain to any consumer fiber. Domains still
   * open when the facility unmounts are closed by the plugin disposer.
   * @param spec - The domain declaration, typically from `defineDomain`.
   * @returns the opened domain handle, typed by the spec.
   */
  async open(spec) {
    if (this.reserved.has(spec.name)) {
      throw new DomainError("already-open", `domain '${spec.name}' is already open`);
    }
    this.reserved.add(spec.name);
    try {
      const backendName = this.config.routes?.[spec.name] ?? this.config.backend;
      const backend = this.ctx.storage.backend.get(backendName);
      if (!backend.kv) {
        throw new DomainError(
          "facet-unsupported",
          `backend '${backendName}' routed for domain '${spec.name}' has no kv facet`
        );
      }
      const unit = await backend.kv.open(descriptorOf(spec));
      try {
        const snapshot = await unit.loadAll();
        const tables = /* @__PURE__ */ new Map();
        for (const [table, tableSpec] of Object.entries(spec.tables)) {
          const records = /* @__PURE__ */ new Map();
          for (const [key, raw] of Object.entries(snapshot.tables[table] ?? {})) {
            records.set(key, parseRecord(spec.name, table, key, () => tableSpec.valueSchema.parse(raw)));
          }
          tables.set(table, records);
        }
        const globalSpec = spec.global;
        const globalValue = globalSpec === void 0 ? void 0 : snapshot.global === null ? globalSpec.initial : parseRecord(spec.name, "", "", () => globalSpec.schema.parse(snapshot.global));
        const domain = new DomainImpl(this.ctx, spec, unit, tables, globalValue, () => {
          this.domains.delete(spec.name);
          this.reserved.delete(spec.name);
        });
        this.domains.set(spec.name, domain);
        return domain;
      } catch (error) {
        await unit.close();
        throw error;
      }
    } catch (error) {
      this.reserved.delete(spec.name);
      throw error;
    }
  }
  /**
   * Look up an open domain by name, untyped. Diagnostic surface (the package
   * invariant cross-checks change events against live domain state); typed
   * consumers hold the handle returned by {@link open}.
   * @param name - Domain name.
   * @returns the open domain runtime, or `undefined` when not open.
   */
  get(name2) {
    return this.domains.get(name2);
  }
  /**
   * Close every domain still open on this facility. The unmount path for
   * consumers that never called `Domain.close()` themselves; closing is
   * idempotent, so double-closing an already-closed domain is harmless.
   * @returns resolution after every unit is released.
   */
  async closeAll() {
    await Promise.all([...this.domains.values()].map((domain) => domain.close()));
  }
};
function parseRecord(domain, table, key, parse) {
  try {
    return parse();
  } catch (error) {
    const slot = table === "" ? "global" : `record '${key}' in table '${table}'`;
    throw new DomainError(
      "invalid-record",
      `domain '${domain}': stored ${slot} does not match its schema`,
      { detail: { table, key }, cause: error }
    );
  }
}
function apply(ctx, config) {
  const backendServices = [.../* @__PURE__ */ new Set([
    config.backend,
    ...Object.values(config.routes ?? {})
  ])].map(storageBackendServiceKey);
  const fiber = ctx.inject(backendServices, (domainCtx) => {
    const facility = new DomainFacility(domainCtx, config);
    domainCtx.effect(() => {
      const unmount = domainCtx.storage.mount("domain", facility);
      return async () => {
        await facility.closeAll();
        unmount();
      };
    });
    domainCtx.provide("storageDomain", facility);
  });
  return Promise.resolve(fiber).then(() => {
  });
}
export {
  Config,
  DomainError,
  DomainFacility,
  apply,
  defineDomain,
  descriptorOf,
  domainTable,
  inject,
  name
};
