package rpc

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/cwx-dev/cwx/core/protocol"
)

// violationError marks an end reason as a protocol violation.
type violationError struct{ err error }

func (e *violationError) Error() string {
	msg := e.err.Error()
	if strings.HasPrefix(msg, "protocol violation") {
		return msg
	}
	return "protocol violation: " + msg
}

func (e *violationError) Unwrap() []error { return []error{ErrViolation, e.err} }

func violationf(format string, args ...any) error {
	return &violationError{fmt.Errorf(format, args...)}
}

// readLoop reads, validates and dispatches frames until the incarnation ends.
func (p *Peer) readLoop() {
	for {
		payload, err := p.conn.Recv()
		select {
		case <-p.stopping:
			return
		default:
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				err = errors.New("the host closed its stream")
			}
			p.end(hostExited(err))
			return
		}
		m, err := protocol.ParseHostMessage(payload, p.tier, p.lookup)
		if err == nil {
			err = p.dispatch(m)
		} else {
			err = &violationError{err}
		}
		if err != nil {
			p.log.Error("ending the host incarnation", "reason", err)
			p.end(err)
			return
		}
	}
}

func (p *Peer) dispatch(m *protocol.Message) error {
	switch m.Kind {
	case protocol.KindResponse:
		return p.onAnswer(m)
	case protocol.KindRequest:
		return p.onRequest(m)
	case protocol.KindNotification:
		if m.Method != protocol.MethodCancel {
			p.h.HandleNotification(m)
			return nil
		}
		cp, ok := m.Value.(*protocol.CancelParams)
		if !ok {
			return violationf("`$/cancel` params decoded as %T", m.Value)
		}
		p.onHostCancel(cp.ID)
	}
	return nil
}

// answerMethod is the AnswerLookup handed to the parser: the method an in-flight id
// answers. Given-up ids still answer so their late answers are dropped, not refused.
func (p *Peer) answerMethod(id uint64) (string, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if c := p.pending[id]; c != nil && c.sent {
		return c.method, true
	}
	m, ok := p.retired[id]
	return m, ok
}

// onAnswer resolves the call an answer belongs to. An answer to a given-up call is
// dropped and logged; an answer to an id the core never sent is a violation.
func (p *Peer) onAnswer(m *protocol.Message) error {
	p.mu.Lock()
	c := p.pending[m.ID]
	if c == nil || !c.sent {
		method, late := p.retired[m.ID]
		delete(p.retired, m.ID)
		p.mu.Unlock()
		switch {
		case late:
			p.log.Debug("late answer dropped", "id", m.ID, "method", method)
		case m.ID == 0 || m.ID > p.nextID.Load() || c != nil:
			return violationf("answer to request id %d, which the core never sent", m.ID)
		default:
			p.log.Debug("answer to a request no longer in flight dropped", "id", m.ID)
		}
		return nil
	}
	p.removeLocked(c)
	late := c.state == stGrace
	c.finishLocked(result{msg: m}) // +checklocksignore: c.p is p, whose mu is held
	p.mu.Unlock()
	if late {
		p.log.Debug("late answer dropped", "id", m.ID, "method", m.Method)
	}
	return nil
}

// writeLoop sends queued frames, queued cancels first, until the incarnation ends.
func (p *Peer) writeLoop() {
	for {
		select {
		case <-p.urgent:
			if !p.sendCancels() {
				return
			}
			continue
		default:
		}
		select {
		case <-p.stopping:
			return
		case <-p.urgent:
			if !p.sendCancels() {
				return
			}
		case f := <-p.out:
			if f.id != 0 && !p.markSent(f.id) {
				continue
			}
			if !p.send(f.payload, f.tail) {
				return
			}
		}
	}
}

// send writes one frame: payload, then tail (nil for most frames) in the same frame, given
// to the Conn in parts when it takes them (PartsConn), else joined.
func (p *Peer) send(payload, tail []byte) bool {
	var err error
	switch pc, ok := p.conn.(PartsConn); {
	case len(tail) == 0:
		err = p.conn.Send(p.runCtx, payload)
	case ok:
		err = pc.SendParts(p.runCtx, payload, tail)
	default:
		err = p.conn.Send(p.runCtx, append(payload[:len(payload):len(payload)], tail...))
	}
	if err != nil {
		p.end(hostExited(fmt.Errorf("writing to the host: %w", err)))
		return false
	}
	return true
}

// markSent reports whether a dequeued request still has to go out. A request given up
// before it was sent is resolved here and never sent.
func (p *Peer) markSent(id uint64) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	c := p.pending[id]
	if c == nil {
		return false
	}
	if c.state == stGrace {
		p.removeLocked(c)
		c.finishLocked(result{}) // +checklocksignore: c.p is p, whose mu is held
		return false
	}
	c.sent = true
	return true
}

func (p *Peer) sendCancels() bool {
	p.mu.Lock()
	ids := p.cancels
	p.cancels = nil
	p.mu.Unlock()
	for _, id := range ids {
		payload, err := protocol.NewNotification(protocol.MethodCancel, &protocol.CancelParams{ID: id})
		if err != nil {
			p.log.Error("encoding $/cancel", "id", id, "error", err)
			continue
		}
		if !p.send(payload, nil) {
			return false
		}
	}
	return true
}
