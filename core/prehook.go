package core

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/cwx-dev/cwx/core/gate"
	"github.com/cwx-dev/cwx/core/hooks"
	"github.com/cwx-dev/cwx/core/protocol"
	"github.com/cwx-dev/cwx/core/registry"
	"github.com/cwx-dev/cwx/core/rpc"
)

// preCall is one gated call as the pre-execute hooks see it.
type preCall struct {
	name      string
	callID    string
	input     json.RawMessage
	mode      string // hooks.ModeAgent or hooks.ModeCoreCall
	workspace string
	session   string // CallOptions.SessionID: the session_id command hooks are told
	// validate checks a revised input against the tool's schema.
	validate func(json.RawMessage) error
}

// preExecute asks every live hook about c before the gate sees it (ARCHITECTURE.md,
// “Pre-execute hooks”) and applies the fold: a deny is an error matching ErrDenied naming
// the hook's plugin; a revise replaces the input, validated again against the tool's schema
// (a revise that breaks it is denied); an ask forces the card (Forced); every ask and
// annotation goes on req's card. It returns the input to run with.
func (m *Manager) preExecute(ctx context.Context, c preCall, req *gate.Request) (json.RawMessage, error) {
	live := m.reg.Hooks()
	builtin := m.builtinHookAnswers(ctx, c)
	if len(live) == 0 && len(builtin) == 0 {
		return c.input, nil
	}
	hs := make([]hooks.Hook, len(live))
	for i, h := range live {
		hs[i] = hooks.Hook{PluginID: h.PluginID, Handle: h.Handle, Owner: h.Owner}
	}
	payload := hooks.Call{Name: c.name, CallID: c.callID, Input: c.input, Mode: c.mode, Workspace: c.workspace}
	out := hooks.Run(ctx, builtin, hs, payload, hookAsker{m}, m.hookDeadline)
	switch {
	case out.Decision == hooks.Deny && ctx.Err() != nil: // the caller gave up while the hooks were asked
		return nil, fmt.Errorf("tool %q: %w: %w", c.name, ErrCancelled, context.Cause(ctx))
	case out.Decision == hooks.Deny:
		return nil, fmt.Errorf("tool %q: %w: %s", c.name, ErrDenied, out.Reason)
	}
	input := c.input
	if out.Input != nil {
		if err := c.validate(out.Input); err != nil {
			return nil, fmt.Errorf("tool %q: %w: the input revised by the pre-execute hook of plugin `%s` does not fit the tool's schema: %v", c.name, ErrDenied, out.RevisedBy, err)
		}
		input = out.Input
		req.Notes = append(req.Notes, fmt.Sprintf("input revised by the pre-execute hook of plugin `%s`", out.RevisedBy))
	}
	for _, n := range out.Notes {
		req.Notes = append(req.Notes, n.String())
	}
	if out.Decision == hooks.Ask {
		req.Requirement = gate.Forced
	}
	req.Input = input
	return input, nil
}

// hookAsker sends hook/evaluate to a hook's owner, through the same admission as a call: an
// owner that ended (revoked, faulted, its host gone) answers nothing, and its end cancels
// the request; either way the hook counts as a deny.
type hookAsker struct{ m *Manager }

func (a hookAsker) Evaluate(ctx context.Context, h hooks.Hook, c hooks.Call, deadline time.Duration) (protocol.HookVerdict, error) {
	a.m.mu.Lock()
	o := a.m.owners[h.PluginID]
	a.m.mu.Unlock()
	if o == nil || o.ref != h.Owner || !o.enter() {
		return protocol.HookVerdict{}, fmt.Errorf("%w: its owner is no longer live", ErrNotAvailable)
	}
	defer o.leave()
	callCtx, stop := endsWith(ctx, o.ctx)
	defer stop()
	p := protocol.HookEvaluateParams{Handle: h.Handle, Event: registry.HookEvent, Payload: c, DeadlineMS: uint64(deadline.Milliseconds())}
	// the batch's context carries the deadline, so that it, not the call, names the cause
	msg, err := o.h.Call(callCtx, protocol.MethodHookEvaluate, p, rpc.CallOpts{})
	var re *rpc.RemoteError
	switch {
	case err == nil:
	case ctx.Err() != nil:
		return protocol.HookVerdict{}, context.Cause(ctx)
	case errors.As(err, &re):
		return protocol.HookVerdict{}, errors.New(re.Message) // the host's own words: the listener's failure
	default:
		return protocol.HookVerdict{}, err
	}
	v, ok := msgValue[protocol.HookVerdict](msg)
	if !ok {
		return protocol.HookVerdict{}, fmt.Errorf("the host answered hook/evaluate with something other than a verdict")
	}
	return *v, nil
}
