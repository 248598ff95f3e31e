// @deepseek-ai/dsh-time-context@0.1.0-rc.8, built by testdata/dsh-census/census.mjs from toninfo/deepseek-harness@611615650f1b:packages/context/time-context (MIT, see LICENSE).

// src/index.ts
import z from "@deepseek-ai/schemastery";
import { createUserMessage } from "@deepseek-ai/dsh-llm";

// src/request-zone.ts
import { assertNever } from "@deepseek-ai/dsh-llm";
var IANA_TIME_ZONE = /^[A-Za-z][A-Za-z0-9_+.-]*(?:\/[A-Za-z0-9_+.-]+)+$/;
function browserTimeZone(message) {
  const source = message.source;
  const value = source.kind === "user" && "rpcId" in source && typeof source.rpcId === "string" && "clientTimeZone" in source && typeof source.clientTimeZone === "string" ? source.clientTimeZone : void 0;
  if (value === void 0) return void 0;
  if (value !== "UTC" && !IANA_TIME_ZONE.test(value)) {
    throw new TypeError(
      `browser time zone must be canonical UTC or IANA Area/Location: ${JSON.stringify(value)}`
    );
  }
  let canonical;
  try {
    canonical = new Intl.DateTimeFormat("en-US", { timeZone: value }).resolvedOptions().timeZone;
  } catch (error) {
    throw new TypeError(`browser time zone is unsupported: ${JSON.stringify(value)}`, { cause: error });
  }
  if (canonical !== value) {
    throw new TypeError(`browser time zone must be canonical: ${JSON.stringify(value)}`);
  }
  return value;
}
function deriveBrowserTimeZoneContext(messages) {
  const timeZones = [...new Set(messages.flatMap((message) => {
    const timeZone2 = browserTimeZone(message);
    return timeZone2 === void 0 ? [] : [timeZone2];
  }))].sort();
  const [timeZone, ...remaining] = timeZones;
  if (timeZone === void 0) return { kind: "missing" };
  if (remaining.length === 0) return { kind: "resolved", timeZone };
  return { kind: "mixed", timeZones };
}
function renderBrowserTimeZoneContext(context) {
  switch (context.kind) {
    case "resolved":
      return `Browser time zone for this request: ${context.timeZone}. Interpret otherwise-unqualified dates and times in this zone.`;
    case "mixed":
      return `Browser time zone for this request: mixed ${JSON.stringify(context.timeZones)}. Ask the user to clarify otherwise-unqualified dates and times.`;
    case "missing":
      return "Browser time zone for this request: unavailable. Ask the user to clarify otherwise-unqualified dates and times.";
    /* v8 ignore next 2 -- the closed BrowserTimeZoneContext union is exhausted above. */
    default:
      return assertNever(context, "BrowserTimeZoneContext");
  }
}

// src/timestamp.ts
function createTimestampFormatter(timeZone) {
  return new Intl.DateTimeFormat("en-US", {
    ...timeZone === void 0 ? {} : { timeZone },
    year: "numeric",
    month: "2-digit",
    day: "2-digit",
    hour: "2-digit",
    minute: "2-digit",
    second: "2-digit",
    hourCycle: "h23",
    timeZoneName: "longOffset"
  });
}
function formatTimestamp(now, formatter, timeZone) {
  const parts = Object.fromEntries(
    formatter.formatToParts(now).map((part) => [part.type, part.value])
  );
  const offset = parts.timeZoneName.replace(/^GMT$/, "GMT+00:00").slice(3);
  return `${parts["year"]}-${parts["month"]}-${parts["day"]}T${parts["hour"]}:${parts["minute"]}:${parts["second"]}${offset}[${timeZone}]`;
}

// src/index.ts
var name = "time-context";
var inject = ["agents"];
var Config = z.object({
  timeZone: z.string(),
  refreshIntervalMs: z.number()
});
function formatDuration(elapsedMs) {
  let seconds = Math.floor(Math.max(0, elapsedMs) / 1e3);
  const days = Math.floor(seconds / 86400);
  seconds %= 86400;
  const hours = Math.floor(seconds / 3600);
  seconds %= 3600;
  const minutes = Math.floor(seconds / 60);
  seconds %= 60;
  const parts = [];
  if (days > 0) parts.push(`${days}d`);
  if (hours > 0) parts.push(`${hours}h`);
  if (minutes > 0) parts.push(`${minutes}m`);
  parts.push(`${seconds}s`);
  return parts.join(" ");
}
function precedingMessageTime(agent) {
  for (const event of [...agent.session.events].reverse()) {
    switch (event.type) {
      case "user/message":
      case "assistant/message":
      case "tool/result":
        return event.time;
      default:
        break;
    }
  }
  return void 0;
}
function precedingStepContextTime(agent, turn) {
  for (const event of [...agent.session.events].reverse()) {
    if (event.type === "turn/start" && event.data.turn === turn) return void 0;
    if (event.type === "user/message" && event.data.source.kind === "plugin" && event.data.source.plugin === name) {
      return event.time;
    }
  }
  return void 0;
}
function latestInjectionTime(agent) {
  for (const event of [...agent.session.events].reverse()) {
    if (event.type === "user/message" && event.data.source.kind === "plugin" && event.data.source.plugin === name) {
      return event.time;
    }
  }
  return void 0;
}
function requestMessages(agent, turn, proposed) {
  const start = agent.session.events.findLastIndex(
    (event) => event.type === "turn/start" && event.data.turn === turn
  );
  const entered = start < 0 ? [] : agent.session.events.slice(start + 1).flatMap((event) => event.type === "user/message" ? [event.data] : []);
  return [...entered, ...proposed];
}
function renderText(now, turn, step, previous, formatter, timeZone, browserContext) {
  const elapsed = previous === void 0 ? "unavailable" : formatDuration(now - previous);
  const baseline = step === 1 ? "model-visible message" : "step context";
  const browserText = renderBrowserTimeZoneContext(browserContext);
  return `Time sampled while preparing turn ${turn}, step ${step}: ${formatTimestamp(now, formatter, timeZone)}
${browserText}
Elapsed since the preceding ${baseline}: ${elapsed}.`;
}
function validateRefreshInterval(refreshIntervalMs) {
  if (refreshIntervalMs !== void 0 && (!Number.isSafeInteger(refreshIntervalMs) || refreshIntervalMs < 0)) {
    throw new TypeError(
      `time-context: refreshIntervalMs must be a non-negative safe integer, got ${String(refreshIntervalMs)}`
    );
  }
}
function apply(ctx, config) {
  const timeZone = config.timeZone;
  const refreshIntervalMs = config.refreshIntervalMs;
  validateRefreshInterval(refreshIntervalMs);
  let fallbackFormatter;
  try {
    fallbackFormatter = createTimestampFormatter(timeZone);
  } catch (error) {
    const message = timeZone === void 0 ? "time-context: failed to resolve the system time zone" : `time-context: invalid IANA timeZone ${JSON.stringify(timeZone)}`;
    throw new Error(message, { cause: error });
  }
  const fallbackTimeZone = fallbackFormatter.resolvedOptions().timeZone;
  const formatters = /* @__PURE__ */ new Map([[fallbackTimeZone, fallbackFormatter]]);
  const formatterFor = (selectedTimeZone) => {
    const existing = formatters.get(selectedTimeZone);
    if (existing !== void 0) return existing;
    const created = createTimestampFormatter(selectedTimeZone);
    formatters.set(selectedTimeZone, created);
    return created;
  };
  ctx.on("agent/pre-step", async ({ agent, turn, step, signal }, next) => {
    const decision = await next();
    if (decision.kind === "reject" || signal.aborted) return decision;
    const now = Date.now();
    if (refreshIntervalMs !== void 0 && refreshIntervalMs > 0) {
      const lastInjection = latestInjectionTime(agent);
      if (lastInjection !== void 0 && now >= lastInjection && now - lastInjection < refreshIntervalMs) return decision;
    }
    const previous = step === 1 ? precedingMessageTime(agent) : precedingStepContextTime(agent, turn);
    const messages = requestMessages(agent, turn, decision.messages);
    const browser = deriveBrowserTimeZoneContext(messages);
    const selectedTimeZone = browser.kind === "resolved" ? browser.timeZone : fallbackTimeZone;
    const text = renderText(
      now,
      turn,
      step,
      previous,
      formatterFor(selectedTimeZone),
      selectedTimeZone,
      browser
    );
    return {
      kind: "enter",
      messages: [
        ...decision.messages,
        createUserMessage({
          content: [{ type: "text", text }],
          source: { kind: "plugin", plugin: name, form: "snapshot", sections: [{ name, text }] }
        })
      ]
    };
  }, { prepend: true });
}
export {
  Config,
  apply,
  inject,
  name
};
