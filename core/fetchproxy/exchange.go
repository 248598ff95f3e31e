package fetchproxy

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cwx-dev/cwx/core/egress"
	"github.com/cwx-dev/cwx/core/errdefs"
	"github.com/cwx-dev/cwx/core/protocol"
)

// Read-ahead of a response body: the pump reads at most pumpChunk bytes at a time and
// holds at most pumpMax bytes per exchange; a net/read that has data waits at most
// pumpLinger for more after each piece.
const (
	pumpChunk  = 64 << 10
	pumpMax    = protocol.NetMaxChunk
	pumpLinger = time.Millisecond
)

// exchange is one open net/fetch: its context, the streamed body's pipe, the response's
// pump, and what its log line will say.
type exchange struct {
	id     string
	plugin string
	origin string // canonical, for errors
	method string
	logURL string
	log    func(msg string)
	start  time.Time

	ctx     context.Context
	cancel  context.CancelCauseFunc
	release func()
	forget  func() // set by admit

	pr *io.PipeReader // nil unless the body is streamed
	pw *io.PipeWriter

	sent    atomic.Int64
	recvd   atomic.Int64
	maxSend int64
	linger  time.Duration // pumpLinger (Options.linger in tests)

	writeMu sync.Mutex // one net/write at a time
	// wrote says the end of the body was written.
	wrote bool // +checklocks:writeMu

	readMu sync.Mutex // one net/read at a time
	status atomic.Int64

	bodyMu sync.Mutex
	// body is what the pump read and no net/read took yet, at most pumpMax bytes; bodyErr
	// ends it (io.EOF or the failure), after its bytes; pumped is set once the head
	// arrived and the pump started.
	body    []byte // +checklocks:bodyMu
	bodyErr error  // +checklocks:bodyMu
	pumped  bool   // +checklocks:bodyMu
	// more is signalled when the pump added bytes or ended, room when a net/read took
	// bytes; each holds at most one signal.
	more chan struct{}
	room chan struct{}

	mu sync.Mutex
	// pumpDone is nil until the pump starts; outcome is set by the first of finish and end.
	pumpDone chan struct{} // +checklocks:mu
	ended    bool          // +checklocks:mu
	outcome  string        // +checklocks:mu
}

// fetch serves net/fetch: parse, judge, admit, send, and answer the head.
func (p *Proxy) fetch(ctx context.Context, c Caller, v *protocol.NetFetchParams) (any, error) {
	r, rerr := parseFetch(v)
	if rerr != nil {
		p.logRefused(c, v.Method, r, rerr)
		return nil, rerr
	}
	on := r.origin.String()
	if len(c.Grants.Network) == 0 {
		e := refused(protocol.CodeRefused, protocol.NetReasonNotGranted, on,
			"fetch to %s refused: plugin %q has no network grant; to allow it, add network = [%q] under [plugins.%q] in config.toml", on, c.Owner.PluginID, on, c.Owner.PluginID)
		p.logRefused(c, r.method, r, e)
		return nil, e
	}
	st, gc, err := p.state(c)
	if err != nil {
		return nil, refused(protocol.CodeCancelled, protocol.NetReasonCancelled, on, "fetch to %s cancelled: %s", on, err)
	}
	defer p.starting(st, r.id)()
	if e := p.judge(c, gc.pol, r); e != nil {
		p.logRefused(c, r.method, r, e)
		return nil, e
	}
	ex, e := p.open(ctx, c, st, r, v.Ticket)
	if e != nil {
		if errors.Is(e, errdefs.ErrViolation) {
			return nil, e
		}
		p.logRefused(c, r.method, r, asRPC(e))
		return nil, e
	}
	req, err := ex.request(r)
	if err != nil {
		ex.end(err)
		return nil, refused(protocol.CodeRefused, protocol.NetReasonRequest, on, "fetch to %s refused: the request could not be built", on)
	}
	// $/cancel of the pending net/fetch ends the exchange.
	stop := context.AfterFunc(ctx, func() { ex.end(errRequestGone) })
	resp, err := gc.client.Do(req)
	stop()
	if err != nil {
		e := ex.classify(err)
		ex.finishWith(e)
		ex.end(err)
		return nil, e
	}
	ex.status.Store(int64(resp.StatusCode))
	ex.startPump(resp)
	h := head(resp, gc.pol)
	if v.MaxBytes <= 0 {
		return h, nil
	}
	return ex.withFirst(ctx, h, min(v.MaxBytes, protocol.NetMaxChunk)), nil
}

// withFirst is the head with the body's first bytes, at most max, as the result's
// attachment: what the pump brings within pumpLinger, gathered as a net/read gathers them.
// Nothing comes with it when no byte came by then or the body failed at once (the next
// net/read says so); a body that ended with them ends the exchange, as a net/read's eof.
func (ex *exchange) withFirst(ctx context.Context, h protocol.NetResponseHead, max int) any {
	ex.readMu.Lock()
	defer ex.readMu.Unlock()
	out, eof, err := ex.take(ctx, max, ex.linger)
	if err != nil {
		return h
	}
	ex.recvd.Add(int64(len(out)))
	if eof {
		h.EOF = true
		ex.bodyDone()
	}
	if len(out) == 0 {
		return h
	}
	return protocol.WithAttachment{Result: h, Data: out}
}

// judge applies the plugin's policy to the first hop: the origin granted, the headers the
// plugin may set.
func (p *Proxy) judge(c Caller, pol *policy, r request) *protocol.RPCError {
	on, id := r.origin.String(), c.Owner.PluginID
	if !pol.network[r.origin] {
		return refused(protocol.CodeRefused, protocol.NetReasonNotGranted, on,
			"fetch to %s refused: it is not in plugin %q's network grant; to allow it, add %q to network under [plugins.%q] in config.toml", on, id, on, id)
	}
	if err := pol.badEnv[r.origin]; err != nil {
		return refused(protocol.CodeRefused, protocol.NetReasonRequest, on,
			"fetch to %s refused: the headers configured for it under [plugins.%q.headers] cannot be set: %s", on, id, err)
	}
	for _, h := range r.headers {
		if why := pol.checkHeader(r.origin, h.Name); why != "" {
			return refused(protocol.CodeRefused, protocol.NetReasonRequest, on, "fetch to %s refused: %s", on, why)
		}
	}
	return nil
}

// open makes and admits the exchange: its context ends with the owner, with the
// invocation the ticket names (or the default deadline and the bucket outside one), with
// net/close and with the host.
func (p *Proxy) open(ctx context.Context, c Caller, st *ownerState, r request, ticket string) (*exchange, error) {
	on := r.origin.String()
	base := c.Context
	if base == nil {
		base = context.Background()
	}
	var exCtx context.Context
	var release func()
	if ticket != "" {
		if p.o.Invocation == nil {
			return nil, refused(protocol.CodeRefused, protocol.NetReasonRequest, on, "fetch to %s refused: this core ties no fetch to an invocation", on)
		}
		ictx, stop, err := p.o.Invocation(base, c, ticket)
		if errors.Is(err, errdefs.ErrViolation) {
			return nil, err
		}
		if err != nil {
			return nil, refused(protocol.CodeRefused, protocol.NetReasonRequest, on,
				"fetch to %s refused: its ticket is not a live invocation's (fetch inside the tool call or command that received it, or without a ticket)", on)
		}
		exCtx, release = ictx, stop
	} else {
		if !st.limiter.Allow() {
			return nil, refused(protocol.CodeRefused, protocol.NetReasonRateLimit, on,
				"fetch to %s refused: plugin %q made more than %d requests outside a tool call within a short time; slow down", on, c.Owner.PluginID, p.o.Burst)
		}
		var cancel context.CancelFunc
		exCtx, cancel = context.WithTimeoutCause(base, p.o.Timeout, errDefaultTime)
		release = cancel
	}
	exCtx, cancel := context.WithCancelCause(exCtx)
	ex := &exchange{id: r.id, plugin: c.Owner.PluginID, origin: on, method: r.method, logURL: logURL(r.origin, r.url),
		log: func(msg string) { p.log.Info("host: "+msg, "plugin", c.Owner.PluginID) }, start: time.Now(),
		ctx: exCtx, cancel: cancel, release: release, maxSend: p.maxRequest(), linger: p.o.linger,
		more: make(chan struct{}, 1), room: make(chan struct{}, 1)}
	if r.stream {
		ex.pr, ex.pw = io.Pipe()
	}
	if e := p.admit(st, ex); e != nil {
		cancel(errClosed)
		release()
		return nil, e
	}
	return ex, nil
}

func (p *Proxy) maxRequest() int64 {
	if p.o.MaxRequestBytes > 0 {
		return p.o.MaxRequestBytes
	}
	return egress.DefaultMaxRequestBytes
}

// request is the http.Request of r under ex's context: the plugin's headers (less the
// dropped ones), the body whole or its first chunk followed by the pipe.
func (ex *exchange) request(r request) (*http.Request, error) {
	var body io.Reader
	switch {
	case r.stream:
		body = &streamBody{Reader: io.MultiReader(bytes.NewReader(r.body), ex.pr), pr: ex.pr}
		ex.sent.Add(int64(len(r.body)))
	case len(r.body) > 0:
		body = bytes.NewReader(r.body)
		ex.sent.Add(int64(len(r.body)))
	}
	req, err := http.NewRequestWithContext(ex.ctx, r.method, r.url.String(), body)
	if err != nil {
		return nil, err
	}
	for _, h := range r.headers {
		if http.CanonicalHeaderKey(h.Name) == "Content-Length" {
			continue // the transport computes it
		}
		req.Header.Add(h.Name, h.Value)
	}
	return req, nil
}

// streamBody is a streamed request body: closing it (the transport does, once it is done
// with the body, say because the server answered early) fails the pending net/write.
type streamBody struct {
	io.Reader
	pr *io.PipeReader
}

var errBodyUnread = errors.New("the server stopped reading the request body")

func (b *streamBody) Close() error { return b.pr.CloseWithError(errBodyUnread) }

// head is the answer to net/fetch: the response's head less every header name configured
// for the plugin.
func head(resp *egress.Response, pol *policy) protocol.NetResponseHead {
	h := protocol.NetResponseHead{Status: resp.StatusCode, StatusText: http.StatusText(resp.StatusCode),
		URL: resp.URL.String(), Redirected: resp.Hops > 0, Headers: []protocol.HTTPHeader{}}
	for name, vs := range resp.Header {
		if pol.injected[http.CanonicalHeaderKey(name)] {
			continue
		}
		for _, v := range vs {
			h.Headers = append(h.Headers, protocol.HTTPHeader{Name: name, Value: v})
		}
	}
	return h
}

// startPump reads resp's body ahead into ex.body, at most pumpMax bytes, until the body
// ends or the exchange does; end waits for it.
func (ex *exchange) startPump(resp *egress.Response) {
	done := make(chan struct{})
	ex.mu.Lock()
	if ex.ended {
		ex.mu.Unlock()
		resp.Body.Close()
		return
	}
	ex.pumpDone = done
	ex.bodyMu.Lock()
	ex.pumped = true
	ex.bodyMu.Unlock()
	ex.mu.Unlock()
	go func() {
		defer close(done)
		defer resp.Body.Close()
		ex.pump(resp)
	}()
}

// pump reads the body into ex.body through one buffer of its own: never more than pumpMax
// bytes wait there, so a host that does not read stops the reads (and, once the socket's
// buffers fill, the server). No lock is held while it reads.
func (ex *exchange) pump(resp *egress.Response) {
	scratch := make([]byte, pumpChunk)
	left := resp.ContentLength // bytes still to come, -1 when unknown
	for {
		want, ok := ex.awaitRoom()
		if !ok {
			return
		}
		n, err := resp.Body.Read(scratch[:want])
		if left >= 0 {
			left -= int64(n)
		}
		ex.bodyMu.Lock()
		if n > 0 {
			if ex.body == nil {
				ex.body = make([]byte, 0, bodyCap(n, want, left))
			}
			ex.body = append(ex.body, scratch[:n]...)
		}
		if err != nil {
			ex.bodyErr = err
		}
		ex.bodyMu.Unlock()
		signal(ex.more)
		if err != nil {
			return
		}
	}
}

// bodyCap is the capacity of a new ex.body whose first read brought n of want bytes, left
// still to come (-1 unknown): what is known to come, else all of pumpMax after a full read
// (a bulk body) and n after a short one (a trickle, a small body).
func bodyCap(n, want int, left int64) int {
	switch {
	case left >= 0:
		return int(min(int64(pumpMax), int64(n)+left))
	case n == want:
		return pumpMax
	}
	return n
}

// awaitRoom waits until ex.body has room and says how much to read; false once the exchange
// ended.
func (ex *exchange) awaitRoom() (int, bool) {
	for {
		ex.bodyMu.Lock()
		free := pumpMax - len(ex.body)
		ex.bodyMu.Unlock()
		if free > 0 {
			return min(free, pumpChunk), true
		}
		select {
		case <-ex.room:
		case <-ex.ctx.Done():
			return 0, false
		}
	}
}

// signal leaves one signal on ch unless one is there.
func signal(ch chan struct{}) {
	select {
	case ch <- struct{}{}:
	default:
	}
}

// write serves net/write: the next chunk of a streamed body, answered once consumed.
func (p *Proxy) write(ctx context.Context, c Caller, v *protocol.NetWriteParams) (any, error) {
	ex := p.await(ctx, c, v.RequestID)
	if ex == nil {
		return nil, unknown(v.RequestID)
	}
	if ex.pw == nil {
		return nil, refused(protocol.CodeRefused, protocol.NetReasonRequest, ex.origin, "net/write to %s refused: the request's body was not streamed (body_streamed)", ex.origin)
	}
	data, e := decodeChunk(v.Data)
	if e != nil {
		return nil, e
	}
	ex.writeMu.Lock()
	defer ex.writeMu.Unlock()
	if ex.wrote {
		return nil, refused(protocol.CodeRefused, protocol.NetReasonRequest, ex.origin, "net/write to %s refused: the body already ended", ex.origin)
	}
	if ex.sent.Load()+int64(len(data)) > ex.maxSend {
		e := refused(protocol.CodeRefused, protocol.NetReasonTooLarge, ex.origin, "fetch to %s refused: the request body is over %d bytes", ex.origin, ex.maxSend)
		ex.finishWith(e)
		ex.end(egress.ErrTooLarge)
		return nil, e
	}
	stop := context.AfterFunc(ctx, func() { ex.end(errRequestGone) })
	defer stop()
	if len(data) > 0 {
		if _, err := ex.pw.Write(data); err != nil {
			if errors.Is(err, errBodyUnread) && ex.ctx.Err() == nil {
				return nil, refused(protocol.CodeExecutionFailed, protocol.NetReasonNetwork, ex.origin,
					"net/write to %s failed: the server stopped reading the request body (it may have answered already)", ex.origin)
			}
			return nil, ex.classify(err)
		}
		ex.sent.Add(int64(len(data)))
	}
	if v.End {
		ex.wrote = true
		_ = ex.pw.Close()
	}
	return protocol.Empty{}, nil
}

// read serves net/read: what the pump has, at most max_bytes; it waits for the first byte.
func (p *Proxy) read(ctx context.Context, c Caller, v *protocol.NetReadParams) (any, error) {
	ex := p.lookup(c, v.RequestID)
	if ex == nil {
		return nil, unknown(v.RequestID)
	}
	max := v.MaxBytes
	if max <= 0 || max > protocol.NetMaxChunk {
		max = protocol.NetMaxChunk
	}
	ex.readMu.Lock()
	defer ex.readMu.Unlock()
	ex.bodyMu.Lock()
	pumped := ex.pumped
	ex.bodyMu.Unlock()
	if !pumped {
		return nil, refused(protocol.CodeRefused, protocol.NetReasonRequest, ex.origin, "net/read of %s refused: the response has not arrived; read once net/fetch answered", ex.origin)
	}
	out, eof, err := ex.take(ctx, max, 0)
	if err != nil {
		e := ex.classify(err)
		ex.finishWith(e)
		ex.end(err)
		return nil, e
	}
	ex.recvd.Add(int64(len(out)))
	if eof {
		ex.bodyDone()
	}
	return protocol.WithAttachment{Result: protocol.NetChunk{EOF: eof}, Data: out}, nil
}

// bodyDone ends the exchange once its body was all taken: the host learns it with the
// bytes, and the core forgets the exchange.
func (ex *exchange) bodyDone() {
	ex.finish(fmt.Sprintf("%d, %d bytes received, %d sent", ex.status.Load(), ex.recvd.Load(), ex.sent.Load()))
	ex.end(errDone)
}

var errDone = errors.New("the exchange ended")

// take gathers up to max bytes of what the pump read: it waits for the first byte (at most
// first, when first is not 0: then it may return nothing), then at most pumpLinger after
// each piece for the next (a body arriving at the connection's pace fills one net/read
// instead of many; a stream that pauses, server-sent events, is answered after at most
// pumpLinger).
//
// +checklocks:ex.readMu
func (ex *exchange) take(ctx context.Context, max int, first time.Duration) ([]byte, bool, error) {
	var linger *time.Timer
	defer stopTimer(&linger)
	var firstC <-chan time.Time // nil (never) unless first is bounded
	if first > 0 {
		ft := time.NewTimer(first)
		defer ft.Stop()
		firstC = ft.C
	}
	waited := false
	for {
		ex.bodyMu.Lock()
		n, err := len(ex.body), ex.bodyErr
		if n >= max || err != nil || n > 0 && waited {
			out, eof, err := ex.cut(max)
			full := len(out) == max && len(ex.body) == 0 && ex.bodyErr == nil
			ex.bodyMu.Unlock()
			signal(ex.room)
			if full && !waited {
				eof = ex.endsNext(linger)
			}
			return out, eof, err
		}
		ex.bodyMu.Unlock()
		if n == 0 {
			select {
			case <-ex.more:
			case <-firstC:
				return nil, false, nil
			case <-ctx.Done():
				ex.end(errRequestGone)
				return nil, false, errRequestGone
			case <-ex.ctx.Done():
				return nil, false, context.Cause(ex.ctx)
			}
			continue
		}
		if linger == nil {
			linger = time.NewTimer(ex.linger)
		} else {
			linger.Reset(ex.linger)
		}
		select {
		case <-ex.more:
		case <-linger.C:
			waited = true
		case <-ex.ctx.Done():
			waited = true
		}
	}
}

// endsNext waits at most pumpLinger for what follows a net/read that took all there was up
// to its max_bytes: true when it is the body's end (the read then says eof, and the host
// needs no other read to learn it), false when more bytes came or nothing did. t, if made,
// is the take's timer (stopped by its caller).
//
// +checklocks:ex.readMu
func (ex *exchange) endsNext(t *time.Timer) bool {
	if t == nil {
		t = time.NewTimer(ex.linger)
		defer t.Stop()
	} else {
		t.Reset(ex.linger)
	}
	for {
		ex.bodyMu.Lock()
		n, err := len(ex.body), ex.bodyErr
		ex.bodyMu.Unlock()
		switch {
		case n > 0:
			return false
		case err != nil:
			return err == io.EOF // a failure is said by the next read
		}
		select {
		case <-ex.more:
		case <-t.C:
			return false
		case <-ex.ctx.Done():
			return false
		}
	}
}

// stopTimer stops *t, if it was made.
func stopTimer(t **time.Timer) {
	if *t != nil {
		(*t).Stop()
	}
}

// cut takes up to max bytes of ex.body; eof says the body ended with them, and err is the
// body's failure once its bytes were all taken.
//
// +checklocks:ex.bodyMu
func (ex *exchange) cut(max int) ([]byte, bool, error) {
	out := ex.body
	if len(out) > max {
		out, ex.body = out[:max:max], out[max:]
	} else {
		ex.body = nil
	}
	if len(ex.body) > 0 || ex.bodyErr == nil {
		return out, false, nil
	}
	if ex.bodyErr == io.EOF {
		return out, true, nil
	}
	if len(out) > 0 {
		return out, false, nil
	}
	return nil, false, ex.bodyErr
}

// finish sets the exchange's log line once.
func (ex *exchange) finish(outcome string) {
	ex.mu.Lock()
	defer ex.mu.Unlock()
	if ex.outcome == "" {
		ex.outcome = outcome
	}
}

func (ex *exchange) finishWith(e *protocol.RPCError) {
	ex.finish("failed: " + reasonOf(e) + " (" + e.Message + ")")
}

// end ends the exchange with cause (the first cause wins): its context, its pipe, its
// entry; it waits for the pump and writes the log line.
func (ex *exchange) end(cause error) {
	ex.mu.Lock()
	if ex.ended {
		ex.mu.Unlock()
		return
	}
	ex.ended = true
	done := ex.pumpDone
	if ex.outcome == "" {
		ex.outcome = "ended: " + causeText(cause)
	}
	outcome := ex.outcome
	ex.mu.Unlock()
	ex.cancel(cause)
	if ex.pr != nil {
		ex.pr.CloseWithError(cause)
	}
	if ex.forget != nil {
		ex.forget()
	}
	if done != nil {
		<-done
	}
	ex.release()
	ex.log(fmt.Sprintf("fetch %s %s: %s in %s", ex.method, ex.logURL, outcome, time.Since(ex.start).Round(time.Millisecond)))
}

func causeText(err error) string {
	switch {
	case err == nil:
		return "done"
	case errors.Is(err, errdefs.ErrTimeout):
		return "deadline"
	case errors.Is(err, errdefs.ErrCancelled) || errors.Is(err, context.Canceled):
		return "cancelled"
	}
	return "failed"
}

// logRefused logs a request refused before it was sent.
func (p *Proxy) logRefused(c Caller, method string, r request, e *protocol.RPCError) {
	where := "an unparsable URL"
	if r.url != nil {
		where = logURL(r.origin, r.url)
	}
	p.log.Info(fmt.Sprintf("host: fetch %s %s: refused: %s (%s)", sanitize(method), where, reasonOf(e), e.Message), "plugin", c.Owner.PluginID)
}

// sanitize keeps a method printable in a log line.
func sanitize(m string) string {
	if !validHeaderName(m) || len(m) > 16 {
		return "(bad method)"
	}
	return m
}
