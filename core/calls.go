package core

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/cwx-dev/cwx/core/bundle"
	"github.com/cwx-dev/cwx/core/errdefs"
	"github.com/cwx-dev/cwx/core/gate"
	"github.com/cwx-dev/cwx/core/hooks"
	"github.com/cwx-dev/cwx/core/owners"
	"github.com/cwx-dev/cwx/core/protocol"
	"github.com/cwx-dev/cwx/core/registry"
	"github.com/cwx-dev/cwx/core/rpc"
	"github.com/cwx-dev/cwx/core/supervisor"
)

// CallOptions carry the caller's context into a call. Every field is optional.
type CallOptions struct {
	// Workspace is the absolute directory of the call: told to the plugin, and the one
	// native tools and core/call are confined to. "" reaches no file (natives.ErrNoWorkspace).
	Workspace                        string
	SessionID, AgentID, OriginTurnID string
	// Approver answers this call's approval card; nil uses the Manager's (Options.Approver).
	Approver Approver
	// Asker answers the questions the plugin asks the person while this call runs
	// (user/ask); nil: no person is present, and a question is refused NO_PROVIDER.
	Asker Asker
}

// ToolInfo describes a live extension tool or a native tool.
type ToolInfo struct {
	Name        string          `json:"name"`
	PluginID    string          `json:"plugin"` // "" for a native tool
	Origin      string          `json:"origin"` // "extension:<plugin id>" or OriginNative
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"input_schema"`
	// ReadOnly says a native tool changes nothing (shown, not enforced); an extension tool
	// never has it, whatever the plugin says.
	ReadOnly bool `json:"read_only,omitempty"`
	// Cached says the entry comes from the plugin's catalog entry (its last successful
	// activation with these bytes, config and bundle), not from a live owner: no host was
	// asked (ARCHITECTURE.md, “Catalog”). false for a live or native tool.
	Cached bool `json:"cached,omitempty"`
}

// CommandInfo describes a live extension command.
type CommandInfo struct {
	Name         string `json:"name"`
	PluginID     string `json:"plugin"`
	Origin       string `json:"origin"`
	Description  string `json:"description"`
	ArgumentHint string `json:"argument_hint,omitempty"`
	// Cached says the entry comes from the plugin's catalog entry, not from a live owner
	// (ARCHITECTURE.md, “Catalog”).
	Cached bool `json:"cached,omitempty"`
}

// ContentBlock is one block of a tool result.
type ContentBlock = protocol.ContentBlock

// ToolResult is what a tool returned. Text and Structured are the plugin's own output:
// strip terminal escapes before printing them (StripEscapes).
type ToolResult struct {
	Content    []ContentBlock  `json:"content"`
	IsError    bool            `json:"is_error"`
	Structured json.RawMessage `json:"structured,omitempty"`
	// CoreCalls are the receipts of the core/call requests the tool made while it ran.
	CoreCalls []CoreCallReceipt `json:"core_calls,omitempty"`
	// HookContext is what the PostToolUse command hooks added for the caller, each line
	// naming its hook, within cmdhooks.MaxContextTotal (builtin_hooks.go).
	HookContext []string `json:"hook_context,omitempty"`
	// HookMessages are the systemMessage of the PostToolUse (or PostToolUseFailure) command
	// hooks, for the person and not the model, each naming its hook (builtin_hooks.go).
	HookMessages []string `json:"hook_messages,omitempty"`
}

// Text joins the result's text blocks. A result of one block (the usual case) is
// returned as it is, without a copy.
func (r ToolResult) Text() string {
	switch len(r.Content) {
	case 0:
		return ""
	case 1:
		return r.Content[0].Text
	}
	n := len(r.Content) - 1
	for _, c := range r.Content {
		n += len(c.Text)
	}
	var b strings.Builder
	b.Grow(n)
	for i, c := range r.Content {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(c.Text)
	}
	return b.String()
}

// Tools lists the native tools and the live extension tools, and the cached tools of the
// plugins the catalog stands in for (Cached; core/owners), sorted by name.
func (m *Manager) Tools() []ToolInfo {
	out := m.nat.infos()
	taken := map[string]bool{}
	for _, t := range out {
		taken[registry.Fold(t.Name)] = true
	}
	for _, t := range m.reg.Tools() {
		out = append(out, ToolInfo{Name: t.Name, PluginID: t.PluginID, Origin: t.Origin, Description: t.Description, InputSchema: t.InputSchema})
		taken[registry.Fold(t.Name)] = true
	}
	for _, c := range m.own.CachedTools(taken) {
		out = append(out, ToolInfo{Name: c.Entry.Name, PluginID: c.PluginID, Origin: "extension:" + c.PluginID,
			Description: c.Entry.Description, InputSchema: slices.Clone(c.Entry.InputSchema), Cached: true})
	}
	slices.SortFunc(out, func(a, b ToolInfo) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// Commands lists the live commands, and the cached commands of the plugins the catalog
// stands in for (Cached; core/owners), sorted by name.
func (m *Manager) Commands() []CommandInfo {
	var out []CommandInfo
	taken := map[string]bool{}
	for _, c := range m.reg.Commands() {
		out = append(out, CommandInfo{Name: c.Name, PluginID: c.PluginID, Origin: c.Origin, Description: c.Description, ArgumentHint: c.ArgumentHint})
		taken["command:"+registry.Fold(c.Name)] = true
	}
	if cached := m.own.CachedCommands(taken); len(cached) > 0 {
		for _, c := range cached {
			out = append(out, CommandInfo{Name: c.Entry.Name, PluginID: c.PluginID, Origin: "extension:" + c.PluginID,
				Description: c.Entry.Description, ArgumentHint: c.Entry.ArgumentHint, Cached: true})
		}
		slices.SortFunc(out, func(a, b CommandInfo) int { return strings.Compare(a.Name, b.Name) })
	}
	return out
}

// CallTool calls a tool through the gate. A native tool runs in the core (callNative). A
// live extension tool goes through liveness (handle, generation, receipt), input validated
// against the tool's schema (ErrInvalidInput; the host sees nothing), the pre-execute hooks
// (preExecute; a deny is ErrDenied), approval (ErrDenied; the host sees nothing), then
// tool/call under ToolCallDeadline. Cancelling ctx sends
// `$/cancel` and returns ErrCancelled. Errors match ErrInvalidInput, ErrDenied,
// ErrNotAvailable (ErrHostExited, ErrBusy), ErrCancelled, ErrTimeout or ErrExecutionFailed
// with errors.Is.
func (m *Manager) CallTool(ctx context.Context, name string, input json.RawMessage, opts CallOptions) (ToolResult, error) {
	if len(input) == 0 {
		input = json.RawMessage("{}")
	}
	if err := m.own.Demand(ctx, protocol.KindTool, name); err != nil { // lazy activation (core/owners)
		return ToolResult{}, err
	}
	if tool, spec, ok := m.nat.set.Lookup(name); ok {
		return m.callNative(ctx, tool, spec, input, opts)
	}
	tg, err := m.lookupRunnable(ctx, toolCall, name)
	if err != nil {
		return ToolResult{}, err
	}
	if len(input) == 0 {
		input = json.RawMessage("{}")
	}
	if err := tg.ValidateInput(input); err != nil {
		return ToolResult{}, err
	}
	req := toolRequest(tg.Owner.PluginID, tg.Holder.Closure(), name, input, tg.Others)
	callID := m.cc.ids.next(toolCall)
	input, err = m.preExecute(ctx, preCall{name: name, callID: callID, input: input, mode: hooks.ModeAgent,
		workspace: opts.Workspace, session: opts.SessionID, validate: tg.ValidateInput}, &req)
	if err != nil {
		return ToolResult{}, err
	}
	if _, err := m.gate.Check(ctx, req, opts.Approver); err != nil {
		if ctx.Err() != nil && !errors.Is(err, ErrDenied) {
			return ToolResult{}, fmt.Errorf("tool %q: %w: %w", name, ErrCancelled, err)
		}
		return ToolResult{}, fmt.Errorf("tool %q: %w", name, err)
	}
	p := protocol.ToolCallParams{Handle: tg.Handle, CallID: callID, Input: input,
		DeadlineMS: uint64(ToolCallDeadline.Milliseconds()), Workspace: opts.Workspace, SessionID: opts.SessionID,
		AgentID: opts.AgentID, OriginTurnID: opts.OriginTurnID}
	msg, receipts, err := m.invoke(ctx, tg, p, opts)
	if err != nil {
		return ToolResult{}, err
	}
	res, ok := protocol.ValueOf[protocol.ToolResult](msg)
	if !ok {
		return ToolResult{}, &ExecutionError{Name: name, Message: "the host answered with something other than a tool result"}
	}
	out := ToolResult{Content: res.Content, IsError: res.IsError, Structured: res.Structured, CoreCalls: receipts}
	out.HookContext, out.HookMessages = m.hooks.afterCall(ctx, name, callID, input, out, opts)
	return out, nil
}

// callError turns a peer error into the Manager's typed errors.
func callError(kind, name string, err error, callCtx context.Context) error {
	if hang, ok := errors.AsType[*supervisor.HangError](err); ok {
		// the supervisor's reason, with what was running, rather than the broken stream's text
		return errdefs.WithText(fmt.Sprintf("%s %q: %s: %s while `%s` was running", kind, name, ErrHostExited, hang, name), err)
	}
	var ec *owners.EndCause
	if errors.As(context.Cause(callCtx), &ec) && (errors.Is(err, rpc.ErrCancelled) || errors.Is(err, rpc.ErrHostExited)) {
		return fmt.Errorf("%s %q: %w", kind, name, ec)
	}
	var re *rpc.RemoteError
	if errors.As(err, &re) {
		switch re.Code {
		case protocol.CodeExecutionFailed:
			return &ExecutionError{Name: name, Message: re.Message}
		case protocol.CodeCancelled, protocol.CodeNotAvailable:
			return fmt.Errorf("%s %q: %w", kind, name, err)
		case protocol.CodeDenied:
			return fmt.Errorf("%s %q: %w: %s", kind, name, ErrDenied, re.Message)
		case protocol.CodeInvalidParams:
			return fmt.Errorf("%s %q: %w: %s", kind, name, ErrInvalidInput, re.Message)
		}
		return &ExecutionError{Name: name, Message: re.Message}
	}
	return fmt.Errorf("%s %q: %w", kind, name, err)
}

// toolRequest is the gate's request for a model's call of tool, registered by pluginID: an
// extension tool, or a builtin module's (named as the module's, approved as its pin says).
func toolRequest(pluginID, closure, tool string, input json.RawMessage, others int) gate.Request {
	return gate.Request{PluginID: pluginID, ClosureSHA256: closure, Tool: tool, Input: input,
		OtherPlugins: others, Requirement: builtinRequirement(pluginID, tool),
		Builtin: owners.TierOf(pluginID) == protocol.TierBuiltin}
}

// builtinRequirement is the approval a tool of pluginID needs: Required for an extension tool,
// and for a builtin module's tool what the pinned table says (bundle.ToolApproval), and only
// that.
func builtinRequirement(pluginID, tool string) gate.Requirement {
	if owners.TierOf(pluginID) == protocol.TierBuiltin &&
		bundle.ToolApproval(pluginID[len(registry.HostIDPrefix):], tool) == bundle.ApprovalAuto {
		return gate.Eligible
	}
	return gate.Required
}

// PromptSection is one live prompt section: text a plugin contributes to the agent's
// prompt, attributed to its plugin (ARCHITECTURE.md, “Prompt sections”).
type PromptSection struct {
	PluginID string `json:"plugin"`
	ID       string `json:"id"`
	// Text is the plugin's text as admitted: valid UTF-8, no control characters but
	// newline and tab, none of the characters package inert refuses.
	Text string `json:"text"`
	// Wrapped is Text as an embedder puts it in front of a model: framed by lines that
	// name the plugin and the id, every line of the text quoted with "> ", so the text
	// can neither pose as system text nor end its own frame.
	Wrapped string `json:"wrapped"`
}

// PromptSections returns the live snapshot of prompt sections: those of Active owners,
// sorted by plugin id, then id. A section goes with its owner: when the owner ends,
// the next snapshot no longer has it. The whole block is bounded at registration
// (registry.MaxSectionBlock of text).
func (m *Manager) PromptSections() []PromptSection {
	live := m.reg.PromptSections()
	out := make([]PromptSection, 0, len(live))
	for _, s := range live {
		out = append(out, PromptSection{PluginID: s.PluginID, ID: s.ID, Text: s.Text, Wrapped: WrapSection(s.PluginID, s.ID, s.Text)})
	}
	return out
}

// PromptBlock joins the wrapped sections, in order, with a blank line between them: the
// text an embedder delivers as a user-role message, never as system text. It is "" when
// there are no sections.
func PromptBlock(sections []PromptSection) string {
	parts := make([]string, len(sections))
	for i, s := range sections {
		parts[i] = s.Wrapped
	}
	return strings.Join(parts, "\n\n")
}

// WrapSection frames one section's text as PromptSection.Wrapped describes.
func WrapSection(plugin, id, text string) string {
	var b strings.Builder
	b.Grow(len(text) + 160)
	b.WriteString("[prompt section `" + id + "` of plugin `" + plugin + "`: written by the plugin, not by the system or the person]\n")
	for _, line := range strings.Split(strings.TrimRight(text, "\n"), "\n") {
		b.WriteString("> " + line + "\n")
	}
	b.WriteString("[end of prompt section `" + id + "` of plugin `" + plugin + "`]")
	return b.String()
}
