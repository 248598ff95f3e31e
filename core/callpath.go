package core

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/cwx-dev/cwx/core/protocol"
	"github.com/cwx-dev/cwx/core/registry"
	"github.com/cwx-dev/cwx/core/rpc"
)

// callKind is what differs between a tool call and a command run on the shared call path.
type callKind struct {
	name     string // "tool" or "command", as errors name it
	method   string
	deadline time.Duration
	find     func(r *registry.Registry, name string) (registry.Target, bool)
}

var (
	toolCall   = &callKind{name: "tool", method: protocol.MethodToolCall, deadline: ToolCallDeadline, find: (*registry.Registry).LookupTool}
	commandRun = &callKind{name: "command", method: protocol.MethodCommandRun, deadline: CommandRunDeadline, find: (*registry.Registry).LookupCommand}
)

// target is one call's snapshot, taken once at its start: the registry's Target (handle,
// owner, tier, the tier's other Active owners, the compiled schema) and the Manager's owner
// it names. The rest of the call path uses it and asks the registry nothing more.
type target struct {
	registry.Target
	kind *callKind
	o    *owner
}

// lookup takes the snapshot of the live tool or command name: one registry look-up, the
// plugin's current owner, which must be the one the registry names, and its receipt, all in
// memory.
func (m *Manager) lookup(k *callKind, name string) (target, error) {
	tg, ok := k.find(m.reg, name)
	if !ok {
		return target{}, m.notLive(protocol.RegisterKind(k.name), name)
	}
	m.mu.Lock()
	o := m.owners[tg.Owner.PluginID]
	m.mu.Unlock()
	if o == nil || o.ref != tg.Owner {
		return target{}, fmt.Errorf("%w: %s %q belongs to an owner that is no longer current", ErrNotAvailable, k.name, name)
	}
	if err := m.checkReceipt(o.want); err != nil {
		return target{}, fmt.Errorf("%w: %s %q: %w", ErrNotAvailable, k.name, name, err)
	}
	return target{Target: tg, kind: k, o: o}, nil
}

// sendWith sends one call to the target owner's incarnation. Liveness is checked again here, at
// send time, and only here, where a race with the owner's end matters: the owner admits the
// call unless it ended (every revocation, fault, failed activation, host exit and Close
// ends it), counts it in flight so revocation waits for it, and its end cancels the call's
// context. The incarnation is the owner's own (its generation), so a call never reaches a
// later one. The registry is not asked again: a handle the host withdrew itself in the
// meantime is the host's to answer. Tools and commands are invocations that measure their
// own deadline (pauseDeadline), so opts sets no Timeout for them.
func (m *Manager) sendWith(ctx context.Context, tg target, params any, opts rpc.CallOpts) (*protocol.Message, error) {
	callCtx, stop := endsWith(ctx, tg.o.ctx)
	defer stop()
	return m.sendIn(callCtx, tg, params, opts)
}

// endsWith returns a context that ends with ctx or with end, whichever ends first, carrying
// that one's cause (an owner's or an invocation's end names why a call was cut short); stop
// releases it.
func endsWith(ctx, end context.Context) (context.Context, func()) {
	c, cancel := context.WithCancelCause(ctx)
	unhook := context.AfterFunc(end, func() { cancel(context.Cause(end)) })
	return c, func() { unhook(); cancel(nil) }
}

// sendIn is sendWith for a caller whose ctx already ends with the owner's context, with
// its cause (invoke arranges that for its own context), so no second layer is needed.
func (m *Manager) sendIn(ctx context.Context, tg target, params any, opts rpc.CallOpts) (*protocol.Message, error) {
	o := tg.o
	if !o.enter() {
		return nil, fmt.Errorf("%w: %s %q is no longer live", ErrNotAvailable, tg.kind.name, tg.Name)
	}
	defer o.leave()
	msg, err := o.h.Call(ctx, tg.kind.method, params, opts)
	if err == nil {
		return msg, nil
	}
	return nil, m.callError(tg.kind.name, tg.Name, err, ctx)
}

// nextCallID returns a fresh call id for the host ("tool-7", "command-8").
func (m *Manager) nextCallID(k *callKind) string {
	return k.name + "-" + strconv.FormatUint(m.callSeq.Add(1), 10)
}
