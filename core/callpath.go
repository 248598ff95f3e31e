package core

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/cwx-dev/cwx/core/bundle"
	"github.com/cwx-dev/cwx/core/errdefs"
	"github.com/cwx-dev/cwx/core/gate"
	"github.com/cwx-dev/cwx/core/owners"
	"github.com/cwx-dev/cwx/core/protocol"
	"github.com/cwx-dev/cwx/core/registry"
	"github.com/cwx-dev/cwx/core/rpc"
	"github.com/cwx-dev/cwx/core/supervisor"
)

// callKind is what differs between a tool call and a command run on the shared call path.
type callKind struct {
	name     string // "tool" or "command", as errors name it
	method   string
	deadline time.Duration
}

var (
	toolCall   = &callKind{name: "tool", method: protocol.MethodToolCall, deadline: ToolCallDeadline}
	commandRun = &callKind{name: "command", method: protocol.MethodCommandRun, deadline: CommandRunDeadline}
)

// target is one call's snapshot, taken once at its start (owners.Target: the registry's
// Target and the owner it names) and what kind of call it is. The rest of the call path uses
// it and asks the registry nothing more.
type target struct {
	owners.Target
	kind *callKind
}

// lookupRunnable takes the snapshot of the live tool or command name once its host can run
// it (owners.Layer.LookupRunnable), wording an error of a caller that gave up.
func (m *Manager) lookupRunnable(ctx context.Context, k *callKind, name string) (target, error) {
	tg, err := m.own.LookupRunnable(ctx, protocol.RegisterKind(k.name), name)
	if err != nil {
		if ctx.Err() != nil {
			return target{}, callError(k.name, name, err, ctx)
		}
		return target{}, err
	}
	return target{Target: tg, kind: k}, nil
}

// sendWith sends one call to the target owner's incarnation, under a context that also ends
// with the owner (its end names why the call was cut short). Liveness is checked again at
// send time, and only there (owners.Owner.Send): the owner admits the call unless it ended,
// counts it in flight so revocation waits for it, and its end cancels the call. The
// incarnation is the owner's own, so a call never reaches a later one. Tools and commands
// are invocations that measure their own deadline (pauseDeadline), so opts sets no Timeout
// for them.
func sendWith(ctx context.Context, tg target, params any, opts rpc.CallOpts) (*protocol.Message, error) {
	callCtx, stop := tg.Holder.Bound(ctx)
	defer stop()
	return sendIn(callCtx, tg, params, opts)
}

// sendIn is sendWith for a caller whose ctx already ends with the owner's context, with
// its cause (invoke arranges that for its own context), so no second layer is needed.
func sendIn(ctx context.Context, tg target, params any, opts rpc.CallOpts) (*protocol.Message, error) {
	msg, err := tg.Holder.Send(ctx, tg.kind.method, params, opts)
	switch {
	case err == nil:
		return msg, nil
	case errors.Is(err, owners.ErrOwnerEnded):
		return nil, fmt.Errorf("%w: %s %q is no longer live", ErrNotAvailable, tg.kind.name, tg.Name)
	}
	err = callError(tg.kind.name, tg.Name, err, ctx)
	if ee, ok := errors.AsType[*ExecutionError](err); ok {
		ee.Message += tg.Holder.ExplainMissing(ee.Message) // a path its sandbox does not mount
	}
	return nil, err
}

// next returns a fresh call id for the host ("tool-7", "command-8").
func (c *callIDs) next(k *callKind) string {
	return k.name + "-" + strconv.FormatUint(c.Add(1), 10)
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
