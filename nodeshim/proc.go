package nodeshim

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"sync"
	"syscall"
)

// DefaultMemoryLimit is the runtime's RLIMIT_DATA when the plan asks for none.
const DefaultMemoryLimit = 1 << 30

// proc is the spawned runtime. Its pipes belong to the shim: Wait never closes them, so the
// relay drains stdout completely after the runtime exits.
type proc struct {
	pid, pgid int
	limit     uint64
	stdin     *os.File // write end
	stdout    *os.File // read end
	stderr    *os.File // read end

	waited     chan struct{} // closed after the runtime was reaped
	stderrDone chan struct{} // closed when stderr reached EOF
	state      *os.ProcessState

	mu     sync.Mutex
	reason string // why the shim ended it, first reason wins
}

// spawn starts the runtime. The fork happens on a goroutine locked to its OS thread that
// stays alive until the runtime has been reaped, so the death signal (which Linux ties to
// the forking thread; see runtimeProcAttr) fires only when the shim itself dies.
func spawn(argv, env []string, dir string, limit uint64) (*proc, error) {
	if len(argv) == 0 {
		return nil, errors.New("launch plan has an empty argv")
	}
	lim, err := setDataLimit(limit)
	if err != nil {
		return nil, err
	}
	env = withJITReservation(env, lim)
	p := &proc{limit: lim, waited: make(chan struct{}), stderrDone: make(chan struct{})}
	var child [3]*os.File // the runtime's ends
	if p.stdin, child[0], err = pipe(true); err == nil {
		if p.stdout, child[1], err = pipe(false); err == nil {
			p.stderr, child[2], err = pipe(false)
		}
	}
	if err != nil {
		p.closeAll(child[:])
		return nil, fmt.Errorf("runtime pipes: %w", err)
	}
	growPipe(p.stdin)
	growPipe(p.stdout)
	cmd := &exec.Cmd{
		Path: argv[0], Args: argv, Env: env, Dir: dir,
		Stdin: child[0], Stdout: child[1], Stderr: child[2],
		SysProcAttr: runtimeProcAttr(),
	}
	started := make(chan error, 1)
	go func() {
		runtime.LockOSThread() // never unlocked: the thread ends with this goroutine
		if err := cmd.Start(); err != nil {
			started <- err
			return
		}
		started <- nil
		_ = cmd.Wait()
		p.state = cmd.ProcessState
		close(p.waited)
	}()
	err = <-started
	for _, f := range child {
		_ = f.Close()
	}
	if err != nil {
		p.closeAll(nil)
		return nil, fmt.Errorf("start runtime %s: %w", argv[0], err)
	}
	p.pid = cmd.Process.Pid
	p.pgid = p.pid // Setpgid with Pgid 0: the runtime leads its group
	return p, nil
}

// pipe returns (ours, theirs); forWriting means we write and the runtime reads.
func pipe(forWriting bool) (*os.File, *os.File, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, nil, err
	}
	if forWriting {
		return w, r, nil
	}
	return r, w, nil
}

func (p *proc) closeAll(extra []*os.File) {
	for _, f := range append([]*os.File{p.stdin, p.stdout, p.stderr}, extra...) {
		if f != nil {
			_ = f.Close()
		}
	}
}

// setDataLimit lowers the shim's RLIMIT_DATA (soft and hard) to limit, clamped to the
// inherited hard limit, so the runtime forked next inherits it. It returns the limit set.
func setDataLimit(limit uint64) (uint64, error) {
	if limit == 0 {
		limit = DefaultMemoryLimit
	}
	var cur syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_DATA, &cur); err != nil {
		return 0, fmt.Errorf("read RLIMIT_DATA: %w", err)
	}
	limit = min(limit, cur.Max)
	if err := syscall.Setrlimit(syscall.RLIMIT_DATA, &syscall.Rlimit{Cur: limit, Max: limit}); err != nil {
		return 0, fmt.Errorf("set RLIMIT_DATA to %d bytes: %w", limit, err)
	}
	return limit, nil
}

// kill sends sig to the runtime's group, recording reason if it is the first one.
func (p *proc) kill(sig syscall.Signal, reason string) {
	if reason != "" {
		p.mu.Lock()
		if p.reason == "" {
			p.reason = reason
		}
		p.mu.Unlock()
	}
	_ = syscall.Kill(-p.pgid, sig)
}

func (p *proc) killReason() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.reason
}

func (p *proc) running() bool {
	select {
	case <-p.waited:
		return false
	default:
		return true
	}
}

// status returns (code, signal) of a reaped runtime.
func (p *proc) status() (int, int) {
	ws, ok := p.state.Sys().(syscall.WaitStatus)
	if ok && ws.Signaled() {
		return -1, int(ws.Signal())
	}
	return p.state.ExitCode(), 0
}
