package core

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/cwx-dev/cwx/core/fetchproxy"
	"github.com/cwx-dev/cwx/core/gate"
	"github.com/cwx-dev/cwx/core/hooks"
	"github.com/cwx-dev/cwx/core/natives"
	"github.com/cwx-dev/cwx/core/owners"
	"github.com/cwx-dev/cwx/core/protocol"
	"github.com/cwx-dev/cwx/core/questions"
	"github.com/cwx-dev/cwx/core/registry"
	"github.com/cwx-dev/cwx/core/rpc"
	"github.com/cwx-dev/cwx/core/services"
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
func (c *coreCalls) serveCoreCall(ctx context.Context, t protocol.HostKey, gen uint64, p *protocol.CoreCallParams) (any, error) {
	row, err := c.tickets().Redeem(p.Ticket, tickets.Presentation{Kind: tickets.Invocation,
		Host: tickets.Host{Key: t, Generation: gen}, Owner: p.Owner, Method: protocol.MethodCoreCall})
	if errors.Is(err, tickets.ErrViolation) {
		c.log.Warn("host presented too many invalid tickets; ending it", "tier", t, "host_generation", gen)
		return nil, fmt.Errorf("%w: core/call: %w", rpc.ErrViolation, err)
	}
	if err != nil {
		return nil, errTicketRefused
	}
	inv := c.get(row.Target.CallID)
	if inv == nil || !inv.enter() {
		return nil, errTicketRefused
	}
	defer inv.leave()
	ctx, stop := owners.EndsWith(ctx, inv.ctx)
	defer stop()
	res, rc, rerr := c.coreCall(ctx, inv, p.Name, p.Input)
	rc.Name = p.Name
	inv.record(rc)
	if rerr != nil {
		return nil, rerr
	}
	return res, nil
}

// coreCall runs one core/call of inv; it returns the result or an *protocol.RPCError, and
// the receipt.
func (c *coreCalls) coreCall(ctx context.Context, inv *invocation, name string, input json.RawMessage) (*protocol.ToolResult, CoreCallReceipt, error) {
	if svc, ok := services.Lookup(name); ok { // an agent service (core/services)
		return c.serviceCall(ctx, inv, name, svc, input)
	}
	if reason := refusal(c.reg, c.nat, inv, name); reason != "" {
		e, rc := coreCallError(protocol.CodeRefused, "refused", "refused", fmt.Sprintf("core/call refused: %s", reason))
		return nil, rc, e
	}
	tool, spec, _ := c.nat.set.Lookup(name)
	if len(input) == 0 || string(input) == "null" {
		input = json.RawMessage("{}")
	}
	if err := c.nat.schemas[name].Validate(input); err != nil {
		e, rc := coreCallError(protocol.CodeInvalidParams, "refused", "refused", err.Error())
		return nil, rc, e
	}
	if err := acquire(ctx, inv.slots); err != nil {
		e, rc := coreCallError(protocol.CodeCancelled, "cancelled", "cancelled", "core/call cancelled while waiting for a slot")
		return nil, rc, e
	}
	defer func() { <-inv.slots }()
	req := coreCallRequest(inv, spec, input)
	input, err := c.pre.run(ctx, preCall{name: name, callID: c.ids.next(toolCall), input: input, mode: hooks.ModeCoreCall,
		workspace: inv.workspace, validate: c.nat.schemas[name].Validate}, &req)
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
	decision, err := c.approve(ctx, inv, req)
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

// serviceCall serves core/call of an agent service (core/services): refused by name when the
// embedder does not provide it or a command asks, counted against the invocation's slots,
// gated (a child's start asks like a core tool that is not auto-eligible), then run bound to
// the invocation's context.
func (c *coreCalls) serviceCall(ctx context.Context, inv *invocation, name string, svc services.Service, input json.RawMessage) (*protocol.ToolResult, CoreCallReceipt, error) {
	if !svc.In(c.svc) {
		e, rc := coreCallError(protocol.CodeRefused, "refused", "refused", fmt.Sprintf(
			"core/call refused: `%s` is an agent service this agent does not provide (its embedder sets no Options.%s)", name, svc.Owner))
		return nil, rc, e
	}
	if inv.kind != "tool" {
		e, rc := coreCallError(protocol.CodeRefused, "refused", "refused", fmt.Sprintf("core/call refused: `%s` is served only while a tool runs", name))
		return nil, rc, e
	}
	if len(input) == 0 || string(input) == "null" {
		input = json.RawMessage("{}")
	}
	// what the service refuses whatever the approval is refused before anyone is asked
	if err := svc.Check(inv.serviceCall(), input); err != nil {
		return nil, CoreCallReceipt{Decision: "refused", Status: "refused"}, err
	}
	if err := acquire(ctx, inv.slots); err != nil {
		e, rc := coreCallError(protocol.CodeCancelled, "cancelled", "cancelled", "core/call cancelled while waiting for a slot")
		return nil, rc, e
	}
	defer func() { <-inv.slots }()
	req := gate.Request{PluginID: inv.caller.PluginID, ClosureSHA256: inv.caller.ClosureSHA256, Tool: name, Input: input,
		OtherPlugins: inv.others, Requirement: svc.Requirement, Caller: &inv.caller, AgentService: true}
	decision, err := c.approve(ctx, inv, req)
	if err != nil {
		return nil, CoreCallReceipt{Decision: decision, Status: decision}, coreCallRPCError(ctx, err)
	}
	res, err := svc.Run(ctx, c.svc, inv.serviceCall(), inv.children, input)
	var re *protocol.RPCError
	switch {
	case errors.As(err, &re):
		status := "failed"
		switch re.Code {
		case protocol.CodeRefused, protocol.CodeInvalidParams:
			status = "refused"
		case protocol.CodeCancelled:
			status = "cancelled"
		}
		return nil, CoreCallReceipt{Decision: decision, Status: status}, re
	case err != nil && ctx.Err() != nil:
		e, rc := coreCallError(protocol.CodeCancelled, decision, "cancelled", fmt.Sprintf("core/call `%s` cancelled", name))
		return nil, rc, e
	case err != nil:
		e, rc := coreCallError(protocol.CodeExecutionFailed, decision, "failed", fmt.Sprintf("agent service `%s` failed: %s", name, err))
		return nil, rc, e
	}
	return res, CoreCallReceipt{Decision: decision, Status: "ok", Bytes: len(res.Content[0].Text)}, nil
}

// coreCallError is a core/call answered with an error code, and its receipt.
func coreCallError(code int, decision, status, msg string) (*protocol.RPCError, CoreCallReceipt) {
	return &protocol.RPCError{Code: code, Message: msg}, CoreCallReceipt{Decision: decision, Status: status}
}

// approve asks the gate about a core/call of inv, as the pre-execute hooks may have changed
// its request (Forced by an ask, their notes on the card): an Eligible request is decided
// without a card; any other waits for inv's one card at a time, with the invocation's
// deadline standing still. It returns the receipt's decision.
func (c *coreCalls) approve(ctx context.Context, inv *invocation, req gate.Request) (string, error) {
	if req.Requirement == gate.Eligible {
		if _, err := c.gate.Check(ctx, req, nil); err != nil {
			return "refused", err
		}
		return "auto", nil
	}
	resume := inv.deadline.pause()
	defer resume()
	if err := acquire(ctx, inv.card); err != nil {
		return "cancelled", err
	}
	defer func() { <-inv.card }()
	src, err := c.gate.Check(ctx, req, inv.approver)
	switch {
	case err == nil:
		return string(src), nil
	case ctx.Err() != nil && !errors.Is(err, ErrDenied):
		return "cancelled", err
	}
	return "denied", err
}

// coreCallRPCError answers a gate failure: denied (-32003) or cancelled (-32800).
func coreCallRPCError(ctx context.Context, err error) *protocol.RPCError {
	if ctx.Err() != nil && !errors.Is(err, ErrDenied) {
		return &protocol.RPCError{Code: protocol.CodeCancelled, Message: "core/call cancelled; its approval card was withdrawn"}
	}
	return &protocol.RPCError{Code: protocol.CodeDenied, Message: "core/call denied: " + err.Error()}
}

var errQuestionTicket = &protocol.RPCError{Code: protocol.CodeRefused,
	Message: "user/ask refused: a plugin may ask only during a live invocation of its own tool or command (" + tickets.ErrRefused.Error() + ")"}

// serveUserAsk answers user/ask: the ticket must be a live invocation's, of this host and
// owner (a tool's or a command's); the question is checked, put to the invocation's Asker
// while the invocation's deadline stands still, and the answer checked against it.
func (c *coreCalls) serveUserAsk(ctx context.Context, t protocol.HostKey, gen uint64, p *protocol.UserAskParams) (any, error) {
	row, err := c.tickets().RedeemQuestion(p.Ticket, tickets.Host{Key: t, Generation: gen}, p.Owner)
	if errors.Is(err, tickets.ErrViolation) {
		c.log.Warn("host presented too many invalid tickets; ending it", "tier", t, "host_generation", gen)
		return nil, fmt.Errorf("%w: user/ask: %w", rpc.ErrViolation, err)
	}
	if err != nil {
		return nil, errQuestionTicket
	}
	inv := c.get(row.Target.CallID)
	if inv == nil || !inv.enter() {
		return nil, errQuestionTicket
	}
	defer inv.leave()
	q, why := questions.Check(inv.caller.PluginID, inv.kind, row.Target.Tool, p.Question)
	if why != "" {
		return nil, &protocol.RPCError{Code: protocol.CodeInvalidParams, Message: "user/ask: " + why}
	}
	ctx, stop := owners.EndsWith(ctx, inv.ctx)
	defer stop()
	return inv.ask(ctx, q)
}

// fetchInvocation ties a net/fetch that carries a ticket to its invocation (the fetch
// proxy's Options.Invocation, core/fetchproxy): the ticket must be a live tool call's or
// command's, of this host and owner, as for user/ask. It is looked up without spending a use
// (tickets.Table.Look): a plugin may poll a service far more often than it calls the core.
// The exchange's context then ends with the invocation, its deadline included.
func (c *coreCalls) fetchInvocation(ctx context.Context, fc fetchproxy.Caller, ticket string) (context.Context, func(), error) {
	row, err := c.tickets().Look(ticket, tickets.Host{Key: fc.Host, Generation: fc.Generation}, fc.Owner)
	if errors.Is(err, tickets.ErrViolation) {
		c.log.Warn("host presented too many invalid tickets; ending it", "tier", fc.Host, "host_generation", fc.Generation)
		return nil, nil, fmt.Errorf("%w: net/fetch: %w", rpc.ErrViolation, err)
	}
	if err != nil {
		return nil, nil, err
	}
	inv := c.get(row.Target.CallID)
	if inv == nil {
		return nil, nil, tickets.ErrRefused
	}
	ictx, stop := owners.EndsWith(ctx, inv.ctx)
	return ictx, stop, nil
}

// ask puts q to inv's Asker, one question or card at a time, with the invocation's deadline
// standing still.
func (inv *invocation) ask(ctx context.Context, q Question) (any, error) {
	if inv.asker == nil {
		return nil, questions.NoProvider(q)
	}
	resume := inv.deadline.pause()
	defer resume()
	if err := acquire(ctx, inv.card); err != nil {
		return nil, &protocol.RPCError{Code: protocol.CodeCancelled, Message: "user/ask cancelled"}
	}
	defer func() { <-inv.card }()
	ans, rerr := questions.Put(ctx, inv.asker, q)
	if rerr != nil {
		return nil, rerr
	}
	return ans, nil
}
