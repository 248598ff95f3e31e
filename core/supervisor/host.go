package supervisor

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/cwx-dev/cwx/core/protocol"
	"github.com/cwx-dev/cwx/core/rpc"
)

// activations records, for one incarnation, the owners whose ext/activate is in flight: the
// one fact the owner layer's blame for a crash during activation rests on. It counts no
// calls: the rpc peer owns the slots (and Drain, for a planned restart), the owner layer
// its own drain for revocation.
type activations struct {
	mu         sync.Mutex
	activating map[protocol.OwnerRef]int // +checklocks:mu
}

func (a *activations) start(o protocol.OwnerRef) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.activating == nil {
		a.activating = map[protocol.OwnerRef]int{}
	}
	a.activating[o]++
}

func (a *activations) done(o protocol.OwnerRef) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.activating[o]--; a.activating[o] <= 0 {
		delete(a.activating, o)
	}
}

// sole returns the owner whose activation the host's death interrupted, when
// exactly one was.
func (a *activations) sole() *protocol.OwnerRef {
	a.mu.Lock()
	defer a.mu.Unlock()
	if len(a.activating) != 1 {
		return nil
	}
	for o := range a.activating {
		return &o
	}
	return nil
}

// Host is the owner layer's (and the Manager's) handle on one incarnation. It never reaches
// a later generation: once its incarnation ended, calls fail NotAvailable.
type Host struct {
	t   *TierRuntime
	inc *incarnation
}

// Generation is the incarnation's host generation.
func (h *Host) Generation() uint64 { return h.inc.gen }

// Call sends a request to this incarnation's host. It is refused NotAvailable while the
// tier is Unresponsive, and while a planned restart drains the incarnation. Send
// ext/activate with Activate, so that a crash during it is blamed on its owner.
func (h *Host) Call(ctx context.Context, method string, params any, o rpc.CallOpts) (*protocol.Message, error) {
	if h.t != nil && h.t.unresponsive(h.inc) {
		return nil, fmt.Errorf("%w: the %s is unresponsive", ErrNotAvailable, hostName(h.t.o.Host()))
	}
	if h.t != nil && h.t.o.Debugged {
		o.Timeout = 0 // a breakpoint may hold the answer; the caller's context still applies
	}
	return h.inc.peer.Call(ctx, method, params, o)
}

// Activate sends ext/activate for p.Owner and records it in flight until the answer: when
// the host dies under exactly one activation, ExitInfo.Activating names its owner.
//
// The host answers every activation within its own bound (HostLimits.ActivateDeadlineMS),
// so an activation still unanswered at the caller's timeout means the host's event loop is
// blocked (an `apply` that never yields): the incarnation is killed at once, the activation
// stays recorded, and the error is a case of ErrHostExited, so the owner layer replays or
// blames it as for a crash (ARCHITECTURE.md, “Lifecycles and numbers”).
func (h *Host) Activate(ctx context.Context, p protocol.ActivateParams, o rpc.CallOpts) (*protocol.Message, error) {
	h.inc.activating.start(p.Owner)
	m, err := h.Call(ctx, protocol.MethodExtActivate, p, o)
	if errors.Is(err, rpc.ErrTimeout) && ctx.Err() == nil {
		h.inc.blocked.Store(true)
		reason := fmt.Sprintf("ext/activate of %s unanswered after %s: the host was blocked", p.PluginName, o.Timeout)
		h.inc.kill(reason)
		return nil, fmt.Errorf("%w: %s: %w", rpc.ErrHostExited, reason, err)
	}
	if !errors.Is(err, rpc.ErrHostExited) { // an interrupted activation stays recorded
		h.inc.activating.done(p.Owner)
	}
	return m, err
}

// Notify sends a notification to this incarnation's host.
func (h *Host) Notify(method string, params any) error { return h.inc.peer.Notify(method, params) }
