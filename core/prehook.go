package core

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/cwx-dev/cwx/core/cmdhooks"
	"github.com/cwx-dev/cwx/core/gate"
	"github.com/cwx-dev/cwx/core/hooks"
	"github.com/cwx-dev/cwx/core/internal/jsjson"
	"github.com/cwx-dev/cwx/core/owners"
	"github.com/cwx-dev/cwx/core/protocol"
	"github.com/cwx-dev/cwx/core/registry"
	"github.com/cwx-dev/cwx/core/rpc"
	"github.com/hashicorp/go-hclog"
)

// preHooks asks the pre-execute hooks of every gated call: the command hooks of the current
// configuration and the live plugin hooks the owner layer's registry holds.
type preHooks struct {
	own      *owners.Layer
	cmd      *cmdHookRunner
	log      hclog.Logger
	deadline time.Duration // bounds a batch; 0 is hooks.BatchDeadline
	down     hooksDownNote // the last denial for hook holders that are not live
}

// run asks the hooks about c before the gate sees it (ARCHITECTURE.md, “Pre-execute
// hooks”) and applies the fold. It fails closed first: while an enabled, trusted plugin
// that holds a pre-execute hook is not live, the call is denied (*HooksDownError). Then
// every command hook that matches and every live plugin hook are asked about the decoded
// input: a deny is an error matching ErrDenied naming the hook's plugin; an ask forces the
// card (Forced); every ask and annotation goes on req's card. A revise replaces the input,
// validated again against the tool's schema, and the revised input is asked again of every
// hook but the reviser, once: a deny there denies the call and a second revise is denied.
// It returns the input to run with.
func (p *preHooks) run(ctx context.Context, c preCall, req *gate.Request) (json.RawMessage, error) {
	if err := hookHoldersDown(p.own, &p.down, p.log, c.name); err != nil {
		return nil, err
	}
	out, err := p.ask(ctx, c, nil)
	if err != nil {
		return nil, err
	}
	input := c.input
	notes := out.Notes
	forced := out.Decision == hooks.Ask
	if out.Input != nil {
		if err := c.validate(out.Input); err != nil {
			return nil, fmt.Errorf("tool %q: %w: the input revised by the pre-execute hook of plugin `%s` does not fit the tool's schema: %v", c.name, ErrDenied, out.RevisedBy, err)
		}
		input = out.Input
		req.Notes = append(req.Notes, fmt.Sprintf("input revised by the pre-execute hook of plugin `%s`", out.RevisedBy))
		again := c
		again.input = input
		second, err := p.ask(ctx, again, &out.Reviser)
		if err != nil {
			return nil, fmt.Errorf("%w (asked about the input revised by the pre-execute hook of plugin `%s`)", err, out.RevisedBy)
		}
		if second.Input != nil && !sameValue(second.Input, input) {
			return nil, fmt.Errorf("tool %q: %w: the pre-execute hook of plugin `%s` revised the input the hook of plugin `%s` had revised; an input is revised once",
				c.name, ErrDenied, second.RevisedBy, out.RevisedBy)
		}
		notes = append(notes, second.Notes...)
		forced = forced || second.Decision == hooks.Ask
	}
	for _, n := range notes {
		req.Notes = append(req.Notes, n.String())
	}
	if forced {
		req.Requirement = gate.Forced
	}
	req.Input = input
	return input, nil
}

// sameValue reports whether two JSON texts hold the same value as a JavaScript hook reads it.
func sameValue(a, b json.RawMessage) bool {
	x, errA := jsjson.Reencode(a)
	y, errB := jsjson.Reencode(b)
	return errA == nil && errB == nil && bytes.Equal(x, y)
}

// ask asks the command hooks that match c and every live plugin hook about c's input,
// all but skip (the reviser, when the input is asked again), and folds their answers. A
// deny is returned as the error.
func (p *preHooks) ask(ctx context.Context, c preCall, skip *hooks.Hook) (hooks.Outcome, error) {
	skipCommand := ""
	if skip != nil && skip.PluginID == cmdhooks.Owner {
		skipCommand = skip.Name
	}
	var hs []hooks.Hook
	for _, h := range p.own.Registry().Hooks() {
		hk := hooks.Hook{PluginID: h.PluginID, Handle: h.Handle, Owner: h.Owner}
		if skip == nil || hk != *skip {
			hs = append(hs, hk)
		}
	}
	builtin := p.cmd.builtinHookAnswers(ctx, c, skipCommand)
	if len(hs) == 0 && len(builtin) == 0 {
		return hooks.Outcome{}, nil
	}
	// a plugin's hook, like a command hook, is given the value the tool acts on
	seen, err := jsjson.Reencode(c.input)
	if err != nil {
		return hooks.Outcome{}, fmt.Errorf("tool %q: %w: the input cannot be decoded for the pre-execute hooks: %v", c.name, ErrDenied, err)
	}
	payload := hooks.Call{Name: c.name, CallID: c.callID, Input: seen, Mode: c.mode, Workspace: c.workspace}
	out := hooks.Run(ctx, builtin, hs, payload, hookAsker{p.own}, p.deadline)
	switch {
	case out.Decision == hooks.Deny && ctx.Err() != nil: // the caller gave up while the hooks were asked
		return out, fmt.Errorf("tool %q: %w: %w", c.name, ErrCancelled, context.Cause(ctx))
	case out.Decision == hooks.Deny:
		return out, fmt.Errorf("tool %q: %w: %s", c.name, ErrDenied, out.Reason)
	}
	return out, nil
}

// hookHoldersDown returns a *HooksDownError naming every enabled, trusted plugin that holds
// a pre-execute hook and has no Active owner (owners.Layer.DownHolders), or nil when there
// is none.
func hookHoldersDown(own *owners.Layer, said *hooksDownNote, log hclog.Logger, tool string) error {
	holders := own.DownHolders()
	if len(holders) == 0 {
		return nil
	}
	e := &HooksDownError{Tool: tool, Holders: holders}
	said.note(log, e)
	return e
}

// errHookOwnerEnded is a hook whose owner ended before it was asked: a deny.
var errHookOwnerEnded = fmt.Errorf("%w: its owner is no longer live", ErrNotAvailable)

// hookAsker sends hook/evaluate to a hook's owner, through the same admission as a call: an
// owner that ended (revoked, faulted, its host gone) answers nothing, and its end cancels
// the request; either way the hook counts as a deny.
type hookAsker struct{ own *owners.Layer }

func (a hookAsker) Evaluate(ctx context.Context, h hooks.Hook, c hooks.Call, deadline time.Duration) (protocol.HookVerdict, error) {
	o := a.own.Current(h.PluginID)
	if o == nil || o.Ref() != h.Owner {
		return protocol.HookVerdict{}, errHookOwnerEnded
	}
	callCtx, stop := o.Bound(ctx)
	defer stop()
	params := protocol.HookEvaluateParams{Handle: h.Handle, Event: registry.HookEvent, Payload: c, DeadlineMS: uint64(deadline.Milliseconds())}
	// the batch's context carries the deadline, so that it, not the call, names the cause
	msg, err := o.Send(callCtx, protocol.MethodHookEvaluate, params, rpc.CallOpts{})
	var re *rpc.RemoteError
	switch {
	case err == nil:
	case errors.Is(err, owners.ErrOwnerEnded):
		return protocol.HookVerdict{}, errHookOwnerEnded
	case ctx.Err() != nil:
		return protocol.HookVerdict{}, context.Cause(ctx)
	case errors.As(err, &re):
		return protocol.HookVerdict{}, errors.New(re.Message) // the host's own words: the listener's failure
	default:
		return protocol.HookVerdict{}, err
	}
	v, ok := protocol.ValueOf[protocol.HookVerdict](msg)
	if !ok {
		return protocol.HookVerdict{}, fmt.Errorf("the host answered hook/evaluate with something other than a verdict")
	}
	return *v, nil
}

// hooksDownNote is the last denial for hook holders that are not live, so that it is
// logged when it changes rather than at every call.
type hooksDownNote struct {
	mu   sync.Mutex
	last string // +checklocks:mu
}

// note logs a warning when the set of hook holders that are down, or one's state, changes,
// not at every call it denies.
func (n *hooksDownNote) note(log hclog.Logger, e *HooksDownError) {
	key := e.Brief()[len(fmt.Sprintf("tool %q: ", e.Tool)):]
	n.mu.Lock()
	said := n.last == key
	n.last = key
	n.mu.Unlock()
	if said {
		log.Debug("call denied: a pre-execute hook holder is not live", "tool", e.Tool)
		return
	}
	for _, h := range e.Holders {
		log.Warn("a plugin that holds a pre-execute hook is not live: calls are denied", "plugin", h.PluginID, "state", h.State, "next", h.Next)
	}
}
