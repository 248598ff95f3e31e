package nodeshim

import (
	"context"
	"os"
	"sync"
	"syscall"
	"time"

	"github.com/hashicorp/go-hclog"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/cwx-dev/cwx/shared/proto/shimv1"
)

const (
	stderrTailSize = 8 << 10
	// termGrace is how long SIGTERM of the shim leaves the runtime before SIGKILL; shorter
	// than the core's own SIGTERM -> SIGKILL second.
	termGrace = 800 * time.Millisecond
	// drainGrace bounds waiting for EOF on the runtime's frame output (fd 4) after the
	// runtime was reaped (a descendant that left the group could hold the pipe).
	drainGrace = time.Second
)

// server implements shimv1.ShimServer for one runtime incarnation.
type server struct {
	shimv1.UnimplementedShimServer
	log  hclog.Logger
	tier string
	sd   *shutdown // the shim's exit; the server's goroutines run under it

	mu sync.Mutex
	// +checklocks:mu
	p *proc // set once, by the Start that spawned it
	// +checklocks:mu
	spawning chan struct{} // non-nil while a Start spawns, closed when the spawn ends
	// +checklocks:mu
	channel bool // a Channel was opened

	started  chan struct{} // closed once p is set
	reported chan struct{} // closed after the Exit event was sent (or the channel ended)
	repOnce  sync.Once
	stderr   *ring
	snapshot *os.File // the startup snapshot the core passed, the runtime's fd 7; nil without one
}

func newServer(log hclog.Logger, tier string, sd *shutdown) *server {
	return &server{
		log: log, tier: tier, sd: sd,
		started:  make(chan struct{}),
		reported: make(chan struct{}),
		stderr:   newRing(stderrTailSize),
	}
}

func (s *server) runtime() *proc {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.p
}

// settledRuntime is runtime, after waiting for a spawn under way to end, so that a
// shutdown never misses a runtime being born.
func (s *server) settledRuntime() *proc {
	s.mu.Lock()
	p, spawning := s.p, s.spawning
	s.mu.Unlock()
	if spawning == nil {
		return p
	}
	<-spawning
	return s.runtime()
}

// Start spawns the runtime from the plan. It may succeed once. The lock is not held across
// the fork and exec: Start reserves the spawn under it, spawns, and publishes the runtime
// under it again.
func (s *server) Start(_ context.Context, req *shimv1.StartRequest) (*shimv1.StartResponse, error) {
	plan := req.GetPlan()
	if plan == nil {
		return nil, status.Error(codes.InvalidArgument, "start needs a launch plan")
	}
	spawning, err := s.reserveStart()
	if err != nil {
		return nil, err
	}
	p, err := spawn(plan.Argv, runtimeEnv(plan.Env, os.Getpid()), plan.Dir, plan.MemoryLimitBytes, plan.SeccompFilter, s.snapshot)
	if err == nil {
		s.sd.Go(func() {
			defer close(p.stderrDone)
			logStderr(s.log.Named("runtime"), p.output, s.stderr)
		})
	}
	s.publishStart(p, spawning)
	if err != nil {
		return nil, status.Error(codes.FailedPrecondition, err.Error())
	}
	s.log.Debug("runtime started", "pid", p.pid, "pgid", p.pgid, "rlimit_data", p.limit, "argv0", plan.Argv[0])
	return &shimv1.StartResponse{Pid: int32(p.pid), Pgid: int32(p.pgid), MemoryLimitBytes: p.limit}, nil
}

// reserveStart claims the one spawn, unless a runtime exists, a spawn is under way or the
// shim is shutting down. The caller must publishStart with the returned channel.
func (s *server) reserveStart() (chan struct{}, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.p != nil:
		return nil, status.Error(codes.FailedPrecondition, "the runtime was already started")
	case s.spawning != nil:
		return nil, status.Error(codes.FailedPrecondition, "the runtime is being started")
	case s.sd.triggered():
		return nil, status.Error(codes.Unavailable, "the shim is shutting down")
	}
	s.spawning = make(chan struct{})
	return s.spawning, nil
}

// publishStart ends the spawn reserveStart claimed: p (nil when the spawn failed, which
// leaves the next Start free to try) becomes the runtime.
func (s *server) publishStart(p *proc, spawning chan struct{}) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.spawning = nil
	close(spawning)
	if p != nil {
		s.p = p
		close(s.started)
	}
}

// Signal forwards a signal to the runtime's group.
func (s *server) Signal(_ context.Context, req *shimv1.SignalRequest) (*shimv1.SignalResponse, error) {
	p := s.runtime()
	if p == nil {
		return nil, status.Error(codes.FailedPrecondition, "the runtime is not started")
	}
	sig := syscall.Signal(req.Signal)
	if sig <= 0 || sig > 64 {
		return nil, status.Errorf(codes.InvalidArgument, "bad signal %d", req.Signal)
	}
	p.kill(sig, "")
	return &shimv1.SignalResponse{}, nil
}

// Stats reports pids, groups, RSS and the stderr tail.
func (s *server) Stats(context.Context, *shimv1.StatsRequest) (*shimv1.StatsResponse, error) {
	r := &shimv1.StatsResponse{
		ShimPid: int32(os.Getpid()), ShimPgid: int32(syscall.Getpgrp()),
		ShimRssBytes: rss(os.Getpid()), StderrTail: s.stderr.Bytes(),
	}
	if p := s.runtime(); p != nil {
		r.RuntimePid, r.RuntimePgid = int32(p.pid), int32(p.pgid)
		r.RuntimeRunning = p.running()
		if r.RuntimeRunning {
			r.RuntimeRssBytes = rss(p.pid)
		}
	}
	return r, nil
}

// terminate ends the runtime's group: SIGTERM, then SIGKILL after grace. It returns once the
// runtime was reaped or the grace and a last kill have passed.
func (s *server) terminate(reason string, grace time.Duration) {
	p := s.settledRuntime()
	if p == nil {
		return
	}
	p.kill(syscall.SIGTERM, reason)
	t := time.NewTimer(grace)
	defer t.Stop()
	select {
	case <-p.waited:
	case <-t.C:
	}
	p.kill(syscall.SIGKILL, reason) // also reaches descendants left in the group
	select {
	case <-p.waited:
	case <-time.After(grace):
	}
}

// awaitSwept waits, up to bound, until a runtime that was started has been reaped and its
// descendants swept, so that the shim never exits before the sweep (a trigger such as the
// lifeline only sends the kill).
func (s *server) awaitSwept(bound time.Duration) {
	p := s.settledRuntime()
	if p == nil {
		return
	}
	t := time.NewTimer(bound)
	defer t.Stop()
	select {
	case <-p.waited:
	case <-t.C:
	}
}

// killNow SIGKILLs the runtime's group (lifeline loss, exit paths).
func (s *server) killNow(reason string) {
	if p := s.settledRuntime(); p != nil {
		p.kill(syscall.SIGKILL, reason)
	}
}
