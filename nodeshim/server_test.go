package nodeshim

import (
	"testing"
	"testing/synctest"

	"github.com/hashicorp/go-hclog"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// TestStartReservation checks the spawn's reservation without spawning: one spawn at a time, one runtime ever, none once the shim
// is shutting down, and a failed spawn leaves the next Start free to try.
func TestStartReservation(t *testing.T) {
	tests := []struct {
		name  string
		setup func(s *server) // leaves the server in the state under test
		want  codes.Code      // of the next reservation; OK means it succeeds
	}{
		{"fresh", func(*server) {}, codes.OK},
		{"a spawn under way", func(s *server) { mustReserve(t, s) }, codes.FailedPrecondition},
		{"after a failed spawn", func(s *server) { s.publishStart(nil, mustReserve(t, s)) }, codes.OK},
		{"after a spawn", func(s *server) { s.publishStart(fakeProc(), mustReserve(t, s)) }, codes.FailedPrecondition},
		{"shutting down", func(s *server) { s.sd.trigger(exitOK, "test", nil) }, codes.Unavailable},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := newServer(hclog.NewNullLogger(), "plugin", newShutdown(hclog.NewNullLogger(), joinGrace))
			tc.setup(s)
			_, err := s.reserveStart()
			if got := status.Code(err); got != tc.want {
				t.Errorf("reserveStart: %v (code %v), want code %v", err, got, tc.want)
			}
		})
	}
}

// TestShutdownWaitsForASpawnUnderWay checks that the runtime a shutdown ends is never missed
// because its spawn was still under way: settledRuntime waits for it to be published.
func TestShutdownWaitsForASpawnUnderWay(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newServer(hclog.NewNullLogger(), "plugin", newShutdown(hclog.NewNullLogger(), joinGrace))
		spawning := mustReserve(t, s)
		got := make(chan *proc, 1)
		go func() { got <- s.settledRuntime() }()
		synctest.Wait()
		select {
		case p := <-got:
			t.Fatalf("settledRuntime returned %v while the spawn was under way", p)
		default:
		}
		p := fakeProc()
		s.publishStart(p, spawning)
		if r := <-got; r != p {
			t.Errorf("settledRuntime = %p, want the published runtime %p", r, p)
		}
		select {
		case <-s.started:
		default:
			t.Error("started is not closed after the runtime was published")
		}
	})
}

func mustReserve(t *testing.T, s *server) chan struct{} {
	t.Helper()
	ch, err := s.reserveStart()
	if err != nil {
		t.Fatalf("reserveStart: %v", err)
	}
	return ch
}

func fakeProc() *proc {
	return &proc{waited: make(chan struct{}), stderrDone: make(chan struct{})}
}
