package nodeshim

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
)

// DefaultMemoryLimit is the runtime's RLIMIT_DATA when the plan asks for none.
const DefaultMemoryLimit = 1 << 30

// proc is the spawned runtime. Its pipes belong to the shim: Wait never closes them, so the
// relay drains the channel completely after the runtime exits.
type proc struct {
	pid, pgid int // the runtime's pid and group; sandboxed, the group is bubblewrap's, which the runtime shares
	limit     uint64
	heapMiB   int      // V8's --max-old-space-size from the argv, 0 when none (memoryReason)
	sandbox   bool     // bubblewrap runs the runtime; its exit status is bubblewrap's
	chanW     *os.File // write end of the runtime's fd 3 (the channel in)
	chanR     *os.File // read end of the runtime's fd 4 (the channel out)
	output    *os.File // read end of the runtime's fd 1 and fd 2 (its log lines)

	waited     chan struct{} // closed after the runtime was reaped and its descendants swept
	stderrDone chan struct{} // closed when the output pipe reached EOF
	state      *os.ProcessState

	mu     sync.Mutex
	reason string // why the shim ended it, first reason wins

	peakData atomic.Uint64 // the largest data segment sampled (watchData)
	dataDone chan struct{} // closed when watchData returns; nil when it never started
}

// The runtime's descriptors (ARCHITECTURE.md, “Processes”): fd 0 is /dev/null, fd 1 and
// fd 2 share one capture pipe whose lines the shim logs, and the channel is fd 3 (frames
// in) and fd 4 (frames out), so nothing a plugin prints can reach the channel.
const (
	runtimeChanIn  = 3
	runtimeChanOut = 4
	// runtimeSnapshotFD is the runtime's startup snapshot, read as --snapshot-blob
	// /proc/self/fd/7 (core/runtime's SnapshotFD; ARCHITECTURE.md, “Host snapshot”).
	runtimeSnapshotFD = 7
)

// snapshotArg is how a launch plan names the runtime's snapshot descriptor.
var snapshotArg = "/proc/self/fd/" + strconv.Itoa(runtimeSnapshotFD)

// withSnapshot puts snapshot at runtimeSnapshotFD in files (the exec helper's ExtraFiles,
// which start at fd 3) when argv names it (the core verified it then); the slots in between
// stay closed. Unchanged otherwise: a runtime never holds a snapshot it was not told to read.
func withSnapshot(files []*os.File, snapshot *os.File, argv []string) []*os.File {
	if snapshot == nil || !slices.Contains(argv, snapshotArg) {
		return files
	}
	out := make([]*os.File, runtimeSnapshotFD-3+1)
	copy(out, files)
	out[runtimeSnapshotFD-3] = snapshot
	return out
}

// spawn starts the runtime through prlimit or the exec helper (launcher), which sets
// RLIMIT_DATA on itself and then becomes the runtime, so the limit binds the runtime from its
// first instruction and never the shim. The fork happens on a goroutine locked to its OS thread that stays alive
// until the runtime has been reaped, so the death signal (which Linux ties to the forking
// thread; see runtimeProcAttr) fires only when the shim itself dies. A sandboxed plan's
// seccomp filter is handed to bubblewrap on sandboxSeccompFD, and a startup snapshot the
// core passed to the runtime on runtimeSnapshotFD.
func spawn(argv, env []string, dir string, limit uint64, filter []byte, snapshot *os.File) (*proc, error) {
	if len(argv) == 0 {
		return nil, errors.New("launch plan has an empty argv")
	}
	lim, err := dataLimit(limit)
	if err != nil {
		return nil, err
	}
	sandbox := sandboxed(env)
	if err := checkBinaries(argv, sandbox); err != nil {
		return nil, err
	}
	exe, err := helperPath()
	if err != nil {
		return nil, fmt.Errorf("exec helper: %w", err)
	}
	env = withJITReservation(env, lim)
	p := &proc{limit: lim, heapMiB: heapCapMiB(argv), sandbox: sandbox, waited: make(chan struct{}), stderrDone: make(chan struct{})}
	var child [5]*os.File // the runtime's ends: fd 3, fd 4, fd 1 and 2, bubblewrap's fd 5 and fd 6
	var info *os.File     // our end of bubblewrap's info pipe
	if p.chanW, child[0], err = pipe(true); err == nil {
		if p.chanR, child[1], err = pipe(false); err == nil {
			p.output, child[2], err = pipe(false)
		}
	}
	if err == nil && sandbox {
		info, child[3], err = pipe(false)
	}
	if err == nil && sandbox && len(filter) > 0 {
		child[4], err = filterPipe(filter)
	}
	if err != nil {
		p.closeAll(child[:])
		return nil, fmt.Errorf("runtime pipes: %w", err)
	}
	growPipe(p.chanW)
	growPipe(p.chanR)
	path, args, cmdEnv := launcher(exe, prlimitLauncher(sandbox), lim, argv, env)
	cmd := &exec.Cmd{
		Path: path, Args: args, Env: cmdEnv, Dir: dir,
		Stdout: child[2], Stderr: child[2], // Stdin nil: /dev/null
		ExtraFiles:  withSnapshot(helperFiles(child[0], child[1], child[3], child[4]), snapshot, argv),
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
		sweepDescendants(cmd.Process.Pid)
		close(p.waited)
	}()
	err = <-started
	for _, f := range child {
		if f != nil {
			_ = f.Close()
		}
	}
	if err != nil {
		p.closeAll([]*os.File{info})
		return nil, fmt.Errorf("start runtime %s: %w", argv[0], err)
	}
	p.pid = cmd.Process.Pid
	p.pgid = p.pid // Setpgid with Pgid 0: the runtime leads its group
	if sandbox {
		if err := p.findSandboxed(info); err != nil {
			return nil, err
		}
	}
	p.dataDone = make(chan struct{})
	go p.watchData() // ends when the runtime is reaped; exitReport joins it
	return p, nil
}

// checkBinaries fails Start, as a failed fork would, when the binary (and, in the sandbox,
// the runtime inside it) is missing, instead of surfacing as the exec helper's exit.
func checkBinaries(argv []string, sandbox bool) error {
	bins := []string{argv[0]}
	if sandbox {
		inner, err := runtimeArgv(argv)
		if err != nil {
			return err
		}
		bins = append(bins, inner[0])
	}
	for _, b := range bins {
		if _, err := os.Stat(b); err != nil {
			return fmt.Errorf("start runtime %s: %w", b, err)
		}
	}
	return nil
}

// findSandboxed replaces bubblewrap's pid with the runtime's real pid, so Stats, signals and
// the reports name the runtime; the group stays bubblewrap's, which bubblewrap's init and the
// runtime share (the profile starts no new session). On failure it kills the sandbox and
// returns what bubblewrap printed.
func (p *proc) findSandboxed(info *os.File) error {
	initPID, err := readSandboxInit(info)
	_ = info.Close()
	var pid int
	if err == nil {
		pid, err = sandboxRuntime(initPID, p.waited)
	}
	if err == nil {
		p.pid = pid
		return nil
	}
	_ = syscall.Kill(-p.pgid, syscall.SIGKILL)
	<-p.waited
	out, _ := io.ReadAll(io.LimitReader(p.output, 2<<10))
	p.closeAll(nil)
	if line := strings.TrimSpace(string(out)); line != "" {
		return fmt.Errorf("start the sandbox: %w: %s", err, line)
	}
	return fmt.Errorf("start the sandbox: %w", err)
}

// filterPipe returns the read end of a pipe that holds filter and then EOF, as bubblewrap's
// --seccomp reads it. A filter is at most 32 KiB (4096 instructions), within a pipe's
// buffer, so the write does not wait for a reader.
func filterPipe(filter []byte) (*os.File, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	_, err = w.Write(filter)
	if cerr := w.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		_ = r.Close()
		return nil, fmt.Errorf("hand bubblewrap the seccomp filter: %w", err)
	}
	return r, nil
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
	for _, f := range append([]*os.File{p.chanW, p.chanR, p.output}, extra...) {
		if f != nil {
			_ = f.Close()
		}
	}
}

// dataLimit returns the runtime's RLIMIT_DATA: limit (DefaultMemoryLimit when 0) clamped to
// the hard limit the shim inherited, which the exec helper cannot raise.
func dataLimit(limit uint64) (uint64, error) {
	if limit == 0 {
		limit = DefaultMemoryLimit
	}
	var cur syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_DATA, &cur); err != nil {
		return 0, fmt.Errorf("read RLIMIT_DATA: %w", err)
	}
	return min(limit, cur.Max), nil
}

// kill sends sig to the runtime's group, recording reason if it is the first one.
// Sandboxed, any signal but SIGKILL goes to the runtime alone: bubblewrap, in the same group,
// would die of it at once and take the namespace down (--die-with-parent) before the runtime
// could shut down; SIGKILL ends the whole group, and with bubblewrap everything inside.
func (p *proc) kill(sig syscall.Signal, reason string) {
	if reason != "" {
		p.mu.Lock()
		if p.reason == "" {
			p.reason = reason
		}
		p.mu.Unlock()
	}
	if p.sandbox && sig != syscall.SIGKILL {
		_ = syscall.Kill(p.pid, sig)
		return
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
	code, sig := p.state.ExitCode(), 0
	if ws, ok := p.state.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		code, sig = -1, int(ws.Signal())
	}
	if p.sandbox {
		return sandboxStatus(code, sig)
	}
	return code, sig
}
