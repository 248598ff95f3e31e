package supervisor

import (
	"context"
	"errors"
	"syscall"
	"time"

	"github.com/cwx-dev/cwx/core/protocol"
	"github.com/cwx-dev/cwx/core/rpc"
)

// stopTarget is what the bounded shutdown acts on; the incarnation in production, a fake in
// the timing tests.
type stopTarget interface {
	// requestShutdown sends host/shutdown and returns when it was answered or failed.
	requestShutdown(ctx context.Context)
	// signal sends sig to the runtime's and the shim's process groups.
	signal(sig syscall.Signal)
	// gone is closed when the runtime and the shim have both exited.
	gone() <-chan struct{}
}

// StopReport says how a bounded shutdown went.
type StopReport struct {
	TermSent bool          // SIGTERM had to be sent
	KillSent bool          // SIGKILL had to be sent
	Took     time.Duration // until both processes were gone (or the final bound passed)
	Leaked   bool          // the processes were still there after the final bound
}

// boundedStop runs the bounded shutdown (ARCHITECTURE.md, “Lifecycles and numbers”):
// host/shutdown, SIGTERM to both groups at answer, SIGKILL at kill, then waits at most linger
// more for the processes to go.
func boundedStop(clock Clock, answer, kill, linger time.Duration, t stopTarget) StopReport {
	start := clock.Now()
	var rep StopReport
	term := make(chan struct{})
	killed := make(chan struct{})
	final := make(chan struct{})
	tt := clock.AfterFunc(answer, func() { close(term) })
	kt := clock.AfterFunc(kill, func() { close(killed) })
	var ft rpc.Timer
	defer func() {
		tt.Stop()
		kt.Stop()
		if ft != nil {
			ft.Stop()
		}
	}()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	asked := make(chan struct{})
	go func() {
		defer close(asked)
		t.requestShutdown(ctx)
	}()
	defer func() { cancel(); <-asked }()
	gone := t.gone()
	for {
		select {
		case <-gone:
			rep.Took = clock.Now().Sub(start)
			return rep
		case <-term:
			term = nil
			rep.TermSent = true
			t.signal(syscall.SIGTERM)
		case <-killed:
			killed = nil
			rep.KillSent = true
			t.signal(syscall.SIGKILL)
			ft = clock.AfterFunc(linger, func() { close(final) })
		case <-final:
			rep.Took, rep.Leaked = clock.Now().Sub(start), true
			return rep
		}
	}
}

// incStop adapts an incarnation to stopTarget.
type incStop struct {
	inc    *incarnation
	answer time.Duration
	both   chan struct{}
}

func newIncStop(inc *incarnation, answer time.Duration, join func(func())) *incStop {
	s := &incStop{inc: inc, answer: answer, both: make(chan struct{})}
	join(func() {
		<-inc.peerDone
		if inc.runtimeReported() && inc.client != nil {
			inc.killClient() // the runtime is gone: let the shim go through go-plugin
		}
		if g := inc.shimGone(); g != nil {
			<-g
		}
		close(s.both)
	})
	return s
}

func (s *incStop) requestShutdown(ctx context.Context) {
	_, _ = s.inc.peer.Call(ctx, protocol.MethodHostShutdown, protocol.Empty{}, rpc.CallOpts{Timeout: s.answer})
}

func (s *incStop) signal(sig syscall.Signal) { s.inc.signalGroups(sig) }

func (s *incStop) gone() <-chan struct{} { return s.both }

// Stop shuts the tier down within the bounds and keeps it from starting again. It
// returns how the shutdown of a ready host went (zero when none was ready: a start in
// progress is abandoned, and a host already through its handshake is shut down the same
// bounded way by the start goroutine, which Stop joins).
func (t *TierRuntime) Stop() StopReport {
	t.mu.Lock()
	if t.state == StateStopped {
		t.mu.Unlock()
		return StopReport{}
	}
	prev := t.state
	inc := t.cur
	t.setStateLocked(StateStopping)
	if t.restart != nil {
		t.restart.Stop()
	}
	if prev == StateStarting && t.startStop != nil {
		t.startStop() // the start goroutine tears its incarnation down
	}
	t.mu.Unlock()

	var rep StopReport
	if inc != nil && (prev == StateReady || prev == StateUnresponsive) {
		rep = t.stopIncarnation(inc, "the tier was stopped")
	}
	t.wg.Wait()
	t.mu.Lock()
	t.cur = nil
	t.setStateLocked(StateStopped)
	t.mu.Unlock()
	return rep
}

// stopIncarnation runs the bounded shutdown of one incarnation and releases it.
func (t *TierRuntime) stopIncarnation(inc *incarnation, why string) StopReport {
	inc.planned.Store(true)
	s := newIncStop(inc, t.o.ShutdownAnswer, func(f func()) {
		t.wg.Add(1)
		go func() { defer t.wg.Done(); f() }()
	})
	rep := boundedStop(t.o.Clock, t.o.ShutdownAnswer, t.o.KillAfter, 2*time.Second, s)
	inc.release(context.Background())
	if rep.Leaked {
		t.o.Logger.Error("extension host processes outlived the shutdown bound", "generation", inc.gen)
	}
	if o := t.o.Owners; o != nil {
		o.HostExited(t.o.Host(), inc.gen, ExitInfo{Reason: errors.New(why), Planned: true})
	}
	return rep
}
