package rpc

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/cwx-dev/cwx/core/errdefs"
	"github.com/cwx-dev/cwx/core/protocol"
)

// ErrHostCancelled is the cause of a handler's context when the host sent `$/cancel`.
var ErrHostCancelled = errors.New("the host cancelled its request")

// task is one host request being served. Fields other than id and method are guarded
// by the peer's mutex.
type task struct {
	id        uint64
	method    string
	cancel    context.CancelCauseFunc
	cancelled bool        // the host cancelled it: its answer is dropped
	abandon   *time.Timer // fires CancelGrace after the host's cancel
}

func (t *task) stop(reason error) {
	t.cancel(reason)
	if t.abandon != nil {
		t.abandon.Stop()
	}
}

// onRequest starts a task for a host request.
func (p *Peer) onRequest(m *protocol.Message) error {
	p.mu.Lock()
	if p.endErr != nil {
		p.mu.Unlock()
		return nil
	}
	if _, dup := p.inbound[m.ID]; dup {
		p.mu.Unlock()
		return violationf("request id %d reused while in flight (`%s`)", m.ID, m.Method)
	}
	if len(p.inbound) >= MaxInbound {
		p.mu.Unlock()
		return violationf("more than %d host requests in flight (`%s` id %d)", MaxInbound, m.Method, m.ID)
	}
	ctx, cancel := context.WithCancelCause(p.runCtx)
	t := &task{id: m.ID, method: m.Method, cancel: cancel}
	p.inbound[m.ID] = t
	p.tasks.Add(1)
	p.mu.Unlock()
	go p.serve(ctx, t, m)
	return nil
}

// serve runs the handler and queues its answer unless the request was cancelled,
// abandoned or the incarnation ended.
func (p *Peer) serve(ctx context.Context, t *task, m *protocol.Message) {
	defer p.tasks.Done()
	res, err := p.handle(ctx, m)
	p.mu.Lock()
	mine := p.inbound[t.id] == t
	answer := mine && !t.cancelled
	if mine {
		delete(p.inbound, t.id)
		if t.abandon != nil {
			t.abandon.Stop()
		}
	}
	p.mu.Unlock()
	t.cancel(context.Canceled)
	if !answer {
		p.log.Debug("answer dropped", "id", t.id, "method", t.method, "cause", context.Cause(ctx))
		return
	}
	payload, tail := p.encodeAnswer(t, res, err)
	select {
	case p.out <- outFrame{payload: payload, tail: tail}:
	case <-p.stopping:
	}
}

// handle calls the handler, turning a panic into an Internal answer.
func (p *Peer) handle(ctx context.Context, m *protocol.Message) (res any, err error) {
	defer func() {
		if v := recover(); v != nil {
			p.log.Error("host request handler panicked", "method", m.Method, "id", m.ID, "panic", v)
			err = &protocol.RPCError{Code: protocol.CodeInternal, Message: fmt.Sprintf("core error while serving %s", m.Method)}
		}
	}()
	return p.h.HandleRequest(ctx, m)
}

// encodeAnswer encodes a handler's result or error, the payload and the tail that follows it
// in the same frame (a result's attachment, not copied); an unencodable result is answered
// Internal.
func (p *Peer) encodeAnswer(t *task, res any, err error) (payload, tail []byte) {
	if err == nil {
		if res == nil {
			res = struct{}{}
		}
		text, attachment, encErr := protocol.NewResultParts(t.id, res)
		size := len(text) + len(attachment)
		if encErr == nil && size <= protocol.MaxFrame {
			return text, attachment
		}
		if encErr == nil {
			encErr = errdefs.Newf(ErrTooLarge, "message too large: %d bytes", size)
			err = &protocol.RPCError{Code: protocol.CodeInvalidParams, Message: fmt.Sprintf("the answer to %s is %d bytes, over the %d byte frame limit", t.method, size, protocol.MaxFrame)}
		} else {
			err = fmt.Errorf("the core could not encode its answer to %s", t.method)
		}
		p.log.Error("encoding an answer", "method", t.method, "id", t.id, "error", encErr)
	}
	var rpcErr *protocol.RPCError
	if !errors.As(err, &rpcErr) {
		rpcErr = &protocol.RPCError{Code: protocol.CodeInternal, Message: err.Error()}
	}
	payload, encErr := protocol.NewErrorResponse(t.id, rpcErr)
	if encErr != nil {
		p.log.Error("encoding an error answer", "method", t.method, "id", t.id, "error", encErr)
		payload, _ = protocol.NewErrorResponse(t.id, &protocol.RPCError{Code: protocol.CodeInternal, Message: "internal error"})
	}
	return payload, nil
}

// onHostCancel cancels the task the host's `$/cancel` names and abandons it CancelGrace
// later. An id not in flight is ignored.
func (p *Peer) onHostCancel(id uint64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	t := p.inbound[id]
	if t == nil || t.cancelled {
		p.log.Debug("host cancelled a request not in flight; ignored", "id", id)
		return
	}
	t.cancelled = true
	t.cancel(ErrHostCancelled)
	t.abandon = time.AfterFunc(CancelGrace, func() { p.abandonTask(t) })
}

func (p *Peer) abandonTask(t *task) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.inbound[t.id] != t {
		return
	}
	delete(p.inbound, t.id)
	p.log.Warn("host request handler ignored cancellation; abandoned", "id", t.id, "method", t.method, "after", CancelGrace)
}
