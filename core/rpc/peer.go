package rpc

import (
	"context"
	"errors"
	"io"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cwx-dev/cwx/core/protocol"
	"github.com/hashicorp/go-hclog"
)

// Limits fixed by the protocol (core/protocol doc.go, “Limits”).
const (
	// MaxPending is the number of outbound requests pending at once, heartbeat excluded.
	MaxPending = protocol.MaxInflight
	// MaxInbound is the number of host requests served at once.
	MaxInbound = protocol.MaxInflight
	// QueueSize is the number of frames the outbound queue holds.
	QueueSize = 128
	// CancelGrace is how long a cancelled request keeps its slot (outbound) or its handler
	// is waited for (inbound).
	CancelGrace = 500 * time.Millisecond
	// DefaultJoinTimeout bounds how long Run waits for the reader once the incarnation ended.
	DefaultJoinTimeout = 2 * time.Second
	// retiredKeep is how many given-up call ids are remembered so their late answers are
	// dropped and logged instead of being taken as violations.
	retiredKeep = 1024
)

// Conn carries one JSON-RPC message per call. Recv returns io.EOF or an error when the
// incarnation's stream ends. If a Conn implements io.Closer, the peer closes it when the
// incarnation ends and Recv must then return.
type Conn interface {
	Send(ctx context.Context, payload []byte) error
	Recv() ([]byte, error)
}

// PartsConn is a Conn that also sends one payload given in parts, in order, without the
// caller joining them (a result and its attachment). The peer uses it when its Conn has it.
type PartsConn interface {
	Conn
	SendParts(ctx context.Context, parts ...[]byte) error
}

// Handler serves what the host sends. HandleRequest runs on a task goroutine; its
// context is cancelled by the host's `$/cancel` or the end of the incarnation. An err
// that is a *protocol.RPCError is answered with its code; any other error is answered
// Internal. HandleNotification runs on the reader goroutine, in frame order, and must
// not block. `$/cancel` is handled by the peer and never reaches the Handler.
type Handler interface {
	HandleRequest(ctx context.Context, m *protocol.Message) (result any, err error)
	HandleNotification(m *protocol.Message)
}

// refuseAll is the Handler of a peer given none: requests are refused, notifications
// ignored.
type refuseAll struct{}

func (refuseAll) HandleRequest(_ context.Context, m *protocol.Message) (any, error) {
	return nil, &protocol.RPCError{Code: protocol.CodeRefused, Message: m.Method + " is not served here"}
}

func (refuseAll) HandleNotification(*protocol.Message) {}

// Options configure a Peer. The zero value is usable.
type Options struct {
	Logger      hclog.Logger  // nil: no logging
	JoinTimeout time.Duration // 0: DefaultJoinTimeout
}

// CallOpts configure one Call.
type CallOpts struct {
	// Timeout is the call's deadline; 0 means none (the context still applies).
	Timeout time.Duration
	// Heartbeat uses the slot reserved for the heartbeat; one such call at a time.
	Heartbeat bool
}

// outFrame is one queued frame; id is set for requests so the writer can skip a request
// cancelled before it was sent. tail, when set, follows payload in the same frame (a
// result's attachment, protocol.NewResultParts).
type outFrame struct {
	id      uint64
	payload []byte
	tail    []byte
}

// Peer is the JSON-RPC peer of one host incarnation.
type Peer struct {
	conn   Conn
	tier   protocol.Tier
	h      Handler
	log    hclog.Logger
	join   time.Duration
	lookup protocol.AnswerLookup

	nextID atomic.Uint64
	out    chan outFrame
	urgent chan struct{} // signals queued cancels

	mu sync.Mutex
	// +checklocks:mu
	pending map[uint64]*call
	// +checklocks:mu
	nPending int // non-heartbeat entries in pending
	// +checklocks:mu
	hbBusy bool // the heartbeat slot is taken
	// +checklocks:mu
	retired map[uint64]string
	// +checklocks:mu
	retiredQ []uint64 // FIFO of retired ids, at most retiredKeep
	// +checklocks:mu
	cancels []uint64 // ids whose $/cancel the writer must send
	// +checklocks:mu
	inbound map[uint64]*task
	// +checklocks:mu
	endErr error
	// +checklocks:mu
	drain *drainState // set by Drain

	started  atomic.Bool
	stopping chan struct{} // closed when the incarnation ends
	done     chan struct{} // closed when Run returned
	runCtx   context.Context
	stopRun  context.CancelCauseFunc
	tasks    sync.WaitGroup
	pool     sync.Pool // *call
}

// New returns a Peer for one host incarnation of the given tier. Nothing happens until
// Run. A nil Handler refuses every host request (-32002) and ignores notifications.
func New(conn Conn, tier protocol.Tier, h Handler, opts Options) *Peer {
	p := &Peer{
		conn:     conn,
		tier:     tier,
		h:        h,
		log:      opts.Logger,
		join:     opts.JoinTimeout,
		out:      make(chan outFrame, QueueSize),
		urgent:   make(chan struct{}, 1),
		pending:  make(map[uint64]*call),
		retired:  make(map[uint64]string),
		inbound:  make(map[uint64]*task),
		stopping: make(chan struct{}),
		done:     make(chan struct{}),
	}
	if p.log == nil {
		p.log = hclog.NewNullLogger()
	}
	if p.h == nil {
		p.h = refuseAll{}
	}
	if p.join <= 0 {
		p.join = DefaultJoinTimeout
	}
	p.lookup = p.answerMethod
	p.runCtx, p.stopRun = context.WithCancelCause(context.Background())
	return p
}

// Run serves the incarnation until it ends and returns why: the Conn's error wrapped in
// ErrHostExited, a violation (ErrViolation), the reason given to Close, or the cause of
// ctx. It starts the reader and the writer and joins them before returning, waiting at
// most Options.JoinTimeout for each and CancelGrace for host request handlers; what
// does not return by then is logged and abandoned.
func (p *Peer) Run(ctx context.Context) error {
	if !p.started.CompareAndSwap(false, true) {
		return errors.New("rpc: Run called twice")
	}
	defer close(p.done)
	stop := context.AfterFunc(ctx, func() { p.end(context.Cause(ctx)) })
	defer stop()
	select {
	case <-p.stopping: // closed before Run
		return p.Err()
	default:
	}
	readerDone := make(chan struct{})
	writerDone := make(chan struct{})
	go func() { defer close(readerDone); p.readLoop() }()
	go func() { defer close(writerDone); p.writeLoop() }()
	<-p.stopping
	// Send gets the cancelled run context and Recv a closed Conn, so both return
	// promptly with a well-behaved Conn; a Conn that blocks anyway is abandoned.
	if !p.waitFor(p.join, writerDone, readerDone) {
		p.log.Warn("the Conn is still blocked in Send or Recv after the incarnation ended; abandoning it", "waited", p.join)
	}
	tasksDone := make(chan struct{})
	go func() { p.tasks.Wait(); close(tasksDone) }()
	if !p.waitFor(CancelGrace, tasksDone) {
		p.log.Warn("host request handlers ignored cancellation; abandoning them", "waited", CancelGrace)
	}
	return p.Err()
}

// waitFor waits for every channel to close, at most d in all.
func (p *Peer) waitFor(d time.Duration, chs ...<-chan struct{}) bool {
	var expired chan struct{}
	for _, ch := range chs {
		select {
		case <-ch:
			continue
		default:
		}
		if expired == nil {
			expired = make(chan struct{})
			t := time.AfterFunc(d, func() { close(expired) })
			defer t.Stop()
		}
		select {
		case <-ch:
		case <-expired:
			return false
		}
	}
	return true
}

// Close ends the incarnation with reason (nil: "peer closed"). It returns at once; Done
// is closed when Run has joined its goroutines.
func (p *Peer) Close(reason error) {
	if reason == nil {
		reason = errClosed
	}
	p.end(reason)
}

// Done is closed when Run has returned.
func (p *Peer) Done() <-chan struct{} { return p.done }

// Err returns why the incarnation ended, or nil while it runs.
func (p *Peer) Err() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.endErr
}

// end ends the incarnation once: pending calls fail, tasks are cancelled, the Conn is
// closed.
func (p *Peer) end(reason error) {
	p.mu.Lock()
	if p.endErr != nil {
		p.mu.Unlock()
		return
	}
	p.endErr = reason
	exited := hostExited(reason)
	for id, c := range p.pending {
		delete(p.pending, id)
		c.finishLocked(result{err: exited}) // +checklocksignore: c.p is p, whose mu is held
	}
	p.nPending, p.hbBusy = 0, false
	p.drainedLocked()
	for id, t := range p.inbound {
		delete(p.inbound, id)
		t.stop(reason)
	}
	p.cancels = nil
	p.mu.Unlock()
	close(p.stopping)
	p.stopRun(reason)
	if c, ok := p.conn.(io.Closer); ok {
		if err := c.Close(); err != nil {
			p.log.Debug("closing the connection", "error", err)
		}
	}
	p.log.Debug("incarnation ended", "reason", reason)
}

// Stats is a snapshot of a peer's load.
type Stats struct {
	Pending   int  // outbound requests holding a slot (cancelled ones during their grace included), heartbeat excluded
	Heartbeat bool // the heartbeat slot is taken
	Inbound   int  // host requests being served
	Queued    int  // frames waiting in the outbound queue
}

// Stats returns the peer's current load, e.g. to wait for "no call in flight" before a
// planned restart.
func (p *Peer) Stats() Stats {
	p.mu.Lock()
	defer p.mu.Unlock()
	return Stats{Pending: p.nPending, Heartbeat: p.hbBusy, Inbound: len(p.inbound), Queued: len(p.out)}
}
