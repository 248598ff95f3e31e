package core

import (
	"context"

	"github.com/cwx-dev/cwx/core/cmdhooks"
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
