package rpc

import "github.com/cwx-dev/cwx/core/protocol"

// drainState is a draining peer's admission: what new requests are refused with, and the
// channel closed once the last admitted one gave its slot back.
type drainState struct {
	refusal error
	idle    chan struct{} // nil once closed
}

// Drain stops admitting requests and returns a channel closed once no request holds a
// slot any more (a given-up call keeps its slot through its cancel grace) or the
// incarnation ended. New requests fail with refusal, except the heartbeat and
// host/shutdown, the last request a drained host is sent. The peer owns the count of calls
// in flight; a caller that must wait for "no call in flight" (a planned restart) drains
// instead of counting. Draining again returns a channel for the same condition.
func (p *Peer) Drain(refusal error) <-chan struct{} {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.drain == nil {
		p.drain = &drainState{refusal: refusal, idle: make(chan struct{})}
		p.drainedLocked()
	}
	if p.drain.idle == nil {
		done := make(chan struct{})
		close(done)
		return done
	}
	return p.drain.idle
}

// drainRefusesLocked returns the refusal of a draining peer for the new request c.
//
// +checklocks:p.mu
func (p *Peer) drainRefusesLocked(c *call) error {
	if p.drain == nil || c.heartbeat || c.method == protocol.MethodHostShutdown {
		return nil
	}
	return p.drain.refusal
}

// drainedLocked closes a draining peer's idle channel once no request holds a slot.
//
// +checklocks:p.mu
func (p *Peer) drainedLocked() {
	if d := p.drain; d != nil && d.idle != nil && (p.nPending == 0 || p.endErr != nil) {
		close(d.idle)
		d.idle = nil
	}
}
