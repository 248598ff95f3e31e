package rpc

import (
	"errors"
	"testing"
	"testing/synctest"

	"github.com/cwx-dev/cwx/core/protocol"
)

var errTestDraining = errors.New("draining for the test")

func toolCallParams() protocol.ToolCallParams {
	return protocol.ToolCallParams{Handle: 1, CallID: "c", Input: []byte(`{}`), DeadlineMS: 1000}
}

func isClosed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// TestDrain: a drained peer refuses new requests (not the heartbeat, not host/shutdown)
// and reports idle once the last admitted request gave its slot back, or the incarnation
// ended.
func TestDrain(t *testing.T) {
	cases := []struct {
		name     string
		inflight bool // a tool/call is pending when Drain is called
		end      bool // the incarnation ends instead of answering
	}{
		{"idle at once", false, false},
		{"after the answer", true, false},
		{"when the incarnation ends", true, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				r := newRig(t)
				var first <-chan outcome
				if c.inflight {
					first = r.callAsync(t.Context(), protocol.MethodToolCall, toolCallParams(), CallOpts{})
					r.host.read()
				}
				idle := r.peer.Drain(errTestDraining)
				if isClosed(idle) == c.inflight {
					t.Fatalf("idle closed = %t with a call in flight = %t", isClosed(idle), c.inflight)
				}
				if _, err := r.peer.Call(t.Context(), protocol.MethodToolCall, toolCallParams(), CallOpts{}); !errors.Is(err, errTestDraining) {
					t.Fatalf("a new call while draining: %v, want the refusal", err)
				}
				hb := r.callAsync(t.Context(), protocol.MethodHostPing, pingParams, CallOpts{Heartbeat: true})
				if w := r.host.read(); w.Method != protocol.MethodHostPing {
					t.Fatalf("heartbeat while draining: the host got %q", w.Method)
				}
				r.host.answer(*r.peer.pendingIDForTest(protocol.MethodHostPing), `{}`)
				if o := <-hb; o.err != nil {
					t.Fatalf("heartbeat while draining: %v", o.err)
				}
				switch {
				case c.end:
					r.peer.Close(errors.New("gone"))
					<-first
				case c.inflight:
					r.host.answer(1, `{"content":[],"is_error":false}`)
					if o := <-first; o.err != nil {
						t.Fatalf("the call in flight: %v", o.err)
					}
				}
				synctest.Wait()
				if !isClosed(idle) || !isClosed(r.peer.Drain(errTestDraining)) {
					t.Fatal("not idle after the last call")
				}
				if !c.end {
					sd := r.callAsync(t.Context(), protocol.MethodHostShutdown, protocol.Empty{}, CallOpts{})
					if w := r.host.read(); w.Method != protocol.MethodHostShutdown {
						t.Fatalf("host/shutdown while draining: the host got %q", w.Method)
					}
					r.host.answer(*r.peer.pendingIDForTest(protocol.MethodHostShutdown), `{}`)
					if o := <-sd; o.err != nil {
						t.Fatalf("host/shutdown while draining: %v", o.err)
					}
				}
				r.stop()
			})
		})
	}
}

// pendingIDForTest returns the id of the pending request of method.
func (p *Peer) pendingIDForTest(method string) *uint64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	for id, c := range p.pending {
		if c.method == method {
			return &id
		}
	}
	return nil
}
