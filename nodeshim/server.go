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
	// drainGrace bounds waiting for stdout EOF after the runtime's group was killed (a
	// descendant that left the group could hold the pipe).
	drainGrace = time.Second
)

// server implements shimv1.ShimServer for one runtime incarnation.
type server struct {
	shimv1.UnimplementedShimServer
	log  hclog.Logger
	tier string

	mu      sync.Mutex
	p       *proc
	channel bool

	started  chan struct{} // closed once p is set
	reported chan struct{} // closed after the Exit event was sent (or the channel ended)
	repOnce  sync.Once
	stderr   *ring
	wg       sync.WaitGroup // stderr logger and inbound relay goroutines
}

func newServer(log hclog.Logger, tier string) *server {
	return &server{
		log: log, tier: tier,
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

// Start spawns the runtime from the plan. It may succeed once.
func (s *server) Start(_ context.Context, req *shimv1.StartRequest) (*shimv1.StartResponse, error) {
	plan := req.GetPlan()
	if plan == nil {
		return nil, status.Error(codes.InvalidArgument, "start needs a launch plan")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.p != nil {
		return nil, status.Error(codes.FailedPrecondition, "the runtime was already started")
	}
	p, err := spawn(plan.Argv, runtimeEnv(plan.Env, os.Getpid()), plan.Dir, plan.MemoryLimitBytes)
	if err != nil {
		return nil, status.Error(codes.FailedPrecondition, err.Error())
	}
	s.p = p
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		defer close(p.stderrDone)
		logStderr(s.log.Named("runtime"), p.stderr, s.stderr)
	}()
	close(s.started)
	s.log.Debug("runtime started", "pid", p.pid, "pgid", p.pgid, "rlimit_data", p.limit, "argv0", plan.Argv[0])
	return &shimv1.StartResponse{Pid: int32(p.pid), Pgid: int32(p.pgid), MemoryLimitBytes: p.limit}, nil
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
	p := s.runtime()
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

// killNow SIGKILLs the runtime's group (lifeline loss, exit paths).
func (s *server) killNow(reason string) {
	if p := s.runtime(); p != nil {
		p.kill(syscall.SIGKILL, reason)
	}
}
