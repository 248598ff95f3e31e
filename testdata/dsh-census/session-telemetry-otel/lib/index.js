// @deepseek-ai/dsh-session-telemetry-otel@0.1.0-rc.8, built by testdata/dsh-census/census.mjs from toninfo/deepseek-harness@611615650f1b:packages/session/session-telemetry-otel (MIT, see LICENSE).

// src/index.ts
import { createRequire } from "node:module";
import z from "@deepseek-ai/schemastery";
import {
  SessionTelemetryBackend,
  SessionTelemetryCoordinator
} from "@deepseek-ai/dsh-session-telemetry";
import { APP_IDENTITY } from "@deepseek-ai/dsh-llm";
import { getOrCreateAnonymousUserId } from "@deepseek-ai/dsh-anonymous-user-id";
import {
  BatchLogRecordProcessor,
  LoggerProvider
} from "@opentelemetry/sdk-logs";
import { OTLPLogExporter } from "@opentelemetry/exporter-logs-otlp-http";
import { SeverityNumber } from "@opentelemetry/api-logs";
import { resourceFromAttributes } from "@opentelemetry/resources";
var { version } = createRequire(import.meta.url)("../package.json");
var SessionTelemetryMode = /* @__PURE__ */ ((SessionTelemetryMode2) => {
  SessionTelemetryMode2["FULL"] = "FULL";
  SessionTelemetryMode2["FEEDBACK_ONLY"] = "FEEDBACK_ONLY";
  SessionTelemetryMode2["DISABLED"] = "DISABLED";
  return SessionTelemetryMode2;
})(SessionTelemetryMode || {});
var DEFAULT_TELEMETRY_MODE = "DISABLED" /* DISABLED */;
var DISABLED_FEEDBACK_WARNING = "session telemetry is DISABLED; nothing will be shared and this feedback remains local";
var NON_CANONICAL_FEEDBACK_WARNING = "session telemetry ignored a feedback event absent from the canonical session log";
var DROP_RECORD = () => {
};
function resolveMode(mode) {
  const resolved = mode ?? DEFAULT_TELEMETRY_MODE;
  switch (resolved) {
    case "FULL" /* FULL */:
    case "FEEDBACK_ONLY" /* FEEDBACK_ONLY */:
    case "DISABLED" /* DISABLED */:
      return resolved;
    default:
      return assertNever(resolved);
  }
}
function assertNever(value) {
  throw new Error(`session-telemetry-otel: unsupported mode ${JSON.stringify(value)}`);
}
function sharingStatusFor(mode) {
  switch (mode) {
    case "FULL" /* FULL */:
      return "full";
    case "FEEDBACK_ONLY" /* FEEDBACK_ONLY */:
      return "feedback-only";
    case "DISABLED" /* DISABLED */:
      return "disabled";
    /* v8 ignore next 2 -- resolveMode already rejected unknown values before this switch; the closed enum cannot reach the default. */
    default:
      return assertNever(mode);
  }
}
var Config = z.object({
  mode: z.union(Object.values(SessionTelemetryMode)).default(DEFAULT_TELEMETRY_MODE),
  exporter: z.any(),
  processor: z.any(),
  shutdownTimeoutMillis: z.number()
});
var DEFAULT_SHUTDOWN_TIMEOUT_MILLIS = 3e3;
var MAX_TIMER_DELAY_MILLIS = 2147483647;
var SEVERITY = {
  info: { severityNumber: SeverityNumber.INFO, severityText: "INFO" },
  warn: { severityNumber: SeverityNumber.WARN, severityText: "WARN" },
  error: { severityNumber: SeverityNumber.ERROR, severityText: "ERROR" }
};
var OpenTelemetrySessionBackend = class extends SessionTelemetryBackend {
  static inject = ["sessions"];
  static Config = Config;
  directEmit;
  provider;
  shutdownTimeoutMillis;
  sharing;
  constructor(ctx, config) {
    const mode = resolveMode(config.mode);
    super(ctx);
    this.sharing = sharingStatusFor(mode);
    if (mode === "DISABLED" /* DISABLED */) {
      this.directEmit = DROP_RECORD;
      this.provider = void 0;
      this.shutdownTimeoutMillis = DEFAULT_SHUTDOWN_TIMEOUT_MILLIS;
      ctx.on("session/event", (_session, event) => {
        if (event.type === "feedback/record") ctx.logger.warn(DISABLED_FEEDBACK_WARNING);
      });
      return;
    }
    const url = config.exporter?.url;
    if (url === void 0 || url.length === 0) {
      throw new Error("session-telemetry-otel: exporter.url is required (the full OTLP logs endpoint)");
    }
    let parsed;
    try {
      parsed = new URL(url);
    } catch {
      throw new Error(`session-telemetry-otel: exporter.url is not a valid URL: ${JSON.stringify(url)}`);
    }
    if (parsed.protocol !== "http:" && parsed.protocol !== "https:") {
      throw new Error(`session-telemetry-otel: exporter.url must be http(s), got ${parsed.protocol}`);
    }
    const batchSize = config.processor?.maxExportBatchSize;
    if (batchSize !== void 0 && (!Number.isInteger(batchSize) || batchSize < 1)) {
      throw new Error(`session-telemetry-otel: processor.maxExportBatchSize must be a positive integer, got ${String(batchSize)}`);
    }
    const shutdownTimeoutMillis = config.shutdownTimeoutMillis ?? DEFAULT_SHUTDOWN_TIMEOUT_MILLIS;
    if (!Number.isFinite(shutdownTimeoutMillis) || shutdownTimeoutMillis <= 0 || shutdownTimeoutMillis > MAX_TIMER_DELAY_MILLIS) {
      throw new Error(`session-telemetry-otel: shutdownTimeoutMillis must be a positive finite number no greater than ${MAX_TIMER_DELAY_MILLIS}, got ${String(shutdownTimeoutMillis)}`);
    }
    this.shutdownTimeoutMillis = shutdownTimeoutMillis;
    this.provider = new LoggerProvider({
      resource: resourceFromAttributes({
        "service.name": APP_IDENTITY.product,
        "service.version": APP_IDENTITY.version,
        // OTel semconv's standard user attribute, carried once per export
        // batch on the Resource rather than per record: the collector
        // aggregates by Resource, and the id is process-stable anyway.
        "user.id": getOrCreateAnonymousUserId()
      }),
      processors: [
        new BatchLogRecordProcessor({
          ...config.processor,
          // The complete validated exporter object, verbatim: every SDK
          // option (`timeoutMillis`, `compression`, `keepAlive`, …) reaches
          // the exporter — rebuilding selected fields here would silently
          // ignore the rest. App identity travels in the Resource
          // (service.name/version); the transport-level user-agent is the
          // SDK's own, per the axiom.
          exporter: new OTLPLogExporter(config.exporter)
        })
      ]
    });
    const ledger = this.provider.getLogger("@deepseek-ai/dsh-session-telemetry-otel", version);
    const ops = this.provider.getLogger("@deepseek-ai/dsh-session-telemetry-otel/ops", version);
    const enqueue = (record) => {
      const logger = record.channel === "ops" ? ops : ledger;
      logger.emit({
        timestamp: record.time,
        observedTimestamp: record.time,
        ...SEVERITY[record.severity],
        // JSON-serializable by the seam's contract (validated at Session.append),
        // which is exactly the AnyValue subset.
        body: record.body,
        attributes: record.attributes
      });
    };
    const backend = {
      emit: enqueue,
      shutdown: () => this.shutdown()
    };
    if (mode === "FULL" /* FULL */) {
      this.directEmit = enqueue;
      new SessionTelemetryCoordinator(ctx, backend, "live");
      return;
    }
    this.directEmit = DROP_RECORD;
    const coordinator = new SessionTelemetryCoordinator(ctx, backend, "on-demand");
    ctx.on("session/event", (session, event) => {
      if (event.type !== "feedback/record") return;
      if (session.events[event.seq] !== event) {
        ctx.logger.warn(NON_CANONICAL_FEEDBACK_WARNING);
        return;
      }
      coordinator.captureSession(session, event.seq);
    });
  }
  /**
   * Hand a direct service record to the SDK only in `FULL`. Direct calls are
   * no-ops in `FEEDBACK_ONLY` and `DISABLED`; feedback replay uses a private
   * backend capability created only for the canonical feedback listener.
   * @param record - the logical record offered directly to the service.
   */
  emit(record) {
    this.directEmit(record);
  }
  // The Service Definition's optional flush() hint is deliberately NOT implemented. The
  // batch processor exports on its own cadence (`processor.scheduledDelayMillis`,
  // the SDK's documented knob), and this backend is the SDK pipeline's only
  // caller — forwarding the hint to `forceFlush()` would be the sole source of
  // concurrent flushes, whose undocumented interactions with shutdown's
  // internal drain (concurrent-flush guard, provider-level flush timeout)
  // silently drop tail records. Rationale and the revival trigger: the
  // revival Agent Note.
  /**
   * Ask the SDK to drain and quiesce, but reject after the backend-owned
   * deadline. OTel's processor export timeout wraps `exportCompleted` only;
   * shutdown awaits `exporter.forceFlush()` first, which can remain pending
   * when the transport never obtains a socket. The provider promise remains
   * observed after the deadline so a later rejection cannot become unhandled.
   * `DISABLED` has no provider and resolves immediately.
   * @returns resolves when the SDK pipeline quiesces or is disabled, or rejects at the configured deadline.
   */
  async shutdown() {
    if (this.provider === void 0) return;
    const providerShutdown = this.provider.shutdown();
    let timer;
    const deadline = new Promise((_resolve, reject) => {
      timer = setTimeout(() => {
        reject(new Error(`session-telemetry-otel: provider shutdown exceeded ${this.shutdownTimeoutMillis}ms`));
      }, this.shutdownTimeoutMillis);
    });
    try {
      await Promise.race([providerShutdown, deadline]);
    } finally {
      if (timer !== void 0) clearTimeout(timer);
    }
  }
};
var index_default = OpenTelemetrySessionBackend;
export {
  Config,
  DEFAULT_SHUTDOWN_TIMEOUT_MILLIS,
  DEFAULT_TELEMETRY_MODE,
  OpenTelemetrySessionBackend,
  SessionTelemetryMode,
  index_default as default
};
