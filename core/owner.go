package core

import (
	"context"
	"sync"
	"sync/atomic"

	"github.com/cwx-dev/cwx/core/plugins"
	"github.com/cwx-dev/cwx/core/protocol"
	"github.com/cwx-dev/cwx/core/registry"
)

// owner is one activation of one plugin as the Manager runs it: the identity it was
// activated with (closure and config digest), its OwnerRef, the incarnation it lives in and
// its calls in flight. Its state (activating, active, failed, faulted, revoked) is the
// registry's, read by ref (Manager.stateOf); the owner keeps no copy of it. The fields
// above mu never change after newOwner.
type owner struct {
	id   string
	tier protocol.Tier
	want plugins.Desired
	ref  protocol.OwnerRef
	h    host
	gen  uint64 // host generation h serves
	// activatedIn is how long the activation took (verification to live), once it is live.
	activatedIn atomic.Int64

	ctx    context.Context // ends when the owner ends; calls derive from it
	cancel context.CancelCauseFunc

	// mu guards the owner's admission of calls, the one count of its calls in flight that
	// revocation waits on (the rpc peer counts slots, per incarnation, for its own limit).
	mu       sync.Mutex
	ended    bool          // +checklocks:mu
	inflight int           // +checklocks:mu
	drained  chan struct{} // +checklocks:mu
}

func newOwner(d plugins.Desired, ref protocol.OwnerRef, h host) *owner {
	ctx, cancel := context.WithCancelCause(context.Background())
	return &owner{id: d.ID, tier: tierOf(d.ID), want: d, ref: ref, h: h, gen: h.Generation(),
		ctx: ctx, cancel: cancel}
}

// sameIdentity reports whether d would be activated exactly like o was.
func (o *owner) sameIdentity(d plugins.Desired) bool {
	return o.want.Closure == d.Closure && o.want.Config.Digest == d.Config.Digest
}

// end ends the owner with cause: no call is admitted from now on and the calls in flight
// are cancelled with cause (the first cause given wins). It returns a channel closed once
// no call is in flight, which revocation waits on. Every path that ends an owner in the
// registry also ends it here, so the admission below is the call path's liveness check at
// send time.
func (o *owner) end(cause error) <-chan struct{} {
	o.mu.Lock()
	o.ended = true
	drained := o.drainedLocked()
	o.mu.Unlock()
	o.cancel(cause)
	return drained
}

// enter admits a call unless the owner ended.
func (o *owner) enter() bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.ended {
		return false
	}
	o.inflight++
	return true
}

// leave ends an admitted call.
func (o *owner) leave() {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.inflight--
	if o.inflight == 0 && o.drained != nil {
		close(o.drained)
		o.drained = nil
	}
}

// drainedLocked returns a channel closed once no call is in flight.
//
// +checklocks:o.mu
func (o *owner) drainedLocked() <-chan struct{} {
	if o.inflight == 0 {
		ch := make(chan struct{})
		close(ch)
		return ch
	}
	if o.drained == nil {
		o.drained = make(chan struct{})
	}
	return o.drained
}

// stateOf returns o's state: the registry's record of it, the only one.
func (m *Manager) stateOf(o *owner) registry.State { return m.reg.State(o.ref) }
