// @deepseek-ai/dsh-tool-subagent-control@0.1.0-rc.8, built by testdata/dsh-census/census.mjs from toninfo/deepseek-harness@611615650f1b:packages/subagent/tool-subagent-control (MIT, see LICENSE).

// src/index.ts
import { defineTool } from "@deepseek-ai/dsh-tools";
import { SessionId } from "@deepseek-ai/dsh-session";
var name = "tool-subagent-control";
var inject = ["tools", "subagents"];
function apply(ctx) {
  ctx.tools.register(defineTool({
    name: "send_message",
    description: "Send a message to a background subagent by its subagent id, continuing the same conversation. It becomes the subagent's next turn: if it is still working, the message waits until its current turn finishes, so it cannot redirect work already underway. This call returns no answer from the subagent — only confirmation that the message was delivered — so use it to give it more work. A failure means the message was NOT delivered.",
    parameters: {
      subagent_id: {
        type: "string",
        required: true,
        description: "The subagent id returned when the background subagent was started."
      },
      message: {
        type: "string",
        required: true,
        description: "The message to deliver to the subagent."
      }
    },
    output: {
      schema: {
        type: "object",
        additionalProperties: false,
        properties: {
          messageId: { type: "string", required: true }
        }
      },
      render: (args, _value) => [{
        type: "text",
        text: `message queued as the next turn for subagent ${args.subagent_id}`
      }]
    },
    async execute(args, exec) {
      const parent = exec.agent;
      if (!parent) {
        throw new Error("send_message requires a calling agent (exec.agent was undefined)");
      }
      const message = [{ type: "text", text: args.message }];
      const messageId = await ctx.subagents.followup(
        parent,
        SessionId(args.subagent_id),
        message,
        {
          source: { kind: "coordinator", form: "relay", senderSessionId: parent.id },
          signal: exec.signal
        }
      );
      return { messageId };
    }
  }));
  ctx.tools.register(defineTool({
    name: "interrupt_agent",
    description: "Request cancellation of a background agent's current turn by its agent id. The target may be your direct child or a deeper agent created under you. Only the current turn stops: messages already queued for the agent stay parked until a later send_message, agents it started keep running, and the agent itself stays available for follow-ups. This call returns as soon as the stop request is accepted, so the target may keep running briefly; interrupting an agent that already finished is an accepted no-op.",
    parameters: {
      agent_id: {
        type: "string",
        required: true,
        description: "The agent id of the running agent to interrupt."
      }
    },
    output: {
      schema: {
        type: "object",
        additionalProperties: false,
        properties: {
          accepted: { type: "boolean", required: true }
        }
      },
      render: (args, _value) => [{
        type: "text",
        text: `interrupt requested for agent ${args.agent_id}`
      }]
    },
    execute(args, exec) {
      const caller = exec.agent;
      if (!caller) {
        throw new Error("interrupt_agent requires a calling agent (exec.agent was undefined)");
      }
      ctx.subagents.interrupt(SessionId(args.agent_id), { kind: "ancestor", agent: caller });
      return Promise.resolve({ accepted: true });
    }
  }));
}
export {
  apply,
  inject,
  name
};
