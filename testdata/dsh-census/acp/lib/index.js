// @deepseek-ai/dsh-acp@0.1.0-rc.8, built by testdata/dsh-census/census.mjs from toninfo/deepseek-harness@611615650f1b:packages/acp/acp (MIT, see LICENSE).

// src/index.ts
import { randomUUID } from "node:crypto";
import { isAbsolute } from "node:path";
import { Readable, Writable } from "node:stream";
import Schema from "@deepseek-ai/schemastery";
import { createUserMessage, errorChain } from "@deepseek-ai/dsh-llm";
import {
  AgentSideConnection,
  ndJsonStream,
  PROTOCOL_VERSION,
  RequestError
} from "@agentclientprotocol/sdk";
import { SessionId } from "@deepseek-ai/dsh-session";

// src/content.ts
import { isImageAdmissionError } from "@deepseek-ai/dsh-attachment";
var IMAGE_MEDIA_TYPES = [
  "image/png",
  "image/jpeg",
  "image/webp",
  "image/gif"
];
var CANONICAL_BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
var AcpContentError = class extends Error {
  /** Whether the bridge should report invalid params or an internal failure. */
  kind;
  /**
   * @param message - safe protocol-facing detail without inline binary data.
   * @param kind - request-failure category.
   * @param options - optional causal chain for diagnostics.
   */
  constructor(message, kind, options) {
    super(message, options);
    this.name = "AcpContentError";
    this.kind = kind;
  }
};
function imageMediaType(value) {
  return IMAGE_MEDIA_TYPES.includes(value) ? value : void 0;
}
function decodeImage(block) {
  const mediaType = imageMediaType(block.mimeType);
  if (mediaType === void 0) {
    throw new AcpContentError("image mimeType must be image/png, image/jpeg, image/webp, or image/gif", "invalid");
  }
  if (!CANONICAL_BASE64.test(block.data)) {
    throw new AcpContentError("image data must be canonical base64", "invalid");
  }
  const data = Buffer.from(block.data, "base64");
  if (data.toString("base64") !== block.data) {
    throw new AcpContentError("image data must be canonical base64", "invalid");
  }
  return { data, mediaType };
}
async function assertImageRoute(ctx, agent, signal) {
  const routed = agent.session.requestHeader()?.config;
  const provider = routed?.provider ?? agent.options.provider;
  const model = routed?.model ?? agent.options.model;
  const llm = ctx.get("llm");
  if (provider === void 0 || model === void 0 || llm === void 0) {
    throw new AcpContentError("the current model route could not be resolved for image input", "invalid");
  }
  let info;
  try {
    info = await llm.resolveModelInfo(provider, model, signal);
  } catch (error) {
    throw new AcpContentError("the current model route could not be verified for image input", "internal", { cause: error });
  }
  if (info.inputModalities === void 0 || !info.inputModalities.includes("image")) {
    throw new AcpContentError(`model "${model}" does not declare image input`, "invalid");
  }
}
async function supportsAcpImagePrompts(ctx, provider, model) {
  const attachments = ctx.get("attachments");
  const llm = ctx.get("llm");
  if (attachments === void 0 || llm === void 0 || provider === void 0 || model === void 0) return false;
  if (!attachments.imageLimits.mediaTypes.some((mediaType) => IMAGE_MEDIA_TYPES.includes(mediaType))) return false;
  try {
    const info = await llm.resolveModelInfo(provider, model);
    return info.inputModalities?.includes("image") === true;
  } catch {
    return false;
  }
}
function resourceLinkText(block) {
  return `
[resource_link name=${JSON.stringify(block.name)} uri=${JSON.stringify(block.uri)}]
`;
}
async function admitAcpPrompt(ctx, agent, prompt, imageEnabled, signal) {
  const images = [];
  for (const block of prompt) {
    switch (block.type) {
      case "text":
      case "resource_link":
        break;
      case "image":
        if (!imageEnabled) throw new AcpContentError("inline image prompts were not advertised by this connection", "invalid");
        images.push(decodeImage(block));
        break;
      case "audio":
        throw new AcpContentError("audio prompt content is not supported", "invalid");
      case "resource":
        throw new AcpContentError("embedded resource prompt content is not supported", "invalid");
      /* v8 ignore next 2 -- ACP ContentBlock is a closed generated union. */
      default:
        throw new AcpContentError("unsupported ACP prompt content", "invalid");
    }
  }
  let refs = [];
  if (images.length > 0) {
    const attachments = ctx.get("attachments");
    if (attachments === void 0) throw new AcpContentError("no attachment store is mounted", "invalid");
    await assertImageRoute(ctx, agent, signal);
    signal.throwIfAborted();
    try {
      refs = await attachments.saveImages(images);
    } catch (error) {
      if (isImageAdmissionError(error)) {
        throw new AcpContentError(error.message, "invalid", { cause: error });
      }
      throw new AcpContentError("unable to persist the prompt image batch", "internal", { cause: error });
    }
    signal.throwIfAborted();
  }
  const content = [];
  let pendingText = "";
  let imageIndex = 0;
  const flushText = () => {
    if (pendingText.length === 0) return;
    content.push({ type: "text", text: pendingText });
    pendingText = "";
  };
  for (const block of prompt) {
    switch (block.type) {
      case "text":
        pendingText += block.text;
        break;
      case "resource_link":
        pendingText += resourceLinkText(block);
        break;
      case "image": {
        flushText();
        const ref = refs[imageIndex++];
        content.push({ type: "image", attachment: ref });
        break;
      }
      /* v8 ignore start -- the validation pass above rejects both tags before reconstruction. */
      case "audio":
      case "resource":
        break;
      /* v8 ignore stop */
      /* v8 ignore next 2 -- validated by the first closed-union switch. */
      default:
        break;
    }
  }
  flushText();
  if (!content.some((block) => block.type === "image" || block.type === "text" && block.text.trim().length > 0)) {
    throw new AcpContentError("empty prompt", "invalid");
  }
  return content;
}
async function assistantBlockToAcp(ctx, block) {
  if (block.type === "text") {
    return block.text.length === 0 ? void 0 : { type: "text", text: block.text };
  }
  if (block.type !== "image") return void 0;
  const attachments = ctx.get("attachments");
  if (attachments === void 0) {
    throw new AcpContentError("cannot deliver assistant image: no attachment store is mounted", "internal");
  }
  let stored;
  try {
    stored = await attachments.readImage(block.attachment);
  } catch (error) {
    throw new AcpContentError("cannot deliver assistant image: the attachment is unavailable or corrupt", "internal", { cause: error });
  }
  return {
    type: "image",
    data: Buffer.from(stored.data).toString("base64"),
    mimeType: stored.ref.mediaType
  };
}

// src/codec.ts
function turnEndToStopReason(reason) {
  switch (reason.kind) {
    case "completed":
      return "end_turn";
    case "max-tokens":
      return "max_tokens";
    // `cancelled` is reserved for explicit client cancellation (`session/cancel`)
    // and disposal, both settled out of band; a turn aborted by a hook or
    // another owner is ordinary quiescence and reports `end_turn`.
    case "aborted":
      return "end_turn";
    case "interrupted":
      return "cancelled";
    case "blocked":
    case "error":
      return "end_turn";
    /* v8 ignore next 2 -- TurnEndReason is closed and every member is handled above */
    default:
      return "end_turn";
  }
}

// src/index.ts
var name = "acp";
var inject = ["agents"];
function invalidParams(detail) {
  return RequestError.invalidParams(void 0, detail);
}
function internalError(detail) {
  return RequestError.internalError(void 0, detail);
}
var Config = Schema.object({
  provider: Schema.string(),
  model: Schema.string()
});
function apply(ctx, config) {
  const agents = ctx.agents;
  const logger = ctx.logger;
  const sessions = /* @__PURE__ */ new Map();
  let closed = false;
  let conn;
  let imagePromptEnabled = false;
  const ownedRecord = (agent) => {
    const record = sessions.get(agent.session.id);
    return record?.agent === agent ? record : void 0;
  };
  const assertOpen = () => {
    if (closed) throw internalError("the ACP bridge has been disposed");
  };
  const requireSession = (sessionId) => {
    const record = sessions.get(sessionId);
    if (record === void 0) throw invalidParams(`unknown session: ${sessionId}`);
    return record;
  };
  const notify = async (notification) => {
    try {
      await conn.sessionUpdate(notification);
    } catch (error) {
      logger.warn(`acp: session/update failed: ${String(error)}`);
    }
  };
  const rejectFromError = (inflight, reason) => {
    inflight.reject(internalError(`turn failed: ${reason.error.message}`));
  };
  const settleAfterQuiescence = (record, inflight) => {
    if (inflight.settlementStarted) return;
    inflight.settlementStarted = true;
    void (async () => {
      await inflight.admissionDone;
      if (inflight.messageQueued) {
        await record.agent.whenIdle();
        await record.outputTail;
      }
      if (record.inflight !== inflight) return;
      record.inflight = void 0;
      if (inflight.cancelRequested) {
        inflight.resolve("cancelled");
        return;
      }
      if (inflight.outputError !== void 0) {
        inflight.reject(internalError(`assistant output delivery failed: ${inflight.outputError.message}`));
        return;
      }
      if (inflight.agentError !== void 0) {
        inflight.reject(internalError(`turn failed: ${inflight.agentError.message}`));
        return;
      }
      const end = inflight.endReason;
      if (end === void 0) {
        inflight.resolve("cancelled");
      } else if (end.kind === "error") {
        rejectFromError(inflight, end);
      } else {
        inflight.resolve(end.kind === "max-tokens" ? "end_turn" : turnEndToStopReason(end));
      }
    })().catch((error) => {
      if (record.inflight !== inflight) return;
      record.inflight = void 0;
      inflight.reject(internalError(`prompt settlement failed: ${errorChain(error)}`));
    });
  };
  ctx.on("session/event", (session, event) => {
    const record = sessions.get(session.header.id);
    if (record === void 0 || record.agent.session !== session) return;
    try {
      if (event.type === "assistant/message") {
        const inflight = record.inflight?.turn === event.data.turn ? record.inflight : void 0;
        const previous = record.outputTail;
        const delivery = previous.then(async () => {
          for (const block of event.data.message.content) {
            const content = await assistantBlockToAcp(ctx, block);
            if (content === void 0) continue;
            await notify({
              sessionId: record.agent.session.id,
              update: { sessionUpdate: "agent_message_chunk", content }
            });
          }
        });
        record.outputTail = delivery.catch((error) => {
          const failure = error;
          if (inflight !== void 0) inflight.outputError ??= failure;
          logger.warn(`acp: assistant output conversion failed: ${errorChain(error)}`);
        });
      }
    } finally {
      const inflight = record.inflight;
      if (inflight !== void 0 && event.type === "turn/end" && inflight.turn === event.data.turn) {
        inflight.endReason = event.data.reason;
      }
    }
  });
  ctx.on("agent/inbox/claimed", ({ agent, message, turn }) => {
    const record = ownedRecord(agent);
    const inflight = record?.inflight;
    if (inflight !== void 0 && inflight.messageId === message.id) inflight.turn = turn;
  });
  ctx.on("agent/error", ({ agent, turn, error }) => {
    const record = ownedRecord(agent);
    const inflight = record?.inflight;
    if (record === void 0 || inflight === void 0 || !inflight.messageQueued || inflight.turn === turn) return;
    inflight.agentError = new Error(errorChain(error));
    settleAfterQuiescence(record, inflight);
  });
  ctx.on("approval/request", (request, next) => {
    const record = ownedRecord(request.agent);
    if (record === void 0 || request.callId === void 0) return next();
    return conn.requestPermission({
      sessionId: record.agent.session.id,
      toolCall: { toolCallId: request.callId },
      options: [
        { optionId: "allow-once", name: "Allow once", kind: "allow_once" },
        { optionId: "reject-once", name: "Reject", kind: "reject_once" }
      ]
    }).then(({ outcome }) => {
      if (outcome.outcome === "cancelled") return "cancelled";
      return outcome.optionId === "allow-once" ? "allowed-once" : "rejected";
    });
  });
  const makeAgent = (connection) => {
    conn = connection;
    return {
      async initialize(_params) {
        imagePromptEnabled = await supportsAcpImagePrompts(ctx, config.provider, config.model);
        return {
          protocolVersion: PROTOCOL_VERSION,
          agentInfo: { name: "deepseek-harness-acp", version: "0.0.1" },
          agentCapabilities: {
            promptCapabilities: { image: imagePromptEnabled, audio: false, embeddedContext: false }
          },
          authMethods: []
        };
      },
      authenticate(_params) {
        return Promise.resolve();
      },
      async newSession(params) {
        assertOpen();
        validateSessionParams(params);
        const sessionId = SessionId(randomUUID());
        const handle = await agents.create({
          sessionId,
          meta: { cwd: params.cwd },
          agentOptions: agentOptions(config)
        });
        if (closed) {
          await handle.dispose();
          throw internalError("connection closed during session/new");
        }
        sessions.set(sessionId, {
          agent: handle.agent,
          dispose: () => handle.dispose(),
          outputTail: Promise.resolve(),
          inflight: void 0
        });
        return { sessionId };
      },
      async prompt(params) {
        assertOpen();
        const record = requireSession(SessionId(params.sessionId));
        if (record.inflight !== void 0) {
          throw invalidParams("a prompt is already in flight for this session");
        }
        const completion = Promise.withResolvers();
        const admission = Promise.withResolvers();
        const admissionController = new AbortController();
        const inflight = {
          resolve: completion.resolve,
          reject: completion.reject,
          messageId: void 0,
          messageQueued: false,
          turn: void 0,
          endReason: void 0,
          admissionDone: admission.promise,
          finishAdmission: admission.resolve,
          admissionController,
          cancelRequested: false,
          settlementStarted: false,
          outputError: void 0,
          agentError: void 0
        };
        record.inflight = inflight;
        let admissionFailed = false;
        let admissionFailure;
        try {
          if (ctx.agents.get(record.agent.id) !== record.agent) {
            throw internalError("prompt was not queued: the agent was disposed outside the bridge");
          }
          const content = await admitAcpPrompt(
            ctx,
            record.agent,
            params.prompt,
            imagePromptEnabled,
            admissionController.signal
          );
          admissionController.signal.throwIfAborted();
          if (ctx.agents.get(record.agent.id) !== record.agent) {
            throw internalError("prompt was not queued: the agent was disposed outside the bridge");
          }
          const message = createUserMessage({ content, source: { kind: "user" } });
          inflight.messageId = message.id;
          inflight.messageQueued = true;
          try {
            record.agent.followup(message);
          } catch (error) {
            inflight.messageQueued = false;
            throw error;
          }
        } catch (error) {
          admissionFailed = true;
          admissionFailure = error;
        } finally {
          inflight.finishAdmission();
        }
        if (inflight.cancelRequested) {
          settleAfterQuiescence(record, inflight);
          return { stopReason: await completion.promise };
        }
        if (admissionFailed) {
          record.inflight = void 0;
          if (admissionFailure instanceof AcpContentError) {
            throw admissionFailure.kind === "invalid" ? invalidParams(admissionFailure.message) : internalError(admissionFailure.message);
          }
          if (admissionFailure instanceof RequestError) throw admissionFailure;
          const detail = admissionFailure.message;
          throw internalError(`prompt was not queued: ${detail}`);
        }
        settleAfterQuiescence(record, inflight);
        const stopReason = await completion.promise;
        return { stopReason };
      },
      cancel(params) {
        const record = sessions.get(SessionId(params.sessionId));
        if (record === void 0) return Promise.resolve();
        const inflight = record.inflight;
        if (inflight !== void 0) {
          inflight.cancelRequested = true;
          inflight.admissionController.abort(new Error("ACP prompt cancelled"));
          settleAfterQuiescence(record, inflight);
        }
        if (inflight === void 0 || inflight.messageQueued) record.agent.cancel({ kind: "user" });
        return Promise.resolve();
      }
    };
  };
  const stream = config.stream ?? ndJsonStream(
    Writable.toWeb(process.stdout),
    Readable.toWeb(process.stdin)
  );
  conn = new AgentSideConnection(makeAgent, stream);
  let quiescing;
  const quiesce = () => {
    if (quiescing !== void 0) return quiescing;
    closed = true;
    const records = [...sessions.values()];
    sessions.clear();
    for (const record of records) {
      const inflight = record.inflight;
      if (inflight !== void 0) {
        inflight.cancelRequested = true;
        inflight.admissionController.abort(new Error("ACP bridge disposed"));
        settleAfterQuiescence(record, inflight);
      }
      record.agent.cancel({ kind: "user" });
    }
    quiescing = (async () => {
      await Promise.all(records.map(async (record) => {
        await record.inflight?.admissionDone;
        await record.agent.whenIdle();
        await record.outputTail;
      }));
      const subagents = ctx.get("subagents");
      if (subagents !== void 0) {
        try {
          await subagents.drainContinuableDescendants(records.map((record) => record.agent));
        } catch (error) {
          logger.warn(`acp: continuable subagent teardown failed: ${String(error)}`);
        }
      }
      const disposals = await Promise.allSettled(records.map((record) => record.dispose()));
      const failures = [];
      for (const result of disposals) {
        if (result.status === "rejected") failures.push(result.reason);
      }
      if (failures.length > 0) {
        const detail = failures.map((failure) => errorChain(failure)).join("; ");
        throw new AggregateError(
          failures,
          `ACP agent teardown failed for ${failures.length} session(s): ${detail}`
        );
      }
    })();
    return quiescing;
  };
  void conn.closed.catch((error) => {
    logger.warn(`acp: connection closed with an error: ${String(error)}`);
  }).then(quiesce).catch((error) => {
    logger.warn(`acp: connection-close teardown failed: ${String(error)}`);
  });
  ctx.effect(() => quiesce, "acp.connection");
}
function agentOptions(config) {
  return {
    ...config.provider !== void 0 ? { provider: config.provider } : {},
    ...config.model !== void 0 ? { model: config.model } : {}
  };
}
function validateSessionParams(params) {
  if (!isAbsolute(params.cwd)) throw invalidParams(`cwd must be an absolute path: ${params.cwd}`);
  if (params.additionalDirectories !== void 0 && params.additionalDirectories.length > 0) {
    throw invalidParams("additionalDirectories is not supported");
  }
  if (params.mcpServers.length > 0) throw invalidParams("mcpServers is not supported");
}
export {
  Config,
  apply,
  inject,
  name
};
