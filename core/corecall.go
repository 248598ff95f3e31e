package core

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/cwx-dev/cwx/core/gate"
	"github.com/cwx-dev/cwx/core/hooks"
	"github.com/cwx-dev/cwx/core/natives"
	"github.com/cwx-dev/cwx/core/owners"
	"github.com/cwx-dev/cwx/core/protocol"
	"github.com/cwx-dev/cwx/core/registry"
	"github.com/cwx-dev/cwx/core/rpc"
	"github.com/cwx-dev/cwx/core/tickets"
)

// refusedPrefixes and refusedNames are what core/call never runs, whatever the native table
// holds: MCP tools, and what changes what is installed or scheduled beyond the session.
// Names compare folded (foldName).
var (
	refusedPrefixes = []string{"mcp_"}
	refusedNames    = map[string]bool{
		"request_plugin_install": true, "plugin_install": true, "automation": true, "automations": true,
		"send_later": true, "schedule": true, "goal": true, "goals": true, "remember": true,
	}
)

var errTicketRefused = &protocol.RPCError{Code: protocol.CodeRefused, Message: "core/call refused: " + tickets.ErrRefused.Error()}

// serveCoreCall answers core/call: the ticket is redeemed against what the core knows of
// the request (its tier and host generation, the owner and method it states); a burst of
// invalid tickets is a violation that ends the host (the supervisor closes the peer on an
// rpc.ErrViolation). Then the call is refused, validated, gated and run as the invocation
// allows (ARCHITECTURE.md, “Approval”), and its receipt recorded.
func (m *Manager) serveCoreCall(ctx context.Context, t protocol.HostKey, gen uint64, p *protocol.CoreCallParams) (any, error) {
	row, err := m.cc.tickets().Redeem(p.Ticket, tickets.Presentation{Kind: tickets.Invocation,
		Host: tickets.Host{Key: t, Generation: gen}, Owner: p.Owner, Method: protocol.MethodCoreCall})
	if errors.Is(err, tickets.ErrViolation) {
		m.log.Warn("host presented too many invalid tickets; ending it", "tier", t, "host_generation", gen)
		return nil, fmt.Errorf("%w: core/call: %w", rpc.ErrViolation, err)
	}
	if err != nil {
		return nil, errTicketRefused
	}
	inv := m.cc.get(row.Target.CallID)
	if inv == nil || !inv.enter() {
		return nil, errTicketRefused
	}
	defer inv.leave()
	ctx, stop := owners.EndsWith(ctx, inv.ctx)
	defer stop()
	res, rc, rerr := m.coreCall(ctx, inv, p.Name, p.Input)
	rc.Name = p.Name
	inv.record(rc)
	if rerr != nil {
		return nil, rerr
	}
	return res, nil
}

// coreCall runs one core/call of inv; it returns the result or an *protocol.RPCError, and
// the receipt.
func (m *Manager) coreCall(ctx context.Context, inv *invocation, name string, input json.RawMessage) (*protocol.ToolResult, CoreCallReceipt, error) {
	if svc, ok := services[name]; ok { // an agent service (services.go)
		return m.serviceCall(ctx, inv, name, svc, input)
	}
	if reason := refusal(m.reg, m.nat, inv, name); reason != "" {
		e, rc := coreCallError(protocol.CodeRefused, "refused", "refused", fmt.Sprintf("core/call refused: %s", reason))
		return nil, rc, e
	}
	tool, spec, _ := m.nat.set.Lookup(name)
	if len(input) == 0 || string(input) == "null" {
		input = json.RawMessage("{}")
	}
	if err := m.nat.schemas[name].Validate(input); err != nil {
		e, rc := coreCallError(protocol.CodeInvalidParams, "refused", "refused", err.Error())
		return nil, rc, e
	}
	if err := acquire(ctx, inv.slots); err != nil {
		e, rc := coreCallError(protocol.CodeCancelled, "cancelled", "cancelled", "core/call cancelled while waiting for a slot")
		return nil, rc, e
	}
	defer func() { <-inv.slots }()
	req := coreCallRequest(inv, spec, input)
	input, err := m.preExecute(ctx, preCall{name: name, callID: m.cc.ids.next(toolCall), input: input, mode: hooks.ModeCoreCall,
		workspace: inv.workspace, validate: m.nat.schemas[name].Validate}, &req)
	switch {
	case errors.Is(err, ErrCancelled):
		e, rc := coreCallError(protocol.CodeCancelled, "cancelled", "cancelled", "core/call cancelled while its pre-execute hooks were asked")
		return nil, rc, e
	case err != nil:
		e, rc := coreCallError(protocol.CodeDenied, "denied", "denied", "core/call denied: "+err.Error())
		return nil, rc, e
	}
	if err := planWrite(ctx, tool, inv.workspace, input, &req); err != nil {
		code, status := protocol.CodeRefused, "refused"
		if ctx.Err() != nil {
			code, status = protocol.CodeCancelled, "cancelled"
		}
		e, rc := coreCallError(code, status, status, "core/call refused: "+err.Error())
		return nil, rc, e
	}
	decision, err := m.approveRequest(ctx, inv, req)
	if err != nil {
		return nil, CoreCallReceipt{Decision: decision, Status: decision}, coreCallRPCError(ctx, err)
	}
	res, err := tool.Run(ctx, natives.Call{Workspace: inv.workspace, Input: input})
	switch {
	case errors.Is(err, natives.ErrNoWorkspace) || errors.Is(err, natives.ErrOutsideWorkspace):
		e, rc := coreCallError(protocol.CodeRefused, decision, "refused", "core/call refused: "+err.Error())
		return nil, rc, e
	case err != nil && ctx.Err() != nil:
		e, rc := coreCallError(protocol.CodeCancelled, decision, "cancelled", "core/call cancelled")
		return nil, rc, e
	case err != nil:
		e, rc := coreCallError(protocol.CodeExecutionFailed, decision, "failed", fmt.Sprintf("core tool `%s` failed: %s", name, err))
		return nil, rc, e
	}
	status := "ok"
	if res.IsError {
		status = "error"
	}
	out := &protocol.ToolResult{Content: []protocol.ContentBlock{{Type: protocol.ContentText, Text: res.Text}}, IsError: res.IsError, Structured: res.Structured}
	return out, CoreCallReceipt{Decision: decision, Status: status, Bytes: len(res.Text)}, nil
}

// refusal says why name may never be run by core/call, or "": any extension tool (the
// caller's own included), refused names and prefixes, anything not in the native table.
func refusal(reg *registry.Registry, nat nativeTable, inv *invocation, name string) string {
	f := registry.Fold(name)
	if f == registry.Fold(inv.caller.Tool) {
		return fmt.Sprintf("`%s` is the calling extension's own tool", name)
	}
	for _, t := range reg.Tools() {
		if registry.Fold(t.Name) == f {
			return fmt.Sprintf("`%s` is an extension tool; core/call runs only the core's own tools", name)
		}
	}
	for _, p := range refusedPrefixes {
		if strings.HasPrefix(f, p) {
			return fmt.Sprintf("`%s` is not available to extensions", name)
		}
	}
	if refusedNames[f] {
		return fmt.Sprintf("`%s` changes what is installed or scheduled", name)
	}
	if _, _, ok := nat.set.Lookup(name); !ok {
		return fmt.Sprintf("`%s` is not a core tool", name)
	}
	return ""
}

// coreCallRequest is the gate's request for inv's core/call of spec's tool with input. A
// tool that writes files is Forced: a plugin's write is always asked of a person.
func coreCallRequest(inv *invocation, spec natives.Spec, input json.RawMessage) gate.Request {
	req := gate.Request{PluginID: inv.caller.PluginID, ClosureSHA256: inv.caller.ClosureSHA256, Tool: spec.Name, Input: input,
		OtherPlugins: inv.others, Requirement: requirementOf(spec), Caller: &inv.caller}
	if spec.Writes {
		req.Requirement = gate.Forced
	}
	return req
}
