package core

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/cwx-dev/cwx/core/cmdhooks"
	"github.com/cwx-dev/cwx/core/config"
	"github.com/cwx-dev/cwx/core/protocol"
)

// SessionHooks is what a session event's command hooks said
// ([cmdhooks.SessionOutcome]); a SessionStart's Context is the session's prompt section
// ([SessionSection]).
type SessionHooks = cmdhooks.SessionOutcome

// SessionSectionID is the id of the prompt section that holds a session's SessionStart
// context, attributed to the hooks module (cmdhooks.Owner).
const SessionSectionID = "SessionStart"

// StartSession runs the SessionStart command hooks of the session opts names (source
// "startup": cwx starts every session fresh) and returns what they said. The hook holders
// are settled first, so a lazy Manager runs the hooks module before its first call. Hooks
// that do not load or cannot run are logged: a session event never fails closed.
func (m *Manager) StartSession(ctx context.Context, opts CallOptions) SessionHooks {
	return m.hooks.sessionEvent(ctx, opts, func(set *cmdhooks.Set, sess cmdhooks.Session) []cmdhooks.Decision {
		return set.SessionStart(ctx, harnessRunner{m.hooks}, sess, cmdhooks.SourceStartup)
	})
}

// EndSession runs the SessionEnd command hooks with reason (cmdhooks.ReasonPromptInputExit
// or cmdhooks.ReasonOther) and returns what they said; nothing they answer keeps the
// session open.
func (m *Manager) EndSession(ctx context.Context, reason string, opts CallOptions) SessionHooks {
	return m.hooks.sessionEvent(ctx, opts, func(set *cmdhooks.Set, sess cmdhooks.Session) []cmdhooks.Decision {
		return set.SessionEnd(ctx, harnessRunner{m.hooks}, sess, reason)
	})
}

// Notify runs the Notification command hooks of typ (cmdhooks.NotifyPermission, ...) with
// message, under the hooks' own timeouts. It waits for them: the caller runs it beside
// the card it notifies of, never before it.
func (m *Manager) Notify(ctx context.Context, message, typ string, opts CallOptions) SessionHooks {
	return m.hooks.sessionEvent(ctx, opts, func(set *cmdhooks.Set, sess cmdhooks.Session) []cmdhooks.Decision {
		return set.Notification(ctx, harnessRunner{m.hooks}, sess, message, typ)
	})
}

func (r *cmdHookRunner) sessionEvent(ctx context.Context, opts CallOptions, run func(*cmdhooks.Set, cmdhooks.Session) []cmdhooks.Decision) SessionHooks {
	set, err := r.commandHooks()
	if err != nil {
		r.log.Warn("command hooks: a session event's hooks do not load", "error", err)
		return SessionHooks{}
	}
	if set.Empty() {
		return SessionHooks{}
	}
	if err := r.own.Demand(ctx, protocol.KindTool, ""); err != nil { // settles the hook holders
		r.log.Warn("command hooks: the hooks module did not settle", "error", err)
	}
	// a session can open while a Reconcile still starts the builtin tier (`serve --mcp`)
	if !r.own.AwaitSettled(ctx, cmdhooks.Owner) && ctx.Err() == nil {
		r.log.Warn("command hooks: the hooks module is not live; the session event's hooks do not run")
	}
	ds := run(set, r.hookSession(opts.SessionID, opts.Workspace))
	for _, d := range ds {
		r.logHook(d, "")
	}
	return cmdhooks.FoldSession(ds)
}

// SessionSection is the prompt section of a session whose SessionStart hooks said h: their
// context, framed as WrapSection frames a plugin's, attributed to the hooks module; ok is
// false when they added none.
func SessionSection(h SessionHooks) (s PromptSection, ok bool) {
	text := h.SectionText()
	if text == "" {
		return PromptSection{}, false
	}
	return PromptSection{PluginID: cmdhooks.Owner, ID: SessionSectionID, Text: text, Wrapped: WrapSection(cmdhooks.Owner, SessionSectionID, text)}, true
}

// PostToolUse runs the PostToolUse command hooks that match the tool, after the call
// returned res, and returns the context they added for the caller: additionalContext, and
// the reason of a hook that "blocked" (the call has already run: nothing a hook answers
// undoes it), each line naming its hook, within cmdhooks.MaxContextTotal.
func (m *Manager) PostToolUse(ctx context.Context, tool, callID string, input json.RawMessage, res ToolResult, opts CallOptions) []string {
	m.hooks.afterCall(ctx, tool, callID, input, &res, nil, opts)
	return res.HookContext
}

// SubmittedPrompt is a prompt after its UserPromptSubmit hooks.
type SubmittedPrompt struct {
	// Prompt is the prompt as submitted; "" when a hook blocked it.
	Prompt string `json:"prompt"`
	// Blocked says a hook refused the prompt, Reason why (naming the hook).
	Blocked bool   `json:"blocked"`
	Reason  string `json:"reason,omitempty"`
	// Context is what the hooks added for the model, in order and bounded.
	Context []string `json:"context,omitempty"`
}

// SubmitPrompt runs the UserPromptSubmit command hooks with text and returns the prompt, or
// its refusal, with the context they added. Hooks that do not load, or that cannot run,
// block the prompt (fail closed).
func (m *Manager) SubmitPrompt(ctx context.Context, text string, opts CallOptions) (SubmittedPrompt, error) {
	set, err := m.hooks.commandHooks()
	if err != nil {
		return SubmittedPrompt{Blocked: true, Reason: fmt.Sprintf("the command hooks do not load: %v", err)}, nil
	}
	ds := set.UserPromptSubmit(ctx, harnessRunner{m.hooks}, m.hooks.hookSession(opts.SessionID, opts.Workspace), text)
	for _, d := range ds {
		m.hooks.logHook(d, "")
	}
	p := cmdhooks.FoldPrompt(ds)
	if ctx.Err() != nil && p.Blocked {
		return SubmittedPrompt{}, fmt.Errorf("prompt: %w: %w", ErrCancelled, context.Cause(ctx))
	}
	out := SubmittedPrompt{Blocked: p.Blocked, Reason: p.Reason, Context: p.Context}
	if !p.Blocked {
		out.Prompt = text
	}
	return out, nil
}

// HookTest is one run of `cwx hooks test`: what each matching hook decided.
type HookTest struct {
	Decisions []cmdhooks.Decision
}

// TestHooks runs the command hooks of event on input (Claude Code's event JSON: tool_name
// and tool_input, or prompt; tool_response for PostToolUse) as the core would, and returns
// their decisions. tool_name is a cwx name or Claude Code's.
func (m *Manager) TestHooks(ctx context.Context, event string, input json.RawMessage, opts CallOptions) ([]cmdhooks.Decision, error) {
	set, err := m.hooks.commandHooks()
	if err != nil {
		return nil, err
	}
	var in struct {
		ToolName     string          `json:"tool_name"`
		ToolInput    json.RawMessage `json:"tool_input"`
		ToolUseID    string          `json:"tool_use_id"`
		ToolResponse json.RawMessage `json:"tool_response"`
		Error        string          `json:"error"`
		Prompt       string          `json:"prompt"`
		SessionID    string          `json:"session_id"`
	}
	if err := json.Unmarshal(input, &in); err != nil {
		return nil, fmt.Errorf("%w: the input is not a JSON object with Claude Code's fields: %v", ErrInvalidInput, err)
	}
	if len(in.ToolInput) == 0 {
		in.ToolInput = json.RawMessage("{}")
	}
	if in.ToolUseID == "" {
		in.ToolUseID = cmdhooks.ToolUseID("hooks-test")
	}
	if opts.SessionID == "" {
		opts.SessionID = in.SessionID
	}
	sess := m.hooks.hookSession(opts.SessionID, opts.Workspace)
	tool := cmdhooks.NativeName(in.ToolName)
	var ds []cmdhooks.Decision
	switch event {
	case config.EventPreToolUse:
		ds = set.PreToolUse(ctx, harnessRunner{m.hooks}, sess, tool, in.ToolUseID, in.ToolInput)
	case config.EventPostToolUse:
		if len(in.ToolResponse) == 0 {
			in.ToolResponse = json.RawMessage("{}")
		}
		stdin, err := cmdhooks.PostToolUseEvent(sess, tool, in.ToolUseID, in.ToolInput, in.ToolResponse)
		ds = set.Fire(ctx, harnessRunner{m.hooks}, sess, event, tool, stdin, err)
	case config.EventPostToolUseFailure:
		stdin, err := cmdhooks.PostToolUseFailureEvent(sess, tool, in.ToolUseID, in.ToolInput, in.Error)
		ds = set.Fire(ctx, harnessRunner{m.hooks}, sess, event, tool, stdin, err)
	case config.EventUserPromptSubmit:
		ds = set.UserPromptSubmit(ctx, harnessRunner{m.hooks}, sess, in.Prompt)
	default:
		return nil, fmt.Errorf("%w: %q is not an event cwx runs hooks for", ErrInvalidInput, event)
	}
	for _, d := range ds {
		m.hooks.logHook(d, tool)
	}
	return ds, nil
}
