package rpc

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/cwx-dev/cwx/core/protocol"
)

const unregister = `{"owner":{"plugin_id":"p","generation":1,"owner_token":"t"},"handle":3}`

func TestHostRequestIsServedAsTask(t *testing.T) {
	cases := []struct {
		name  string
		serve func(context.Context, *protocol.Message) (any, error)
		want  string
	}{
		{"result", func(context.Context, *protocol.Message) (any, error) { return struct{}{}, nil }, `"result":{}`},
		{"nil result is {}", func(context.Context, *protocol.Message) (any, error) { return nil, nil }, `"result":{}`},
		{"rpc error keeps its code", func(context.Context, *protocol.Message) (any, error) {
			return nil, fmt.Errorf("wrapped: %w", &protocol.RPCError{Code: protocol.CodeRefused, Message: "core/call is not served here"})
		}, `"error":{"code":-32002,"message":"core/call is not served here"}`},
		{"plain error is Internal", func(context.Context, *protocol.Message) (any, error) { return nil, errors.New("oops") }, `"error":{"code":-32603,"message":"oops"}`},
		{"panic is Internal", func(context.Context, *protocol.Message) (any, error) { panic("bad") }, `"code":-32603`},
		{"unencodable result is Internal", func(context.Context, *protocol.Message) (any, error) { return make(chan int), nil }, `"code":-32603`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				r := newRig(t, func(_ *Options, h *fakeHandler) {
					h.serveF = func(ctx context.Context, m *protocol.Message) (any, error) {
						if _, ok := m.Value.(*protocol.UnregisterParams); !ok || m.Method != protocol.MethodRegistryUnregister {
							t.Errorf("handler got %s %T", m.Method, m.Value)
						}
						return tc.serve(ctx, m)
					}
				})
				r.host.request(41, protocol.MethodRegistryUnregister, unregister)
				w := r.host.read()
				raw := mustMarshal(t, w)
				if w.ID == nil || *w.ID != 41 || !strings.Contains(raw, tc.want) {
					t.Fatalf("answer %s, want id 41 and %s", raw, tc.want)
				}
				if r.peer.Err() != nil {
					t.Fatal(r.peer.Err())
				}
				r.stop()
			})
		})
	}
}

func TestHostRequestsRunConcurrently(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		release := make(chan struct{})
		r := newRig(t, func(_ *Options, h *fakeHandler) {
			h.serveF = func(ctx context.Context, m *protocol.Message) (any, error) {
				if m.ID == 1 {
					<-release
				}
				return nil, nil
			}
		})
		r.host.request(1, protocol.MethodRegistryUnregister, unregister)
		r.host.request(2, protocol.MethodRegistryUnregister, unregister)
		if w := r.host.read(); *w.ID != 2 {
			t.Fatalf("a slow task blocked the next one: first answer is for %d", *w.ID)
		}
		close(release)
		if w := r.host.read(); *w.ID != 1 {
			t.Fatalf("second answer for %d", *w.ID)
		}
		r.stop()
	})
}

func TestInboundIDReusedInFlightIsViolation(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		release := make(chan struct{})
		r := newRig(t, func(_ *Options, h *fakeHandler) {
			h.serveF = func(ctx context.Context, _ *protocol.Message) (any, error) {
				<-release
				return nil, nil
			}
		})
		out := r.callAsync(t.Context(), protocol.MethodHostPing, nil, CallOpts{})
		r.host.read()
		r.host.request(5, protocol.MethodRegistryUnregister, unregister)
		r.host.request(5, protocol.MethodRegistryUnregister, unregister)
		err := r.wait()
		if !errors.Is(err, ErrViolation) || !strings.Contains(err.Error(), "request id 5 reused while in flight") {
			t.Fatalf("Run = %v", err)
		}
		if o := <-out; !errors.Is(o.err, ErrHostExited) || !errors.Is(o.err, ErrViolation) {
			t.Fatalf("pending call = %v, want ErrHostExited carrying the violation", o.err)
		}
		close(release)
	})
}

func TestInboundIDReusedAfterAnswerIsFine(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t)
		for range 2 {
			r.host.request(5, protocol.MethodRegistryUnregister, unregister)
			r.host.read()
		}
		synctest.Wait()
		if r.peer.Err() != nil {
			t.Fatal(r.peer.Err())
		}
		r.stop()
	})
}

func TestInboundLimit(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		release := make(chan struct{})
		r := newRig(t, func(_ *Options, h *fakeHandler) {
			h.serveF = func(ctx context.Context, _ *protocol.Message) (any, error) {
				select {
				case <-release:
				case <-ctx.Done():
				}
				return nil, nil
			}
		})
		for id := uint64(1); id <= MaxInbound; id++ {
			r.host.request(id, protocol.MethodRegistryUnregister, unregister)
		}
		synctest.Wait()
		if r.peer.Err() != nil || r.inboundCount() != MaxInbound {
			t.Fatalf("after %d requests: err %v, in flight %d", MaxInbound, r.peer.Err(), r.inboundCount())
		}
		r.host.request(MaxInbound+1, protocol.MethodRegistryUnregister, unregister)
		err := r.wait()
		if !errors.Is(err, ErrViolation) || !strings.Contains(err.Error(), "more than 256 host requests in flight") {
			t.Fatalf("Run = %v", err)
		}
		close(release)
	})
}

func TestHostCancelCancelsHandlerAndDropsAnswer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		causes := make(chan error, 1)
		r := newRig(t, func(_ *Options, h *fakeHandler) {
			h.serveF = func(ctx context.Context, _ *protocol.Message) (any, error) {
				<-ctx.Done()
				causes <- context.Cause(ctx)
				return nil, nil
			}
		})
		r.host.request(8, protocol.MethodRegistryUnregister, unregister)
		synctest.Wait()
		r.host.send(`{"jsonrpc":"2.0","method":"$/cancel","params":{"id":8}}`)
		if c := <-causes; !errors.Is(c, ErrHostCancelled) {
			t.Fatalf("handler context cause = %v", c)
		}
		synctest.Wait()
		select {
		case p := <-r.conn.toHost:
			t.Fatalf("the answer to a cancelled request was sent: %s", p)
		default:
		}
		if r.inboundCount() != 0 {
			t.Fatal("the task kept its slot after returning")
		}
		r.stop()
	})
}

func TestHandlerIgnoringCancelIsAbandonedAfterGrace(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		release := make(chan struct{})
		var returned atomic.Bool
		r := newRig(t, func(_ *Options, h *fakeHandler) {
			h.serveF = func(ctx context.Context, _ *protocol.Message) (any, error) {
				<-release // ignores ctx
				returned.Store(true)
				return nil, nil
			}
		})
		r.host.request(8, protocol.MethodRegistryUnregister, unregister)
		synctest.Wait()
		r.host.send(`{"jsonrpc":"2.0","method":"$/cancel","params":{"id":8}}`)
		time.Sleep(CancelGrace - time.Millisecond)
		synctest.Wait()
		if r.inboundCount() != 1 {
			t.Fatal("abandoned before the grace ended")
		}
		time.Sleep(time.Millisecond)
		synctest.Wait()
		if r.inboundCount() != 0 || r.logs.count("abandoned") != 1 {
			t.Fatalf("not abandoned at the grace: in flight %d, logs:\n%s", r.inboundCount(), r.logs)
		}
		// The id is free again; the late handler's answer is dropped.
		r.host.request(8, protocol.MethodRegistryUnregister, unregister)
		synctest.Wait()
		close(release)
		synctest.Wait()
		if !returned.Load() {
			t.Fatal("handler did not return")
		}
		if w := r.host.read(); *w.ID != 8 {
			t.Fatalf("answer for %d", *w.ID)
		}
		synctest.Wait()
		select {
		case p := <-r.conn.toHost:
			t.Fatalf("a second answer was sent: %s", p)
		default:
		}
		if r.peer.Err() != nil {
			t.Fatal(r.peer.Err())
		}
		r.stop()
	})
}

func TestHostCancelOfUnknownIDIgnored(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t)
		r.host.send(`{"jsonrpc":"2.0","method":"$/cancel","params":{"id":99}}`)
		synctest.Wait()
		if r.peer.Err() != nil {
			t.Fatal(r.peer.Err())
		}
		r.stop()
	})
}

func TestNotificationsInOrder(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t)
		r.host.send(`{"jsonrpc":"2.0","method":"host/ready"}`)
		r.host.send(`{"jsonrpc":"2.0","method":"log","params":{"level":"info","msg":"hi"}}`)
		r.host.send(`{"jsonrpc":"2.0","method":"ext/faulted","params":{"owner":{"plugin_id":"p","generation":1,"owner_token":"t"},"error":"x"}}`)
		synctest.Wait()
		r.stop()
		got := strings.Join(r.h.seen(), ",")
		if got != "host/ready,log,ext/faulted" {
			t.Fatalf("notifications = %s", got)
		}
	})
}

func TestEndCancelsTasksWithoutAnswering(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		causes := make(chan error, 1)
		r := newRig(t, func(_ *Options, h *fakeHandler) {
			h.serveF = func(ctx context.Context, _ *protocol.Message) (any, error) {
				<-ctx.Done()
				causes <- context.Cause(ctx)
				return nil, nil
			}
		})
		r.host.request(3, protocol.MethodRegistryUnregister, unregister)
		synctest.Wait()
		reason := errors.New("heartbeat timed out")
		r.peer.Close(reason)
		if err := r.wait(); err != reason {
			t.Fatalf("Run = %v", err)
		}
		if c := <-causes; c != reason {
			t.Fatalf("handler cause = %v", c)
		}
	})
}

// partsConn is a memConn that takes a payload in parts (PartsConn), recording how many
// pieces each payload came in.
type partsConn struct {
	*memConn
	mu     sync.Mutex
	pieces []int
}

func (c *partsConn) SendParts(ctx context.Context, parts ...[]byte) error {
	c.mu.Lock()
	c.pieces = append(c.pieces, len(parts))
	c.mu.Unlock()
	return c.Send(ctx, bytes.Join(parts, nil))
}

// TestAnswerWithAttachment: a result with an attachment is one frame, the JSON text, a NUL
// byte and the bytes, handed in two pieces to a Conn that takes parts and joined to one
// that does not.
func TestAnswerWithAttachment(t *testing.T) {
	body := bytes.Repeat([]byte{0, 1, 0xff}, 1000)
	for _, parts := range []bool{false, true} {
		t.Run(fmt.Sprintf("parts=%v", parts), func(t *testing.T) {
			mc := newMemConn()
			var conn Conn = mc
			pc := &partsConn{memConn: mc}
			if parts {
				conn = pc
			}
			h := &fakeHandler{serveF: func(context.Context, *protocol.Message) (any, error) {
				return protocol.WithAttachment{Result: protocol.NetChunk{EOF: true}, Data: body}, nil
			}}
			peer := New(conn, protocol.TierPlugin, h, Options{Logger: hclog.NewNullLogger()})
			ran := make(chan error, 1)
			go func() { ran <- peer.Run(context.Background()) }()
			mc.toCore <- []byte(`{"jsonrpc":"2.0","id":7,"method":"net/read","params":{"owner":{"plugin_id":"p","generation":1,"owner_token":"t"},"request_id":"r1"}}`)
			payload := <-mc.toHost
			m, err := protocol.ParseCoreMessage(payload, protocol.TierPlugin, func(uint64) (string, bool) { return protocol.MethodNetRead, true })
			if err != nil {
				t.Fatal(err)
			}
			if v, ok := m.Value.(*protocol.NetChunk); !ok || !v.EOF || m.ID != 7 || !bytes.Equal(m.Attachment, body) {
				t.Fatalf("answer %+v with %d attached bytes, want id 7, eof and the body", m, len(m.Attachment))
			}
			pc.mu.Lock()
			if got := pc.pieces; parts && !slices.Equal(got, []int{2}) {
				t.Errorf("SendParts got pieces %v, want one payload in 2", got)
			}
			pc.mu.Unlock()
			peer.Close(errors.New("test over"))
			<-ran
		})
	}
}
