package supervisor

import (
	"context"
	"sync"
	"syscall"
	"testing"
	"testing/synctest"
	"time"

	"github.com/cwx-dev/cwx/core/protocol"
)

// fakeTarget records when each signal arrives on the bubble's fake clock and goes away
// when the configured signal (or the shutdown answer) arrives.
type fakeTarget struct {
	start    time.Time
	diesOn   syscall.Signal // 0: dies on host/shutdown
	never    bool           // ignores everything
	mu       sync.Mutex
	signals  map[syscall.Signal]time.Duration
	goneCh   chan struct{}
	goneOnce sync.Once
}

func newFakeTarget(diesOn syscall.Signal, never bool) *fakeTarget {
	return &fakeTarget{start: time.Now(), diesOn: diesOn, never: never,
		signals: map[syscall.Signal]time.Duration{}, goneCh: make(chan struct{})}
}

func (f *fakeTarget) die() { f.goneOnce.Do(func() { close(f.goneCh) }) }

func (f *fakeTarget) requestShutdown(ctx context.Context) {
	if f.diesOn == 0 && !f.never {
		time.Sleep(100 * time.Millisecond) // answers, then exits
		f.die()
		return
	}
	<-ctx.Done()
}

func (f *fakeTarget) signal(sig syscall.Signal) {
	f.mu.Lock()
	f.signals[sig] = time.Since(f.start)
	f.mu.Unlock()
	if sig == f.diesOn && !f.never {
		f.die()
	}
}

func (f *fakeTarget) gone() <-chan struct{} { return f.goneCh }

// TestBoundedStopTiming checks the exact shutdown bounds (ARCHITECTURE.md, “Lifecycles and
// numbers”) on a fake clock.
func TestBoundedStopTiming(t *testing.T) {
	cases := []struct {
		name               string
		diesOn             syscall.Signal
		never              bool
		wantTerm, wantKill time.Duration // -1: not sent
		wantTook           time.Duration
		wantLeaked         bool
	}{
		{name: "cooperative", diesOn: 0, wantTerm: -1, wantKill: -1, wantTook: 100 * time.Millisecond},
		{name: "dies_on_sigterm", diesOn: syscall.SIGTERM, wantTerm: 2 * time.Second, wantKill: -1, wantTook: 2 * time.Second},
		{name: "ignores_sigterm", diesOn: syscall.SIGKILL, wantTerm: 2 * time.Second, wantKill: 3 * time.Second, wantTook: 3 * time.Second},
		{name: "unkillable", never: true, wantTerm: 2 * time.Second, wantKill: 3 * time.Second, wantTook: 5 * time.Second, wantLeaked: true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				f := newFakeTarget(c.diesOn, c.never)
				rep := boundedStop(RealClock{}, DefaultShutdownAnswer, DefaultKillAfter, 2*time.Second, f)
				if rep.Took != c.wantTook || rep.Leaked != c.wantLeaked {
					t.Errorf("report %+v, want took %v leaked %v", rep, c.wantTook, c.wantLeaked)
				}
				check := func(sig syscall.Signal, want time.Duration) {
					got, sent := f.signals[sig]
					switch {
					case want < 0 && sent:
						t.Errorf("%v sent at %v, want not sent", sig, got)
					case want >= 0 && (!sent || got != want):
						t.Errorf("%v sent=%v at %v, want at %v", sig, sent, got, want)
					}
				}
				check(syscall.SIGTERM, c.wantTerm)
				check(syscall.SIGKILL, c.wantKill)
			})
		})
	}
}

// TestHandshakeDeadline checks the handshake bound on a fake clock: a silent host is
// refused exactly at the deadline.
func TestHandshakeDeadline(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		tr := &TierRuntime{o: Options{Clock: RealClock{}, HandshakeTimeout: DefaultHandshakeTimeout}}
		inc := &incarnation{hello: make(chan *protocol.HelloParams), peerDone: make(chan struct{})}
		start := time.Now()
		err := tr.handshake(context.Background(), inc)
		if took := time.Since(start); took != DefaultHandshakeTimeout {
			t.Errorf("refused after %v, want exactly %v", took, DefaultHandshakeTimeout)
		}
		if err == nil || err.Error() != "handshake timed out after 30s: no host/hello" {
			t.Errorf("error %v", err)
		}
	})
}
