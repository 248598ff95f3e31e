package core

import (
	"context"

	"github.com/cwx-dev/cwx/core/plugins"
	"github.com/cwx-dev/cwx/core/protocol"
)

// phase is where the Manager's record of one owner is. The registry keeps the authoritative
// owner state; the phase adds what the Manager needs: which incarnation the owner lives in
// and whether a failed or faulted plugin is held back until a reload.
type phase int

const (
	phaseActivating phase = iota + 1
	phaseActive
	phaseFailed  // activation failed: not retried until its identity changes or a reload
	phaseFaulted // ext/faulted: not retried until its identity changes or a reload
	phaseRevoked
)

func (p phase) String() string {
	switch p {
	case phaseActivating:
		return "activating"
	case phaseActive:
		return "active"
	case phaseFailed:
		return "failed"
	case phaseFaulted:
		return "faulted"
	case phaseRevoked:
		return "revoked"
	}
	return "unknown"
}

// owner is one activation of one plugin: the identity it was activated with (closure and
// config digest), its OwnerRef, the incarnation it lives in, its calls in flight.
// Fields other than the immutable ones are guarded by Manager.mu.
type owner struct {
	id   string
	tier protocol.Tier
	want plugins.Desired // immutable
	ref  protocol.OwnerRef
	h    host
	gen  uint64 // host generation h serves

	phase  phase
	reason string

	ctx      context.Context // ends when the owner ends; calls derive from it
	cancel   context.CancelCauseFunc
	inflight int
	drained  chan struct{} // closed when inflight reaches 0 after the owner ended
}

func newOwner(d plugins.Desired, ref protocol.OwnerRef, h host) *owner {
	ctx, cancel := context.WithCancelCause(context.Background())
	return &owner{id: d.ID, tier: tierOf(d.ID), want: d, ref: ref, h: h, gen: h.Generation(),
		phase: phaseActivating, ctx: ctx, cancel: cancel}
}

// sameIdentity reports whether d would be activated exactly like o was.
func (o *owner) sameIdentity(d plugins.Desired) bool {
	return o.want.Closure == d.Closure && o.want.Config.Digest == d.Config.Digest
}

func (o *owner) live() bool { return o.phase == phaseActivating || o.phase == phaseActive }

// end cancels the owner's calls with cause (Manager.mu held).
func (o *owner) end(cause error) {
	o.cancel(cause)
}

// enter admits a call (Manager.mu held).
func (o *owner) enter() bool {
	if o.phase != phaseActive {
		return false
	}
	o.inflight++
	return true
}

// leave ends a call (Manager.mu held).
func (o *owner) leave() {
	o.inflight--
	if o.inflight == 0 && o.drained != nil {
		close(o.drained)
		o.drained = nil
	}
}

// drain returns a channel closed once no call is in flight (Manager.mu held).
func (o *owner) drain() <-chan struct{} {
	ch := make(chan struct{})
	if o.inflight == 0 {
		close(ch)
		return ch
	}
	if o.drained == nil {
		o.drained = make(chan struct{})
	}
	return o.drained
}
