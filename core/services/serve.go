package services

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/cwx-dev/cwx/core/gate"
	"github.com/cwx-dev/cwx/core/gitscope"
	"github.com/cwx-dev/cwx/core/inert"
	"github.com/cwx-dev/cwx/core/protocol"
	"github.com/cwx-dev/cwx/core/skills"
	"github.com/hashicorp/go-hclog"
)

// Service is one agent service as core/call serves it.
type Service struct {
	// Owner is the Options field that provides it, as a refusal names it.
	Owner string
	// Requirement is how the gate approves a call of it.
	Requirement gate.Requirement
	has         func(Provided) bool
	check       func(c Call, input json.RawMessage) error // nil: everything is checked by run
	run         func(ctx context.Context, p Provided, c Call, kids *Children, input json.RawMessage) (*protocol.ToolResult, error)
}

var table = map[string]Service{
	NameSessionFlush:    {Owner: "Sessions", Requirement: gate.Eligible, has: func(p Provided) bool { return p.Sessions != nil }, run: runFlush},
	NameSubagentStart:   {Owner: "Subagents", Requirement: gate.Required, has: func(p Provided) bool { return p.Subagents != nil }, run: runChildStart},
	NameSubagentResult:  {Owner: "Subagents", Requirement: gate.Eligible, has: func(p Provided) bool { return p.Subagents != nil }, run: runChildResult},
	NameSubagentDispose: {Owner: "Subagents", Requirement: gate.Eligible, has: func(p Provided) bool { return p.Subagents != nil }, run: runChildDispose},
	NameSkillsList:      {Owner: "Skills", Requirement: gate.Eligible, has: func(p Provided) bool { return p.Skills != nil }, run: runSkills},
	NameGitReviewScope:  {Owner: "GitReviewScope", Requirement: gate.Eligible, has: func(p Provided) bool { return p.GitReviewScope != nil }, check: checkGit, run: runGit},
}

// Lookup is the service name reserves, if it names one.
func Lookup(name string) (Service, bool) {
	s, ok := table[name]
	return s, ok
}

// In reports whether p provides s.
func (s Service) In(p Provided) bool { return s.has(p) }

// Check refuses, before the gate, an input s would refuse however the call is approved (a
// git query gitscope does not admit, a call without a workspace), so no person is asked about
// it; nil when Run decides. A refusal is a *protocol.RPCError.
func (s Service) Check(c Call, input json.RawMessage) error {
	if s.check == nil {
		return nil
	}
	return s.check(c, input)
}

// Run runs s for c, once the core has approved it: p provides s (In), kids are the
// children c's tool call started. A refusal of the input or of the call is a
// *protocol.RPCError; any other error is the embedder's.
func (s Service) Run(ctx context.Context, p Provided, c Call, kids *Children, input json.RawMessage) (*protocol.ToolResult, error) {
	return s.run(ctx, p, c, kids, input)
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

func runFlush(ctx context.Context, p Provided, c Call, _ *Children, input json.RawMessage) (*protocol.ToolResult, error) {
	var in struct{}
	if err := decodeInput(NameSessionFlush, input, &in); err != nil {
		return nil, err
	}
	if c.SessionID == "" {
		return nil, &protocol.RPCError{Code: protocol.CodeRefused, Message: "core/call refused: `sessions_flush`: this call belongs to no session"}
	}
	if err := p.Sessions.Flush(ctx, c); err != nil {
		return nil, err
	}
	return result("session saved", map[string]any{"saved": true, "session_id": c.SessionID})
}

type childStartInput struct {
	Persona    string      `json:"persona"`
	Prompt     string      `json:"prompt"`
	ToolFilter *ToolFilter `json:"tool_filter"`
	Model      string      `json:"model"`
}

func runChildStart(ctx context.Context, p Provided, c Call, kids *Children, input json.RawMessage) (*protocol.ToolResult, error) {
	var in childStartInput
	if err := decodeInput(NameSubagentStart, input, &in); err != nil {
		return nil, err
	}
	invalid := func(why string) error {
		return &protocol.RPCError{Code: protocol.CodeInvalidParams, Message: "core/call `subagents_start`: " + why}
	}
	switch {
	case strings.TrimSpace(in.Prompt) == "":
		return nil, invalid("the child's prompt is empty")
	case inert.CheckText("the child's prompt", in.Prompt, MaxChildPrompt) != "":
		return nil, invalid(inert.CheckText("the child's prompt", in.Prompt, MaxChildPrompt))
	case inert.CheckText("the persona", in.Persona, MaxPersona) != "":
		return nil, invalid(inert.CheckText("the persona", in.Persona, MaxPersona))
	case c.AgentID == "":
		return nil, &protocol.RPCError{Code: protocol.CodeRefused, Message: "core/call refused: `subagents_start`: this call belongs to no agent, so a child has no parent"}
	}
	parent, err := p.Subagents.Tools(ctx, c)
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
	if !kids.reserve() {
		return nil, &protocol.RPCError{Code: protocol.CodeRefused, Message: fmt.Sprintf("core/call refused: `subagents_start`: one tool call may start at most %d children", MaxChildren)}
	}
	id, err := p.Subagents.Start(ctx, c, ChildRequest{Persona: in.Persona, Prompt: in.Prompt, Tools: tools, Model: in.Model})
	if err != nil {
		kids.release()
		return nil, err
	}
	if !kids.add(id) { // the tool call ended while the child started
		disposeOne(p.Subagents, kids.log, c, id)
		return nil, &protocol.RPCError{Code: protocol.CodeCancelled, Message: "core/call `subagents_start` cancelled: the tool call ended; the child was disposed"}
	}
	return result("child agent started: "+inert.Strip(id), map[string]any{"child_id": id, "tools": tools})
}

// DisposeLeft disposes the children kids holds once c's tool call ended: the call's end
// waits for them, within ChildDisposeWait each. A child that cannot be disposed is logged.
func DisposeLeft(sub Subagents, c Call, kids *Children) {
	left := kids.takeAll()
	for _, id := range left {
		disposeOne(sub, kids.log, c, id)
	}
}

// disposeOne disposes a child its tool call left, within ChildDisposeWait.
func disposeOne(sub Subagents, log hclog.Logger, c Call, id string) {
	ctx, cancel := context.WithTimeout(context.Background(), ChildDisposeWait)
	defer cancel()
	if err := sub.Dispose(ctx, c, id); err != nil {
		log.Warn("a child agent left by its tool call could not be disposed", "plugin", c.PluginID, "tool", c.Tool, "child", id, "error", err)
	}
}

type childInput struct {
	ChildID string `json:"child_id"`
}

func (in childInput) check(name string, kids *Children) error {
	if !kids.has(in.ChildID) {
		return &protocol.RPCError{Code: protocol.CodeRefused, Message: fmt.Sprintf("core/call refused: `%s`: no live child of this tool call has that id", name)}
	}
	return nil
}

func runChildResult(ctx context.Context, p Provided, c Call, kids *Children, input json.RawMessage) (*protocol.ToolResult, error) {
	var in childInput
	if err := decodeInput(NameSubagentResult, input, &in); err != nil {
		return nil, err
	}
	if err := in.check(NameSubagentResult, kids); err != nil {
		return nil, err
	}
	r, err := p.Subagents.Result(ctx, c, in.ChildID)
	if err != nil {
		return nil, err
	}
	switch r.Status {
	case "completed", "failed", "cancelled":
	default:
		return nil, fmt.Errorf("the agent settled the child with status %q", r.Status)
	}
	text, cut := inert.Cut(r.Text, MaxChildResult)
	return result(text, map[string]any{"child_id": in.ChildID, "status": r.Status, "text": text, "cut": cut})
}

func runChildDispose(ctx context.Context, p Provided, c Call, kids *Children, input json.RawMessage) (*protocol.ToolResult, error) {
	var in childInput
	if err := decodeInput(NameSubagentDispose, input, &in); err != nil {
		return nil, err
	}
	if err := in.check(NameSubagentDispose, kids); err != nil {
		return nil, err
	}
	if err := p.Subagents.Dispose(ctx, c, in.ChildID); err != nil {
		return nil, err
	}
	kids.drop(in.ChildID)
	return result("child agent disposed", map[string]any{"child_id": in.ChildID, "disposed": true})
}

func runSkills(ctx context.Context, p Provided, _ Call, _ *Children, input json.RawMessage) (*protocol.ToolResult, error) {
	var in struct{}
	if err := decodeInput(NameSkillsList, input, &in); err != nil {
		return nil, err
	}
	list, _, err := SkillsList(ctx, p.Skills)
	if err != nil {
		return nil, err
	}
	names := make([]string, len(list))
	for i, s := range list {
		names[i] = s.Name
	}
	return result(strings.Join(names, "\n"), map[string]any{"skills": list})
}

// SkillsList discovers and audits the skills under the roots of s; an agent that provides
// none (s nil) has none.
func SkillsList(ctx context.Context, s Skills) ([]skills.Skill, []skills.Problem, error) {
	if s == nil {
		return nil, nil, nil
	}
	roots, err := s.Roots(ctx)
	if err != nil {
		return nil, nil, fmt.Errorf("the agent's skills roots: %w", err)
	}
	list, probs := skills.Discover(roots)
	return list, probs, nil
}

type gitInput struct {
	Args []string `json:"args"`
}

// gitQuery is the query of a git_review_scope input, or its refusal.
func gitQuery(c Call, input json.RawMessage) (gitscope.Query, error) {
	var in gitInput
	if err := decodeInput(NameGitReviewScope, input, &in); err != nil {
		return gitscope.Query{}, err
	}
	q, err := gitscope.Parse(in.Args)
	if err != nil {
		return gitscope.Query{}, &protocol.RPCError{Code: protocol.CodeRefused, Message: "core/call refused: `git_review_scope`: " + err.Error()}
	}
	if c.Workspace == "" {
		return gitscope.Query{}, &protocol.RPCError{Code: protocol.CodeRefused, Message: "core/call refused: `git_review_scope`: the call has no workspace"}
	}
	return q, nil
}

func checkGit(c Call, input json.RawMessage) error {
	_, err := gitQuery(c, input)
	return err
}

func runGit(ctx context.Context, p Provided, c Call, _ *Children, input json.RawMessage) (*protocol.ToolResult, error) {
	q, err := gitQuery(c, input)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, gitscope.Deadline)
	defer cancel()
	out, err := p.GitReviewScope.Query(ctx, c, q)
	if err != nil {
		return nil, err
	}
	text, cut := inert.Cut(out, gitscope.MaxOutput)
	return result(text, map[string]any{"query": q, "cut": cut})
}

// Children is the child agents one tool call started and has not disposed. NewChildren
// makes one; the methods are the services' own.
type Children struct {
	log hclog.Logger // where a child that cannot be disposed is logged

	mu       sync.Mutex
	reserved int             // +checklocks:mu
	live     map[string]bool // +checklocks:mu
	closed   bool            // +checklocks:mu
}

// NewChildren is the empty set of one tool call's children; log receives a disposal that
// failed.
func NewChildren(log hclog.Logger) *Children { return &Children{log: log} }

func (s *Children) reserve() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed || s.reserved == MaxChildren {
		return false
	}
	s.reserved++
	return true
}

func (s *Children) release() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reserved--
}

// add records a started child; false once takeAll ran (the caller disposes it itself).
func (s *Children) add(id string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return false
	}
	if s.live == nil {
		s.live = map[string]bool{}
	}
	s.live[id] = true
	return true
}

// takeAll forgets and returns the live children, sorted; reserve refuses from then on.
func (s *Children) takeAll() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]string, 0, len(s.live))
	for id := range s.live {
		out = append(out, id)
	}
	sort.Strings(out)
	s.live = nil
	s.closed = true
	return out
}

func (s *Children) has(id string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.live[id]
}

// drop forgets id.
func (s *Children) drop(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.live, id)
}
