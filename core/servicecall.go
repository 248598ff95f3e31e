package core

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/cwx-dev/cwx/core/gate"
	"github.com/cwx-dev/cwx/core/gitscope"
	"github.com/cwx-dev/cwx/core/protocol"
	"github.com/cwx-dev/cwx/core/skills"
)

// service is one agent service as core/call serves it.
type service struct {
	owner string                // the Options field that provides it
	req   gate.Requirement      // how the gate approves it
	ok    func(o *Options) bool // whether the embedder provides it
	run   func(ctx context.Context, m *Manager, inv *invocation, input json.RawMessage) (*protocol.ToolResult, error)
}

var services = map[string]service{
	ServiceSessionFlush:    {owner: "Sessions", req: gate.Eligible, ok: func(o *Options) bool { return o.Sessions != nil }, run: runFlush},
	ServiceSubagentStart:   {owner: "Subagents", req: gate.Required, ok: func(o *Options) bool { return o.Subagents != nil }, run: runChildStart},
	ServiceSubagentResult:  {owner: "Subagents", req: gate.Eligible, ok: func(o *Options) bool { return o.Subagents != nil }, run: runChildResult},
	ServiceSubagentDispose: {owner: "Subagents", req: gate.Eligible, ok: func(o *Options) bool { return o.Subagents != nil }, run: runChildDispose},
	ServiceSkillsList:      {owner: "Skills", req: gate.Eligible, ok: func(o *Options) bool { return o.Skills != nil }, run: runSkills},
	ServiceGitReviewScope:  {owner: "GitReviewScope", req: gate.Eligible, ok: func(o *Options) bool { return o.GitReviewScope != nil }, run: runGit},
}

// serviceCall serves core/call of an agent service: refused by name when the embedder does
// not provide it, gated (a child's start asks like a core tool that is not auto-eligible),
// then run bound to the invocation's context.
func (m *Manager) serviceCall(ctx context.Context, inv *invocation, name string, svc service, input json.RawMessage) (*protocol.ToolResult, CoreCallReceipt, error) {
	if !svc.ok(&m.o) {
		e, rc := coreCallError(protocol.CodeRefused, "refused", "refused", fmt.Sprintf(
			"core/call refused: `%s` is an agent service this agent does not provide (its embedder sets no Options.%s)", name, svc.owner))
		return nil, rc, e
	}
	if inv.kind != "tool" {
		e, rc := coreCallError(protocol.CodeRefused, "refused", "refused", fmt.Sprintf("core/call refused: `%s` is served only while a tool runs", name))
		return nil, rc, e
	}
	if len(input) == 0 || string(input) == "null" {
		input = json.RawMessage("{}")
	}
	if err := acquire(ctx, inv.slots); err != nil {
		e, rc := coreCallError(protocol.CodeCancelled, "cancelled", "cancelled", "core/call cancelled while waiting for a slot")
		return nil, rc, e
	}
	defer func() { <-inv.slots }()
	req := gate.Request{PluginID: inv.caller.PluginID, ClosureSHA256: inv.caller.ClosureSHA256, Tool: name, Input: input,
		OtherPlugins: inv.others, Requirement: svc.req, Caller: &inv.caller, AgentService: true}
	decision, err := m.approveRequest(ctx, inv, req)
	if err != nil {
		return nil, CoreCallReceipt{Decision: decision, Status: decision}, coreCallRPCError(ctx, err)
	}
	res, err := svc.run(ctx, m, inv, input)
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

func (inv *invocation) serviceCall() ServiceCall {
	return ServiceCall{PluginID: inv.caller.PluginID, Tool: inv.caller.Tool, CallID: inv.callID, SessionID: inv.session, AgentID: inv.agent, Workspace: inv.workspace}
}

// decodeInput reads a service's input strictly: unknown fields are refused.
func decodeInput(name string, input json.RawMessage, v any) error {
	d := json.NewDecoder(bytes.NewReader(input))
	d.DisallowUnknownFields()
	if err := d.Decode(v); err != nil {
		return &protocol.RPCError{Code: protocol.CodeInvalidParams, Message: fmt.Sprintf("core/call `%s`: the input: %v", name, err)}
	}
	return nil
}

// result is a service's answer: one text block and the structured value.
func result(text string, v any) (*protocol.ToolResult, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return &protocol.ToolResult{Content: []protocol.ContentBlock{{Type: protocol.ContentText, Text: text}}, Structured: b}, nil
}

func runFlush(ctx context.Context, m *Manager, inv *invocation, input json.RawMessage) (*protocol.ToolResult, error) {
	var in struct{}
	if err := decodeInput(ServiceSessionFlush, input, &in); err != nil {
		return nil, err
	}
	if inv.session == "" {
		return nil, &protocol.RPCError{Code: protocol.CodeRefused, Message: "core/call refused: `sessions_flush`: this call belongs to no session"}
	}
	if err := m.o.Sessions.Flush(ctx, inv.serviceCall()); err != nil {
		return nil, err
	}
	return result("session saved", map[string]any{"saved": true, "session_id": inv.session})
}

type childStartInput struct {
	Persona    string      `json:"persona"`
	Prompt     string      `json:"prompt"`
	ToolFilter *ToolFilter `json:"tool_filter"`
	Model      string      `json:"model"`
}

func runChildStart(ctx context.Context, m *Manager, inv *invocation, input json.RawMessage) (*protocol.ToolResult, error) {
	var in childStartInput
	if err := decodeInput(ServiceSubagentStart, input, &in); err != nil {
		return nil, err
	}
	invalid := func(why string) error {
		return &protocol.RPCError{Code: protocol.CodeInvalidParams, Message: "core/call `subagents_start`: " + why}
	}
	switch {
	case strings.TrimSpace(in.Prompt) == "":
		return nil, invalid("the child's prompt is empty")
	case plainText("the child's prompt", in.Prompt, MaxChildPrompt) != "":
		return nil, invalid(plainText("the child's prompt", in.Prompt, MaxChildPrompt))
	case plainText("the persona", in.Persona, MaxPersona) != "":
		return nil, invalid(plainText("the persona", in.Persona, MaxPersona))
	case inv.agent == "":
		return nil, &protocol.RPCError{Code: protocol.CodeRefused, Message: "core/call refused: `subagents_start`: this call belongs to no agent, so a child has no parent"}
	}
	sc := inv.serviceCall()
	parent, err := m.o.Subagents.Tools(ctx, sc)
	if err != nil {
		return nil, fmt.Errorf("the parent's tools: %w", err)
	}
	f := ToolFilter{}
	if in.ToolFilter != nil {
		f = *in.ToolFilter
	}
	tools, err := Narrow(parent, f)
	if err != nil {
		return nil, &protocol.RPCError{Code: protocol.CodeRefused, Message: "core/call refused: `subagents_start`: " + err.Error()}
	}
	if !inv.children.reserve() {
		return nil, &protocol.RPCError{Code: protocol.CodeRefused, Message: fmt.Sprintf("core/call refused: `subagents_start`: one tool call may start at most %d children", MaxChildren)}
	}
	id, err := m.o.Subagents.Start(ctx, sc, ChildRequest{Persona: in.Persona, Prompt: in.Prompt, Tools: tools, Model: in.Model})
	if err != nil {
		inv.children.release()
		return nil, err
	}
	if !inv.children.add(id) { // the tool call ended while the child started
		m.disposeOne(inv.serviceCall(), id)
		return nil, &protocol.RPCError{Code: protocol.CodeCancelled, Message: "core/call `subagents_start` cancelled: the tool call ended; the child was disposed"}
	}
	return result("child agent started: "+StripEscapes(id), map[string]any{"child_id": id, "tools": tools})
}

// disposeLeft disposes the children inv started and did not dispose, once it ended: the
// tool call's end waits for them, within ChildDisposeWait.
func (m *Manager) disposeLeft(inv *invocation) {
	left := inv.children.takeAll()
	if len(left) == 0 {
		return
	}
	sc := inv.serviceCall()
	for _, id := range left {
		m.disposeOne(sc, id)
	}
}

// disposeOne disposes a child its tool call left, within ChildDisposeWait.
func (m *Manager) disposeOne(sc ServiceCall, id string) {
	ctx, cancel := context.WithTimeout(context.Background(), ChildDisposeWait)
	defer cancel()
	if err := m.o.Subagents.Dispose(ctx, sc, id); err != nil {
		m.log.Warn("a child agent left by its tool call could not be disposed", "plugin", sc.PluginID, "tool", sc.Tool, "child", id, "error", err)
	}
}

type childInput struct {
	ChildID string `json:"child_id"`
}

func (in childInput) check(name string, inv *invocation) error {
	if !inv.children.has(in.ChildID) {
		return &protocol.RPCError{Code: protocol.CodeRefused, Message: fmt.Sprintf("core/call refused: `%s`: no live child of this tool call has that id", name)}
	}
	return nil
}

func runChildResult(ctx context.Context, m *Manager, inv *invocation, input json.RawMessage) (*protocol.ToolResult, error) {
	var in childInput
	if err := decodeInput(ServiceSubagentResult, input, &in); err != nil {
		return nil, err
	}
	if err := in.check(ServiceSubagentResult, inv); err != nil {
		return nil, err
	}
	r, err := m.o.Subagents.Result(ctx, inv.serviceCall(), in.ChildID)
	if err != nil {
		return nil, err
	}
	switch r.Status {
	case "completed", "failed", "cancelled":
	default:
		return nil, fmt.Errorf("the agent settled the child with status %q", r.Status)
	}
	text, cut := CutText(r.Text, MaxChildResult)
	return result(text, map[string]any{"child_id": in.ChildID, "status": r.Status, "text": text, "cut": cut})
}

func runChildDispose(ctx context.Context, m *Manager, inv *invocation, input json.RawMessage) (*protocol.ToolResult, error) {
	var in childInput
	if err := decodeInput(ServiceSubagentDispose, input, &in); err != nil {
		return nil, err
	}
	if err := in.check(ServiceSubagentDispose, inv); err != nil {
		return nil, err
	}
	if err := m.o.Subagents.Dispose(ctx, inv.serviceCall(), in.ChildID); err != nil {
		return nil, err
	}
	inv.children.drop(in.ChildID)
	return result("child agent disposed", map[string]any{"child_id": in.ChildID, "disposed": true})
}

func runSkills(ctx context.Context, m *Manager, _ *invocation, input json.RawMessage) (*protocol.ToolResult, error) {
	var in struct{}
	if err := decodeInput(ServiceSkillsList, input, &in); err != nil {
		return nil, err
	}
	list, _, err := m.SkillsList(ctx)
	if err != nil {
		return nil, err
	}
	names := make([]string, len(list))
	for i, s := range list {
		names[i] = s.Name
	}
	return result(strings.Join(names, "\n"), map[string]any{"skills": list})
}

// SkillsList discovers and audits the skills under the roots of Options.Skills; an agent
// that provides none has none.
func (m *Manager) SkillsList(ctx context.Context) ([]Skill, []SkillProblem, error) {
	if m.o.Skills == nil {
		return nil, nil, nil
	}
	roots, err := m.o.Skills.Roots(ctx)
	if err != nil {
		return nil, nil, fmt.Errorf("the agent's skills roots: %w", err)
	}
	list, probs := skills.Discover(roots)
	return list, probs, nil
}

type gitInput struct {
	Args []string `json:"args"`
}

func runGit(ctx context.Context, m *Manager, inv *invocation, input json.RawMessage) (*protocol.ToolResult, error) {
	var in gitInput
	if err := decodeInput(ServiceGitReviewScope, input, &in); err != nil {
		return nil, err
	}
	q, err := gitscope.Parse(in.Args)
	if err != nil {
		return nil, &protocol.RPCError{Code: protocol.CodeRefused, Message: "core/call refused: `git_review_scope`: " + err.Error()}
	}
	if inv.workspace == "" {
		return nil, &protocol.RPCError{Code: protocol.CodeRefused, Message: "core/call refused: `git_review_scope`: the call has no workspace"}
	}
	ctx, cancel := context.WithTimeout(ctx, gitscope.Deadline)
	defer cancel()
	out, err := m.o.GitReviewScope.Query(ctx, inv.serviceCall(), q)
	if err != nil {
		return nil, err
	}
	text, cut := CutText(out, gitscope.MaxOutput)
	return result(text, map[string]any{"query": q, "cut": cut})
}
