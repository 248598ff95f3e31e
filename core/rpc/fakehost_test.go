package rpc

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cwx-dev/cwx/core/protocol"
	"github.com/hashicorp/go-hclog"
)

// memConn is an in-memory Conn: unbuffered channels, so the fake host decides when
// the core's writer makes progress.
type memConn struct {
	toHost    chan []byte
	toCore    chan []byte
	closed    chan struct{}
	closeOnce sync.Once
}

func newMemConn() *memConn {
	return &memConn{toHost: make(chan []byte), toCore: make(chan []byte), closed: make(chan struct{})}
}

var errConnClosed = errors.New("memconn: closed")

func (c *memConn) Send(ctx context.Context, p []byte) error {
	select {
	case c.toHost <- p:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	case <-c.closed:
		return errConnClosed
	}
}

func (c *memConn) Recv() ([]byte, error) {
	select {
	case p := <-c.toCore:
		return p, nil
	case <-c.closed:
		return nil, io.EOF
	}
}

func (c *memConn) Close() error {
	c.closeOnce.Do(func() { close(c.closed) })
	return nil
}

// wire is a core→host frame as the fake host sees it.
type wire struct {
	ID     *uint64            `json:"id"`
	Method string             `json:"method"`
	Params json.RawMessage    `json:"params"`
	Result json.RawMessage    `json:"result"`
	Error  *protocol.RPCError `json:"error"`
}

// fakeHost drives the host end of a memConn.
type fakeHost struct {
	t    testing.TB
	conn *memConn
	tier protocol.Tier
	mu   sync.Mutex
	sent map[uint64]string // host requests in flight, for validating the core's answers
}

func newFakeHost(t testing.TB, c *memConn) *fakeHost {
	return &fakeHost{t: t, conn: c, tier: protocol.TierPlugin, sent: map[uint64]string{}}
}

// read returns the next frame the core sent, validated with core/protocol.
func (h *fakeHost) read() wire {
	h.t.Helper()
	var p []byte
	select {
	case p = <-h.conn.toHost:
	case <-h.conn.closed:
		h.t.Fatalf("fake host: connection closed while reading")
	}
	lookup := func(id uint64) (string, bool) {
		h.mu.Lock()
		defer h.mu.Unlock()
		m, ok := h.sent[id]
		return m, ok
	}
	if _, err := protocol.ParseCoreMessage(p, h.tier, lookup); err != nil {
		h.t.Errorf("fake host: the core sent an invalid frame %s: %v", p, err)
	}
	var w wire
	if err := json.Unmarshal(p, &w); err != nil {
		h.t.Fatalf("fake host: %v", err)
	}
	return w
}

// send writes a raw host frame.
func (h *fakeHost) send(format string, args ...any) {
	h.t.Helper()
	p := []byte(fmt.Sprintf(format, args...))
	select {
	case h.conn.toCore <- p:
	case <-h.conn.closed:
		h.t.Fatalf("fake host: connection closed while sending %s", p)
	}
}

// request sends a host request and remembers it.
func (h *fakeHost) request(id uint64, method, params string) {
	h.t.Helper()
	h.mu.Lock()
	h.sent[id] = method
	h.mu.Unlock()
	h.send(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`, id, method, params)
}

func (h *fakeHost) answer(id uint64, result string) {
	h.t.Helper()
	h.send(`{"jsonrpc":"2.0","id":%d,"result":%s}`, id, result)
}

// fakeHandler serves host requests with a function and records notifications.
type fakeHandler struct {
	mu     sync.Mutex
	notes  []string
	serveF func(ctx context.Context, m *protocol.Message) (any, error)
}

func (f *fakeHandler) HandleRequest(ctx context.Context, m *protocol.Message) (any, error) {
	if f.serveF == nil {
		return struct{}{}, nil
	}
	return f.serveF(ctx, m)
}

func (f *fakeHandler) HandleNotification(m *protocol.Message) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.notes = append(f.notes, m.Method)
}

func (f *fakeHandler) seen() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.notes...)
}

// syncBuffer is a log sink safe for concurrent writes.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func (s *syncBuffer) count(sub string) int { return strings.Count(s.String(), sub) }

// rig is one peer, its fake host and its Run goroutine.
type rig struct {
	t    testing.TB
	peer *Peer
	host *fakeHost
	conn *memConn
	h    *fakeHandler
	logs *syncBuffer
	ran  chan error
}

type rigOpt func(*Options, *fakeHandler)

func newRig(t testing.TB, opts ...rigOpt) *rig {
	t.Helper()
	conn := newMemConn()
	h := &fakeHandler{}
	logs := &syncBuffer{}
	o := Options{Logger: hclog.New(&hclog.LoggerOptions{Output: logs, Level: hclog.Debug})}
	for _, f := range opts {
		f(&o, h)
	}
	r := &rig{t: t, conn: conn, h: h, logs: logs, host: newFakeHost(t, conn), ran: make(chan error, 1)}
	r.peer = New(conn, protocol.TierPlugin, h, o)
	go func() { r.ran <- r.peer.Run(context.Background()) }()
	return r
}

// stop closes the peer and returns Run's error.
func (r *rig) stop() error {
	r.t.Helper()
	r.peer.Close(errors.New("test over"))
	return r.wait()
}

func (r *rig) wait() error {
	r.t.Helper()
	select {
	case err := <-r.ran:
		<-r.peer.Done()
		return err
	case <-time.After(time.Minute):
		r.t.Fatal("Run did not return")
		return nil
	}
}

// callAsync starts a Call and returns a channel with its outcome.
type outcome struct {
	msg *protocol.Message
	err error
	at  time.Time
}

func (r *rig) callAsync(ctx context.Context, method string, params any, o CallOpts) <-chan outcome {
	ch := make(chan outcome, 1)
	go func() {
		m, err := r.peer.Call(ctx, method, params, o)
		ch <- outcome{m, err, time.Now()}
	}()
	return ch
}

func (r *rig) pendingCount() int {
	r.peer.mu.Lock()
	defer r.peer.mu.Unlock()
	return len(r.peer.pending)
}

func (r *rig) inboundCount() int {
	r.peer.mu.Lock()
	defer r.peer.mu.Unlock()
	return len(r.peer.inbound)
}

// pingParams is a valid params object for host/ping.
var pingParams = struct{}{}

func mustMarshal(t testing.TB, w wire) string {
	t.Helper()
	b, err := json.Marshal(w)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func testLogger(w io.Writer) hclog.Logger {
	return hclog.New(&hclog.LoggerOptions{Output: w, Level: hclog.Debug})
}

// trySendf writes a host frame unless the connection is closed.
func (h *fakeHost) trySendf(format string, args ...any) {
	select {
	case h.conn.toCore <- []byte(fmt.Sprintf(format, args...)):
	case <-h.conn.closed:
	}
}

var jsonUnmarshal = json.Unmarshal
