package supervisor

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cwx-dev/cwx/core/protocol"
	"github.com/cwx-dev/cwx/core/rpc"
	"github.com/cwx-dev/cwx/shared"
	"github.com/cwx-dev/cwx/shared/testenv"
)

// exitRecorder is an owner layer that keeps what each HostExited was told.
type exitRecorder struct {
	mu    sync.Mutex
	infos []ExitInfo
	told  chan struct{} // closed at the first HostExited
}

func newExitRecorder() *exitRecorder { return &exitRecorder{told: make(chan struct{})} }

func (r *exitRecorder) HostReady(context.Context, protocol.HostKey, uint64, *Host) error { return nil }
func (r *exitRecorder) HostExited(_ protocol.HostKey, _ uint64, info ExitInfo) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.infos = append(r.infos, info)
	if len(r.infos) == 1 {
		close(r.told)
	}
}
func (r *exitRecorder) HandleRequest(context.Context, protocol.HostKey, uint64, *protocol.Message) (any, error) {
	return nil, &protocol.RPCError{Code: protocol.CodeRefused, Message: "not served in this test"}
}
func (r *exitRecorder) HandleNotification(protocol.HostKey, uint64, *protocol.Message) {}

// first waits for the first exit report.
func (r *exitRecorder) first(t *testing.T) ExitInfo {
	t.Helper()
	select {
	case <-r.told:
	case <-time.After(20 * time.Second):
		t.Fatal("the owner layer was not told of the exit")
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.infos[0]
}

// TestEndCausesReachTheOwnerLayer: the reason an incarnation ended reaches the owner layer
// (and so the Manager's calls) as a wrapped error: a host that breaks the protocol is
// ErrViolation for the call in flight and for the exit report, and a runtime that exits
// hands its exit report on as a *shared.ExitError.
func TestEndCausesReachTheOwnerLayer(t *testing.T) {
	for _, want := range testenv.Runtimes() {
		t.Run(want.Name, func(t *testing.T) {
			rt := want.Get(t)
			t.Run("violation", func(t *testing.T) {
				t.Parallel()
				rec := newExitRecorder()
				tr := newTier(t, rt, "ping-bad", func(o *Options) { o.Owners = rec; o.CrashLimit = 1 })
				h, err := ensure(t, tr)
				if err != nil {
					t.Fatal(err)
				}
				_, err = h.Call(context.Background(), protocol.MethodHostPing, protocol.Empty{}, rpc.CallOpts{Timeout: 10 * time.Second})
				if !errors.Is(err, rpc.ErrViolation) || !errors.Is(err, rpc.ErrHostExited) {
					t.Errorf("call error %v; want ErrViolation and ErrHostExited", err)
				}
				info := rec.first(t)
				var fe *FailureError
				if !errors.As(info.Reason, &fe) || !errors.Is(info.Reason, rpc.ErrViolation) || !errors.Is(info.Reason, ErrNotAvailable) {
					t.Errorf("exit reason %v; want a *FailureError matching ErrViolation and ErrNotAvailable", info.Reason)
				}
			})
			t.Run("runtime_exit", func(t *testing.T) {
				t.Parallel()
				rec := newExitRecorder()
				tr := newTier(t, rt, "exit-after-ready", func(o *Options) { o.Owners = rec; o.CrashLimit = 1; o.HeartbeatInterval = 20 * time.Millisecond })
				if _, err := ensure(t, tr); err != nil {
					t.Fatal(err)
				}
				info := rec.first(t)
				var ee *shared.ExitError
				if !errors.As(info.Reason, &ee) || ee.Exit.Code != 1 || ee.Exit.Signal != 0 {
					t.Errorf("exit reason %v; want a *shared.ExitError with code 1, got %+v", info.Reason, ee)
				}
				if !errors.Is(info.Reason, shared.ErrRuntimeExited) || errors.Is(info.Reason, rpc.ErrViolation) {
					t.Errorf("exit reason %v; want ErrRuntimeExited and no violation", info.Reason)
				}
			})
		})
	}
}

// TestBusyNoteNamesTheCulprit: a host/busy naming an owner that is still outstanding when
// the heartbeat kills the host reaches the owner layer as ExitInfo.Busy, and the kill's
// reason names its plugin; a note cleared before the host hangs names nobody.
func TestBusyNoteNamesTheCulprit(t *testing.T) {
	owner := protocol.OwnerRef{PluginID: "looper", Generation: 1, OwnerToken: "tok"}
	for _, want := range testenv.Runtimes() {
		t.Run(want.Name, func(t *testing.T) {
			rt := want.Get(t)
			for _, c := range []struct {
				name  string
				calls []map[string]any
				busy  *protocol.OwnerRef
			}{
				{"outstanding", []map[string]any{{"busy": owner, "block": 60000}}, &owner},
				{"cleared", []map[string]any{{"busy": owner, "block": 50, "clear": true}, {"block": 60000}}, nil},
			} {
				t.Run(c.name, func(t *testing.T) {
					t.Parallel()
					rec := newExitRecorder()
					tr := newTier(t, rt, "good", func(o *Options) { fast(o); o.Owners = rec; o.CrashLimit = 1 })
					h, err := ensure(t, tr)
					if err != nil {
						t.Fatal(err)
					}
					for _, in := range c.calls {
						_, err = h.Call(context.Background(), protocol.MethodToolCall, toolCall(in), rpc.CallOpts{Timeout: 30 * time.Second})
					}
					if !errors.Is(err, rpc.ErrHostExited) {
						t.Fatalf("last call: %v, want a host exit", err)
					}
					info := rec.first(t)
					if !info.Hung || (info.Busy == nil) != (c.busy == nil) || c.busy != nil && *info.Busy != *c.busy {
						t.Fatalf("exit info %+v, want hung with busy %v", info, c.busy)
					}
					if named := strings.Contains(info.Reason.Error(), "while a callback of plugin looper ran"); named != (c.busy != nil) {
						t.Fatalf("reason %q names the plugin: %v", info.Reason, named)
					}
				})
			}
		})
	}
}
