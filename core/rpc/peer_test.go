package rpc

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/cwx-dev/cwx/core/protocol"
)

func TestViolationsEndTheIncarnation(t *testing.T) {
	cases := []struct{ name, frame, want string }{
		{"not json", `{"jsonrpc":`, "protocol violation"},
		{"unknown method", `{"jsonrpc":"2.0","method":"approval/respond","params":{}}`, "approval/respond"},
		{"core-to-host method sent by the host", `{"jsonrpc":"2.0","id":1,"method":"harness/run","params":{}}`, "harness/run"},
		{"unknown field", `{"jsonrpc":"2.0","method":"host/ready","params":{"x":1}}`, "host/ready"},
		{"notification with id", `{"jsonrpc":"2.0","id":3,"method":"host/ready"}`, "notification"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				r := newRig(t)
				r.host.send("%s", tc.frame)
				err := r.wait()
				if !errors.Is(err, ErrViolation) || !errors.Is(err, protocol.ErrInvalidMessage) || !strings.Contains(err.Error(), tc.want) {
					t.Fatalf("Run = %v", err)
				}
				if r.peer.Err() != err {
					t.Fatalf("Err() = %v", r.peer.Err())
				}
				if len(r.h.seen()) != 0 {
					t.Fatal("a refused frame reached the handler")
				}
			})
		})
	}
}

func TestViolationInAnswerShape(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t)
		out := r.callAsync(t.Context(), protocol.MethodHostPing, nil, CallOpts{})
		r.host.read()
		r.host.answer(1, `{"unexpected":true}`)
		if o := <-out; !errors.Is(o.err, ErrHostExited) || !errors.Is(o.err, ErrViolation) {
			t.Fatalf("call = %v", o.err)
		}
		if err := r.wait(); !errors.Is(err, ErrViolation) {
			t.Fatalf("Run = %v", err)
		}
	})
}

func TestCloseBeforeRun(t *testing.T) {
	conn := newMemConn()
	p := New(conn, protocol.TierPlugin, &fakeHandler{}, Options{})
	reason := errors.New("never started")
	p.Close(reason)
	if err := p.Run(context.Background()); err != reason {
		t.Fatalf("Run = %v", err)
	}
	<-p.Done()
	if err := p.Run(context.Background()); err == nil {
		t.Fatal("second Run succeeded")
	}
}

func TestRunContextEndsIncarnation(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		conn := newMemConn()
		p := New(conn, protocol.TierPlugin, &fakeHandler{}, Options{})
		ctx, cancel := context.WithCancelCause(t.Context())
		ran := make(chan error, 1)
		go func() { ran <- p.Run(ctx) }()
		why := errors.New("manager closing")
		cancel(why)
		if err := <-ran; err != why {
			t.Fatalf("Run = %v", err)
		}
		select {
		case <-conn.closed:
		default:
			t.Fatal("the Conn was not closed")
		}
	})
}

func TestCloseWithoutReason(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t)
		r.peer.Close(nil)
		if err := r.wait(); err == nil || !strings.Contains(err.Error(), "closed") {
			t.Fatalf("Run = %v", err)
		}
	})
}

// stuckConn blocks in Recv, and in Send whatever the context, until released; it is not
// an io.Closer.
type stuckConn struct{ release chan struct{} }

func (c stuckConn) Send(context.Context, []byte) error { <-c.release; return io.EOF }
func (c stuckConn) Recv() ([]byte, error)              { <-c.release; return nil, io.EOF }

func TestRunIsBoundedWhenTheConnBlocks(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := stuckConn{release: make(chan struct{})}
		logs := &syncBuffer{}
		p := New(c, protocol.TierPlugin, &fakeHandler{}, Options{Logger: testLogger(logs), JoinTimeout: 3 * time.Second})
		ran := make(chan error, 1)
		go func() { ran <- p.Run(context.Background()) }()
		if err := p.Notify(protocol.MethodCancel, &protocol.CancelParams{ID: 1}); err != nil {
			t.Fatal(err)
		}
		synctest.Wait() // the writer is stuck in Send, the reader in Recv
		start := time.Now()
		p.Close(errors.New("stop"))
		<-ran
		if d := time.Since(start); d != 3*time.Second {
			t.Fatalf("Run returned after %v, want the 3s join timeout", d)
		}
		if logs.count("still blocked in Send or Recv") != 1 {
			t.Fatalf("logs:\n%s", logs)
		}
		close(c.release)
	})
}

func TestRunWaitsAtMostGraceForTasks(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		release := make(chan struct{})
		r := newRig(t, func(_ *Options, h *fakeHandler) {
			h.serveF = func(context.Context, *protocol.Message) (any, error) { <-release; return nil, nil }
		})
		r.host.request(1, protocol.MethodRegistryUnregister, unregister)
		synctest.Wait()
		start := time.Now()
		r.stop()
		if d := time.Since(start); d != CancelGrace {
			t.Fatalf("Run returned %v after Close, want %v", d, CancelGrace)
		}
		if r.logs.count("ignored cancellation") != 1 {
			t.Fatalf("logs:\n%s", r.logs)
		}
		close(release)
	})
}

func TestRunReturnsPromptlyWhenTasksStop(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t, func(_ *Options, h *fakeHandler) {
			h.serveF = func(ctx context.Context, _ *protocol.Message) (any, error) { <-ctx.Done(); return nil, nil }
		})
		r.host.request(1, protocol.MethodRegistryUnregister, unregister)
		synctest.Wait()
		start := time.Now()
		r.stop()
		if d := time.Since(start); d != 0 {
			t.Fatalf("Run took %v", d)
		}
	})
}

// failSendConn fails every Send.
type failSendConn struct{ *memConn }

func (failSendConn) Send(context.Context, []byte) error { return errors.New("broken pipe") }

func TestSendFailureEndsIncarnation(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := failSendConn{newMemConn()}
		p := New(c, protocol.TierPlugin, &fakeHandler{}, Options{})
		ran := make(chan error, 1)
		go func() { ran <- p.Run(context.Background()) }()
		_, err := p.Call(t.Context(), protocol.MethodHostPing, nil, CallOpts{})
		if !errors.Is(err, ErrHostExited) || !strings.Contains(err.Error(), "broken pipe") {
			t.Fatalf("call = %v", err)
		}
		<-ran
	})
}

// TestDeadlineOnTheBubblesClock: the call's deadline and the cancel grace end exactly when
// their time has passed on the synctest bubble's clock, not a nanosecond before.
func TestDeadlineOnTheBubblesClock(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t)
		defer r.stop()
		out := r.callAsync(context.Background(), protocol.MethodToolCall, toolCall(), CallOpts{Timeout: 120 * time.Second})
		w := r.host.read()
		time.Sleep(120*time.Second - time.Nanosecond)
		synctest.Wait()
		select {
		case o := <-out:
			t.Fatalf("resolved before the deadline: %v", o.err)
		default:
		}
		time.Sleep(time.Nanosecond)
		if o := <-out; !errors.Is(o.err, ErrTimeout) {
			t.Fatalf("err = %v", o.err)
		}
		if c := r.host.read(); c.Method != protocol.MethodCancel || string(c.Params) != `{"id":`+itoa(*w.ID)+`}` {
			t.Fatalf("host got %s %s", c.Method, c.Params)
		}
		time.Sleep(CancelGrace - time.Nanosecond)
		synctest.Wait()
		if r.pendingCount() != 1 {
			t.Fatal("slot freed before the grace ended")
		}
		time.Sleep(time.Nanosecond)
		synctest.Wait()
		if r.pendingCount() != 0 {
			t.Fatal("slot not freed at the end of the grace")
		}
	})
}

func TestNilHandlerRefusesRequests(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		conn := newMemConn()
		p := New(conn, protocol.TierPlugin, nil, Options{})
		ran := make(chan error, 1)
		go func() { ran <- p.Run(context.Background()) }()
		h := newFakeHost(t, conn)
		h.send(`{"jsonrpc":"2.0","method":"host/ready"}`)
		h.request(1, protocol.MethodCoreCall, `{"owner":{"plugin_id":"p","generation":1,"owner_token":"t"},"ticket":"x","name":"read_file","input":{}}`)
		w := h.read()
		if w.Error == nil || w.Error.Code != protocol.CodeRefused {
			t.Fatalf("answer %+v", w)
		}
		p.Close(nil)
		<-ran
	})
}
