package core

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/cwx-dev/cwx/core/content"
	"github.com/cwx-dev/cwx/core/gate"
	"github.com/cwx-dev/cwx/core/hooks"
	"github.com/cwx-dev/cwx/core/protocol"
	"github.com/cwx-dev/cwx/core/registry"
	"github.com/cwx-dev/cwx/core/rpc"
	"github.com/cwx-dev/cwx/core/services"
	"github.com/cwx-dev/cwx/core/tickets"
)

// Tools lists the native tools and the live extension tools, the cached tools of the
// plugins the catalog stands in for (Cached; core/owners), and the MCP servers' tools, live
// or cached (mcpcall.go), sorted by name.
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
	out = append(out, m.MCP().listed(taken)...)
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
			taken["command:"+registry.Fold(c.Entry.Name)] = true
		}
	}
	for _, c := range m.hooks.claudeCommands() {
		if key := "command:" + registry.Fold(c.Name); !taken[key] {
			taken[key] = true
			out = append(out, c)
		}
	}
	slices.SortFunc(out, func(a, b CommandInfo) int { return strings.Compare(a.Name, b.Name) })
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
	if srv, ok := m.mcp.ServerOf(name); ok { // mcp_<server>_…: no plugin may take the prefix
		return m.callMCP(ctx, srv, name, input, opts)
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
	if !req.Builtin {
		req.Containment, req.Dev = m.own.Containment(tg.Owner.PluginID), tg.Holder.Dev()
	}
	callID := m.cc.ids.next(toolCall)
	input, err = m.pre.run(ctx, preCall{name: name, callID: callID, input: input, mode: hooks.ModeAgent,
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
	msg, receipts, err := m.cc.invoke(ctx, tg, p, opts)
	if err != nil {
		return ToolResult{}, err
	}
	res, ok := protocol.ValueOf[protocol.ToolResult](msg)
	if !ok {
		return ToolResult{}, &ExecutionError{Name: name, Message: "the host answered with something other than a tool result"}
	}
	if err := content.Check(res.Content); err != nil { // the content policy (package content)
		return ToolResult{}, &ExecutionError{Name: name, Message: err.Error()}
	}
	out := ToolResult{Content: res.Content, IsError: res.IsError, Structured: res.Structured, CoreCalls: receipts}
	m.hooks.afterCall(ctx, name, callID, input, &out, nil, opts)
	return out, nil
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
	return append(out, m.MCP().sections()...) // the running MCP servers' instructions (mcpcall.go)
}

// invoke sends a tool/call that carries a ticket: the ticket is minted for this call's
// owner on its incarnation, revoked when the call ends (answer, deadline, cancel), when the
// owner ends and when the host exits (HostExited); the deadline pauses while a core/call of
// this invocation waits for a person.
func (c *coreCalls) invoke(ctx context.Context, tg target, p protocol.ToolCallParams, opts CallOptions) (*protocol.Message, []CoreCallReceipt, error) {
	table := c.tickets()
	tk, err := table.Mint(tickets.Row{Kind: tickets.Invocation, Host: tickets.Host{Key: tg.Host, Generation: tg.Holder.Generation()},
		Owner: tg.Owner, Method: protocol.MethodCoreCall, Target: tickets.Target{CallID: p.CallID, Tool: tg.Name}})
	if err != nil {
		return nil, nil, &ExecutionError{Name: tg.Name, Message: err.Error()}
	}
	defer table.Revoke(tk)

	// One context for the host call and the invocation's core/calls: it ends with ctx, the
	// deadline, the owner's end (with its cause, which callError reads) and the return.
	callCtx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	stopOwner := context.AfterFunc(tg.Holder.Context(), func() {
		table.RevokeOwner(tg.Owner)
		cancel(context.Cause(tg.Holder.Context()))
	})
	defer stopOwner()
	timeout := c.timeout
	if timeout <= 0 {
		timeout = tg.kind.deadline
	}
	if opts.Deadline > 0 {
		timeout = opts.Deadline
	}
	errDeadline := &deadlineError{method: tg.kind.method, after: timeout}
	dl := startDeadline(c.clock, timeout, func() { cancel(errDeadline) })
	defer dl.stop()
	approver := opts.Approver
	inv := &invocation{ticket: tk, caller: gate.Caller{PluginID: tg.Owner.PluginID, ClosureSHA256: tg.Holder.Closure(), Tool: tg.Name},
		others: tg.Others, workspace: opts.Workspace, callID: p.CallID, session: opts.SessionID, agent: opts.AgentID, children: services.NewChildren(c.log), approver: approver, asker: opts.Asker, kind: "tool", deadline: dl, ctx: callCtx,
		slots: make(chan struct{}, MaxConcurrentCoreCalls), card: make(chan struct{}, 1), idle: make(chan struct{})}
	c.add(p.CallID, inv)
	defer c.remove(p.CallID)

	p.Ticket = tk.Reveal()
	p.DeadlineMS = uint64(timeout.Milliseconds())
	msg, err := sendIn(callCtx, tg, p, rpc.CallOpts{})
	if err != nil && errors.Is(context.Cause(callCtx), errDeadline) {
		err = fmt.Errorf("%s %q: %w", tg.kind.name, tg.Name, errDeadline)
	}
	receipts := inv.finish(cancel)
	services.DisposeLeft(c.svc.Subagents, inv.serviceCall(), inv.children)
	return msg, receipts, err
}
