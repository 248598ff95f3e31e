package rpc

import (
	"context"
	"fmt"
	"time"

	"github.com/cwx-dev/cwx/core/errdefs"
	"github.com/cwx-dev/cwx/core/protocol"
)

// callState is where an outbound request is in its life.
type callState uint8

const (
	stLive  callState = iota // sent or queued, waiting for the answer
	stGrace                  // given up: `$/cancel` sent, slot kept until the answer or the grace ends
	stDone                   // resolved and out of the table
)

// result is what a caller receives on its call's channel.
type result struct {
	msg       *protocol.Message
	err       error
	cancelled bool // resolved during the caller's cancel grace
}

// call is one outbound request. Fields below ch are guarded by the peer's mutex. Calls
// are recycled only after a clean answer (no timer callback can still run).
type call struct {
	p         *Peer
	ch        chan result // buffered 1; exactly one result per use
	deadline  *time.Timer // reused across uses
	id        uint64
	method    string
	heartbeat bool
	timeout   time.Duration
	state     callState
	sent      bool // the writer handed the request to the Conn
	waiter    bool // in grace: the caller still waits (context cancel), not gone (timeout)
	armed     bool // the deadline timer is armed for this use
	grace     *time.Timer
	reusable  bool
}

var (
	errQueueFull     = fmt.Errorf("%w: the outbound queue (%d frames) is full", ErrBusy, QueueSize)
	errSlotsFull     = fmt.Errorf("%w: %d requests already pending", ErrBusy, MaxPending)
	errHeartbeatBusy = fmt.Errorf("%w: a heartbeat is already pending", ErrBusy)
)

// Call sends a request and waits for its answer. A host error answer is a *RemoteError.
// It fails with ErrBusy when no slot or no queue room is free, ErrTimeout at the
// deadline, ErrCancelled when ctx is cancelled (after the host's answer or the cancel
// grace), ErrHostExited when the incarnation ends, and ErrNotAllowed for a method this
// host may not be sent.
func (p *Peer) Call(ctx context.Context, method string, params any, o CallOpts) (*protocol.Message, error) {
	if err := p.allowed(method, true); err != nil {
		return nil, err
	}
	if ctx.Err() != nil {
		return nil, cancelledErr(ctx)
	}
	id := p.nextID.Add(1)
	payload, err := protocol.NewRequest(id, method, params)
	if err != nil {
		return nil, fmt.Errorf("rpc: encoding %s: %w", method, err)
	}
	if err := checkSize(method, payload); err != nil {
		return nil, err
	}
	c := p.getCall()
	c.id, c.method, c.heartbeat, c.timeout = id, method, o.Heartbeat, o.Timeout
	if err := p.admit(c); err != nil {
		p.putCall(c)
		return nil, err
	}
	select {
	case p.out <- outFrame{id: id, payload: payload}:
	default:
		return nil, p.withdraw(c)
	}
	select {
	case r := <-c.ch:
		return p.settle(ctx, c, r)
	case <-ctx.Done():
		return p.cancelCall(ctx, c)
	}
}

// Notify sends a notification. It fails with ErrBusy when the queue is full and
// ErrHostExited once the incarnation ended.
func (p *Peer) Notify(method string, params any) error {
	if err := p.allowed(method, false); err != nil {
		return err
	}
	payload, err := protocol.NewNotification(method, params)
	if err != nil {
		return fmt.Errorf("rpc: encoding %s: %w", method, err)
	}
	if err := checkSize(method, payload); err != nil {
		return err
	}
	if err := p.Err(); err != nil {
		return hostExited(err)
	}
	select {
	case p.out <- outFrame{payload: payload}:
		return nil
	default:
		return errQueueFull
	}
}

// allowed refuses what the method table forbids sending to this host.
func (p *Peer) allowed(method string, request bool) error {
	spec, ok := protocol.Lookup(method)
	switch {
	case !ok || !spec.SentBy(protocol.CoreToHost):
		return fmt.Errorf("%w: the core does not send `%s`", ErrNotAllowed, method)
	case spec.Request != request && request:
		return fmt.Errorf("%w: `%s` is a notification; use Notify", ErrNotAllowed, method)
	case spec.Request != request:
		return fmt.Errorf("%w: `%s` is a request; use Call", ErrNotAllowed, method)
	case !spec.AllowedOn(p.tier):
		return fmt.Errorf("%w: `%s` is not allowed on the %s tier", ErrNotAllowed, method, p.tier)
	}
	return nil
}

// admit takes a slot and enters the call in the pending table.
func (p *Peer) admit(c *call) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.endErr != nil {
		return hostExited(p.endErr)
	}
	if err := p.drainRefusesLocked(c); err != nil {
		return err
	}
	if c.heartbeat {
		if p.hbBusy {
			return errHeartbeatBusy
		}
		p.hbBusy = true
	} else {
		if p.nPending >= MaxPending {
			return errSlotsFull
		}
		p.nPending++
	}
	p.pending[c.id] = c
	c.state = stLive
	if c.timeout > 0 {
		c.armed = true
		if c.deadline == nil {
			c.deadline = time.AfterFunc(c.timeout, c.onDeadline)
		} else {
			c.deadline.Reset(c.timeout)
		}
	}
	return nil
}

// withdraw takes back a call whose frame found the queue full.
func (p *Peer) withdraw(c *call) error {
	p.mu.Lock()
	if p.pending[c.id] == c {
		p.removeLocked(c)
		c.finishLocked(result{}) // +checklocksignore: c.p is p, whose mu is held
		<-c.ch
		p.mu.Unlock()
		return errQueueFull
	}
	p.mu.Unlock()
	r := <-c.ch // the incarnation ended first
	return r.err
}

// settle turns a result into Call's return values and recycles the call when it can.
func (p *Peer) settle(ctx context.Context, c *call, r result) (*protocol.Message, error) {
	if c.reusable {
		p.putCall(c)
	}
	switch {
	case r.cancelled:
		return nil, cancelledErr(ctx)
	case r.err != nil:
		return nil, r.err
	case r.msg.Error != nil:
		e := r.msg.Error
		return nil, &RemoteError{Method: r.msg.Method, Code: e.Code, Message: e.Message, Data: e.Data}
	}
	return r.msg, nil
}

// cancelCall handles the caller's cancellation: `$/cancel`, then the answer or the grace.
func (p *Peer) cancelCall(ctx context.Context, c *call) (*protocol.Message, error) {
	p.mu.Lock()
	if c.state == stLive {
		c.disarmLocked() // +checklocksignore: c.p is p, whose mu is held
		c.state, c.waiter = stGrace, true
		p.startGraceLocked(c)
	}
	p.mu.Unlock()
	p.signalUrgent()
	return p.settle(ctx, c, <-c.ch)
}

// onDeadline runs on a timer goroutine when a call's deadline passes.
func (c *call) onDeadline() {
	p := c.p
	p.mu.Lock()
	if !c.armed || c.state != stLive {
		p.mu.Unlock()
		return
	}
	c.armed = false
	c.state, c.waiter = stGrace, false
	p.startGraceLocked(c)
	c.ch <- result{err: fmt.Errorf("%w: %s after %s", ErrTimeout, c.method, c.timeout)}
	p.mu.Unlock()
	p.signalUrgent()
}

// startGraceLocked queues `$/cancel` (if the request went out) and arms the grace timer.
//
// +checklocks:p.mu
func (p *Peer) startGraceLocked(c *call) {
	if c.sent {
		p.cancels = append(p.cancels, c.id)
	}
	c.grace = time.AfterFunc(CancelGrace, func() { p.graceOver(c) })
}

// graceOver resolves a call the host did not answer within the grace.
func (p *Peer) graceOver(c *call) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if c.state != stGrace || p.pending[c.id] != c {
		return
	}
	p.removeLocked(c)
	p.retireLocked(c.id, c.method)
	c.finishLocked(result{}) // +checklocksignore: c.p is p, whose mu is held
}

// removeLocked takes a call out of the table and frees its slot.
//
// +checklocks:p.mu
func (p *Peer) removeLocked(c *call) {
	delete(p.pending, c.id)
	if c.heartbeat {
		p.hbBusy = false
	} else {
		p.nPending--
		p.drainedLocked()
	}
}

// retireLocked remembers a given-up id so its late answer is dropped, not a violation.
//
// +checklocks:p.mu
func (p *Peer) retireLocked(id uint64, method string) {
	if len(p.retiredQ) >= retiredKeep {
		delete(p.retired, p.retiredQ[0])
		p.retiredQ = p.retiredQ[1:]
	}
	p.retired[id] = method
	p.retiredQ = append(p.retiredQ, id)
}

// disarmLocked stops the deadline timer; false means its callback may still run.
//
// +checklocks:c.p.mu
func (c *call) disarmLocked() bool {
	if !c.armed {
		return true
	}
	c.armed = false
	return c.deadline.Stop()
}

// finishLocked resolves a call already removed from the table: a live call gets r, a
// call in its caller's cancel grace gets "cancelled", a timed-out call gets nothing.
//
// +checklocks:c.p.mu
func (c *call) finishLocked(r result) {
	reusable := c.disarmLocked()
	if c.grace != nil {
		c.grace.Stop()
		reusable = false
	}
	prev := c.state
	c.state = stDone
	switch {
	case prev == stLive:
		c.reusable = reusable
		c.ch <- r
	case prev == stGrace && c.waiter:
		c.ch <- result{cancelled: true}
	}
}

func (p *Peer) signalUrgent() {
	select {
	case p.urgent <- struct{}{}:
	default:
	}
}

func (p *Peer) getCall() *call {
	if v := p.pool.Get(); v != nil {
		return v.(*call)
	}
	return &call{p: p, ch: make(chan result, 1)}
}

func (p *Peer) putCall(c *call) {
	d := c.deadline
	*c = call{p: p, ch: c.ch, deadline: d}
	p.pool.Put(c)
}

// checkSize refuses a frame the host could not receive; sending it would end the
// incarnation.
func checkSize(method string, payload []byte) error {
	if len(payload) > protocol.MaxFrame {
		return errdefs.Newf(ErrTooLarge, "message too large: %s is %d bytes; the limit is %d", method, len(payload), protocol.MaxFrame)
	}
	return nil
}

func cancelledErr(ctx context.Context) error {
	return fmt.Errorf("%w: %w", ErrCancelled, context.Cause(ctx))
}
