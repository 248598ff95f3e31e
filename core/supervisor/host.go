package supervisor

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/cwx-dev/cwx/core/protocol"
	"github.com/cwx-dev/cwx/core/rpc"
)

// admission gates calls into one incarnation: closed for a planned restart, refused while
// the tier is Unresponsive; it counts calls in flight and the owners being activated.
type admission struct {
	mu         sync.Mutex
	closed     bool
	inflight   int
	idle       chan struct{} // closed when closed && inflight == 0
	activating map[protocol.OwnerRef]int
}

func (a *admission) enter() error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.closed {
		return fmt.Errorf("%w: the extension host is restarting", ErrNotAvailable)
	}
	a.inflight++
	return nil
}

func (a *admission) leave() {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.inflight--
	if a.closed && a.inflight == 0 && a.idle != nil {
		close(a.idle)
		a.idle = nil
	}
}

// close stops admitting calls and returns a channel closed once none is in flight.
func (a *admission) close() <-chan struct{} {
	a.mu.Lock()
	defer a.mu.Unlock()
	ch := make(chan struct{})
	a.closed = true
	if a.inflight == 0 {
		close(ch)
	} else {
		a.idle = ch
	}
	return ch
}

func (a *admission) startActivating(o protocol.OwnerRef) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.activating == nil {
		a.activating = map[protocol.OwnerRef]int{}
	}
	a.activating[o]++
}

func (a *admission) doneActivating(o protocol.OwnerRef) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.activating[o]--; a.activating[o] <= 0 {
		delete(a.activating, o)
	}
}

// soleActivating returns the owner whose activation the host's death interrupted, when
// exactly one was.
func (a *admission) soleActivating() *protocol.OwnerRef {
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
// tier is Unresponsive or restarting.
func (h *Host) Call(ctx context.Context, method string, params any, o rpc.CallOpts) (*protocol.Message, error) {
	if h.t != nil && h.t.unresponsive(h.inc) {
		return nil, fmt.Errorf("%w: the %s extension host is unresponsive", ErrNotAvailable, h.t.o.Tier)
	}
	if err := h.inc.adm.enter(); err != nil {
		return nil, err
	}
	defer h.inc.adm.leave()
	if owner, ok := activating(method, params); ok {
		h.inc.adm.startActivating(owner)
		m, err := h.inc.peer.Call(ctx, method, params, o)
		if !errors.Is(err, rpc.ErrHostExited) { // an interrupted activation stays recorded
			h.inc.adm.doneActivating(owner)
		}
		return m, err
	}
	return h.inc.peer.Call(ctx, method, params, o)
}

// activating returns the owner an ext/activate call is for.
func activating(method string, params any) (protocol.OwnerRef, bool) {
	if method != protocol.MethodExtActivate {
		return protocol.OwnerRef{}, false
	}
	switch p := params.(type) {
	case protocol.ActivateParams:
		return p.Owner, true
	case *protocol.ActivateParams:
		if p != nil {
			return p.Owner, true
		}
	}
	return protocol.OwnerRef{}, false
}

// Notify sends a notification to this incarnation's host.
func (h *Host) Notify(method string, params any) error { return h.inc.peer.Notify(method, params) }
