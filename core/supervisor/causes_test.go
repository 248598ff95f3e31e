package supervisor

import (
	"context"
	"errors"
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

func (r *exitRecorder) HostReady(context.Context, protocol.Tier, uint64, *Host) error { return nil }
func (r *exitRecorder) HostExited(_ protocol.Tier, _ uint64, info ExitInfo) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.infos = append(r.infos, info)
	if len(r.infos) == 1 {
		close(r.told)
	}
}
func (r *exitRecorder) HandleRequest(context.Context, protocol.Tier, uint64, *protocol.Message) (any, error) {
	return nil, &protocol.RPCError{Code: protocol.CodeRefused, Message: "not served in this test"}
}
func (r *exitRecorder) HandleNotification(protocol.Tier, uint64, *protocol.Message) {}

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
				tr := newTier(t, rt, "exit-after-ready", func(o *Options) { o.Owners = rec; o.CrashLimit = 1 })
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
