package core

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/cwx-dev/cwx/core/gate"
	"github.com/cwx-dev/cwx/core/hooks"
	"github.com/cwx-dev/cwx/core/natives"
	"github.com/cwx-dev/cwx/core/protocol"
)

// callNative is CallTool for a native tool, through the same gate as an extension tool's
// call (ARCHITECTURE.md, “Native tools”): the input is validated against the compiled
// schema, the pre-execute hooks are asked (preExecute), then it is approved as the tool's Spec says (auto-eligible: no card; forced: a card
// every time; otherwise like an extension tool), under its own native: key; then the tool
// runs confined to opts.Workspace, bounded by ctx. No host is involved.
func (m *Manager) callNative(ctx context.Context, tool natives.Tool, spec natives.Spec, input json.RawMessage, opts CallOptions) (ToolResult, error) {
	name := spec.Name
	if err := m.nat.schemas[name].Validate(input); err != nil {
		return ToolResult{}, err
	}
	req := gate.Request{Tool: name, Input: input, Requirement: requirementOf(spec), Native: true}
	callID := m.cc.ids.next(toolCall)
	input, err := m.pre.run(ctx, preCall{name: name, callID: callID, input: input, mode: hooks.ModeAgent,
		workspace: opts.Workspace, session: opts.SessionID, validate: m.nat.schemas[name].Validate}, &req)
	if err != nil {
		return ToolResult{}, err
	}
	if err := planWrite(ctx, tool, opts.Workspace, input, &req); err != nil {
		return ToolResult{}, fmt.Errorf("tool %q: %w", name, err)
	}
	if _, err := m.gate.Check(ctx, req, opts.Approver); err != nil {
		if ctx.Err() != nil && !errors.Is(err, ErrDenied) {
			return ToolResult{}, fmt.Errorf("tool %q: %w: %w", name, ErrCancelled, err)
		}
		return ToolResult{}, fmt.Errorf("tool %q: %w", name, err)
	}
	res, err := tool.Run(ctx, natives.Call{Workspace: opts.Workspace, Input: input})
	switch {
	case err == nil:
		out := ToolResult{Content: []ContentBlock{{Type: protocol.ContentText, Text: res.Text}}, IsError: res.IsError, Structured: res.Structured}
		m.hooks.afterCall(ctx, name, callID, input, &out, res.Streams, opts)
		return out, nil
	case errors.Is(err, ErrDenied):
		return ToolResult{}, fmt.Errorf("tool %q: %w", name, err)
	case ctx.Err() != nil:
		return ToolResult{}, fmt.Errorf("tool %q: %w: %w", name, ErrCancelled, context.Cause(ctx))
	}
	return ToolResult{}, &ExecutionError{Name: name, Message: err.Error()}
}

// requirementOf is how the gate approves a native's calls.
func requirementOf(spec natives.Spec) gate.Requirement {
	switch {
	case spec.AutoEligible:
		return gate.Eligible
	case spec.Forced:
		return gate.Forced
	}
	return gate.Required
}

// planWrite puts what a file-writing native's call would change (natives.Planner) on req's
// card, and forces the card when the path is protected: no posture, auto included, and no
// session grant approves such a call. An error (a path outside the workspace) refuses it.
func planWrite(ctx context.Context, tool natives.Tool, workspace string, input json.RawMessage, req *gate.Request) error {
	p, ok := tool.(natives.Planner)
	if !ok {
		return nil
	}
	plan, err := p.Plan(ctx, natives.Call{Workspace: workspace, Input: input})
	if err != nil {
		return err
	}
	req.Diff = plan.Diff
	if plan.Protected != "" {
		req.Requirement = gate.Forced
		req.Notes = append(req.Notes, "protected path: "+plan.Protected+"; it is asked in every posture")
	}
	return nil
}
