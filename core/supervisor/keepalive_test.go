package supervisor

import (
	"context"
	"errors"
	"io"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/cwx-dev/cwx/core/protocol"
	"github.com/cwx-dev/cwx/core/rpc"
	"github.com/cwx-dev/cwx/core/runtime"
	"github.com/cwx-dev/cwx/shared"
)

func TestCrashWindow(t *testing.T) {
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	cases := []struct {
		name    string
		at      []time.Duration
		wantHit []bool
	}{
		{"three_within_five_minutes", []time.Duration{0, time.Minute, 4*time.Minute + 59*time.Second}, []bool{false, false, true}},
		{"oldest_expires_at_five_minutes", []time.Duration{0, time.Minute, 5 * time.Minute}, []bool{false, false, false}},
		{"spread_out", []time.Duration{0, 6 * time.Minute, 12 * time.Minute}, []bool{false, false, false}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			w := window{span: DefaultCrashWindow, limit: DefaultCrashLimit}
			for i, d := range c.at {
				if got := w.add(base.Add(d)); got != c.wantHit[i] {
					t.Errorf("crash %d at %v: exhausted=%v, want %v", i+1, d, got, c.wantHit[i])
				}
			}
		})
	}
}

// silentConn is a Conn whose host never answers: Send records, Recv blocks until Close.
type silentConn struct {
	mu     sync.Mutex
	sent   int
	closed chan struct{}
	once   sync.Once
}

func (c *silentConn) Send(context.Context, []byte) error {
	c.mu.Lock()
	c.sent++
	c.mu.Unlock()
	return nil
}

func (c *silentConn) Recv() ([]byte, error) {
	<-c.closed
	return nil, io.EOF
}

func (c *silentConn) Close() error { c.once.Do(func() { close(c.closed) }); return nil }

// TestHeartbeatBounds checks the heartbeat (ARCHITECTURE.md, “Lifecycles and numbers”) on a
// fake clock: the first ping at DefaultHeartbeat, Unresponsive DefaultUnresponsive after it,
// the kill DefaultHangKill after it.
func TestHeartbeatBounds(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		conn := &silentConn{closed: make(chan struct{})}
		inc := &incarnation{gen: 1, peerDone: make(chan struct{}), ch: &shared.Channel{}}
		inc.peer = rpc.New(conn, protocol.TierPlugin, &hostHandler{}, rpc.Options{})
		go func() { defer close(inc.peerDone); _ = inc.peer.Run(context.Background()) }()
		tr, err := NewTier(Options{Tier: protocol.TierPlugin, Runtime: testRuntime, BundlePath: "/b", BundleSHA256: "x", ShimPath: "/cwx"})
		if err != nil {
			t.Fatal(err)
		}
		tr.mu.Lock()
		tr.cur, tr.state = inc, StateReady
		tr.mu.Unlock()
		start := time.Now()
		done := make(chan struct{})
		go func() { defer close(done); tr.heartbeat(inc) }()

		time.Sleep(DefaultHeartbeat + DefaultUnresponsive - time.Millisecond)
		synctest.Wait()
		if st := tr.Status().State; st != StateReady {
			t.Fatalf("state %q just before the unresponsive bound", st)
		}
		time.Sleep(time.Millisecond)
		synctest.Wait()
		if st := tr.Status().State; st != StateUnresponsive {
			t.Fatalf("state %q at %v, want unresponsive", st, time.Since(start))
		}
		if _, err := (&Host{t: tr, inc: inc}).Call(context.Background(), protocol.MethodToolCall, toolCall("x"), rpc.CallOpts{}); !errors.Is(err, ErrNotAvailable) {
			t.Errorf("call while unresponsive: %v", err)
		}
		time.Sleep(DefaultHangKill - DefaultUnresponsive - time.Millisecond)
		synctest.Wait()
		if r := inc.killReason(); r != "" {
			t.Fatalf("killed before the bound: %q", r)
		}
		time.Sleep(time.Millisecond)
		synctest.Wait()
		if r := inc.killReason(); r != "heartbeat timed out: host/ping unanswered for 10s" {
			t.Fatalf("kill reason %q at %v", r, time.Since(start))
		}
		inc.peer.Close(errors.New("test over"))
		<-done
	})
}

var testRuntime = runtime.Runtime{Kind: runtime.KindNode, Path: "/opt/node/bin/node", Version: "v22.23.5"}
