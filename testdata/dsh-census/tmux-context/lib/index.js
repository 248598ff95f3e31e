// @deepseek-ai/dsh-tmux-context@0.1.0-rc.8, built by testdata/dsh-census/census.mjs from toninfo/deepseek-harness@611615650f1b:packages/context/tmux-context (MIT, see LICENSE).

// src/index.ts
import z from "@deepseek-ai/schemastery";
import { createUserMessage } from "@deepseek-ai/dsh-llm";
var name = "tmux-context";
var inject = ["agents"];
var Config = z.object({
  refreshIntervalMs: z.number()
});
var TMUX_FIELDS = [
  "#{session_name}",
  "#{window_index}",
  "#{window_name}",
  "#{pane_index}",
  "#{pane_id}",
  "#{window_active}",
  "#{pane_active}",
  "#{window_layout}"
];
var READING_PREFIX = "tmux location (turn ";
var FIELD_SEP = "\\t";
async function queryTmuxLocation(bash, logger, processId, signal) {
  const format = TMUX_FIELDS.join(FIELD_SEP);
  const command = [
    '[ -n "$TMUX_PANE" ] || exit 1',
    `self_tty=$(ps -o tty= -p ${processId} | tr -d ' ')`,
    '[ -n "$self_tty" ] || exit 1',
    `pane_tty=$(tmux display-message -t "$TMUX_PANE" -p '#{pane_tty}') || exit 1`,
    '[ "$pane_tty" = "/dev/$self_tty" ] || exit 1',
    `exec tmux display-message -t "$TMUX_PANE" -p '${format}'`
  ].join("\n");
  let result;
  try {
    result = await bash.run(bash.resolve({ command, signal }));
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    logger.warn(`tmux location query failed: ${message}; injecting no location this turn`);
    return void 0;
  }
  if (result.exitCode !== 0) return void 0;
  const line = result.stdout.text.split("\n", 1)[0];
  const parts = line.split(FIELD_SEP);
  if (parts.length !== TMUX_FIELDS.length) return void 0;
  const [
    sessionName,
    windowIndex,
    windowName,
    paneIndex,
    paneId,
    windowActive,
    paneActive,
    windowLayout
  ] = parts;
  if (paneId.length === 0) return void 0;
  return {
    sessionName,
    windowIndex,
    windowName,
    paneIndex,
    paneId,
    windowActive,
    paneActive,
    windowLayout
  };
}
function renderState(location) {
  return `session ${location.sessionName}, window ${location.windowIndex} ${JSON.stringify(location.windowName)}, pane ${location.paneIndex} ${location.paneId}
window active=${location.windowActive}, pane active=${location.paneActive}, layout ${location.windowLayout}`;
}
function renderReading(location, turn) {
  return `${READING_PREFIX}${turn}):
${renderState(location)}`;
}
function latestInjectedState(agent) {
  for (const event of [...agent.session.events].reverse()) {
    if (event.type === "user/message" && event.data.source.kind === "plugin" && event.data.source.plugin === name) {
      const [block] = event.data.content;
      if (block?.type !== "text") return void 0;
      const newline = block.text.indexOf("\n");
      const state = newline === -1 ? "" : block.text.slice(newline + 1);
      return { state, time: event.time };
    }
  }
  return void 0;
}
function validateRefreshInterval(refreshIntervalMs) {
  if (refreshIntervalMs !== void 0 && (!Number.isSafeInteger(refreshIntervalMs) || refreshIntervalMs < 0)) {
    throw new TypeError(
      `tmux-context: refreshIntervalMs must be a non-negative safe integer, got ${String(refreshIntervalMs)}`
    );
  }
}
function apply(ctx, config) {
  const refreshIntervalMs = config.refreshIntervalMs;
  validateRefreshInterval(refreshIntervalMs);
  ctx.on("agent/pre-step", async ({ agent, turn, step, signal }, next) => {
    const decision = await next();
    if (decision.kind === "reject" || signal.aborted || step !== 1) return decision;
    const bash = ctx.get("shell");
    if (bash === void 0) return decision;
    const previous = latestInjectedState(agent);
    if (refreshIntervalMs !== void 0 && refreshIntervalMs > 0 && previous !== void 0) {
      const now = Date.now();
      if (now >= previous.time && now - previous.time < refreshIntervalMs) return decision;
    }
    const location = await queryTmuxLocation(bash, ctx.logger, process.pid, signal);
    if (location === void 0) return decision;
    const state = renderState(location);
    if (previous !== void 0 && previous.state === state) return decision;
    const text = renderReading(location, turn);
    return {
      kind: "enter",
      messages: [
        createUserMessage({
          content: [{ type: "text", text }],
          source: { kind: "plugin", plugin: name, form: "snapshot", sections: [{ name, text }] }
        }),
        ...decision.messages
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
