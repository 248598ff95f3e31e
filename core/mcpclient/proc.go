package mcpclient

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/cwx-dev/cwx/core/config"
	"github.com/cwx-dev/cwx/core/inert"
	"github.com/cwx-dev/cwx/shared"
)

// AllowedEnv is the allow-list of the core's environment a server sees, the one script
// tools get (README.md, “Script tools”); the server's own env table is added to it.
var AllowedEnv = []string{"PATH", "HOME", "USER", "LOGNAME", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "TMPDIR"}

// defaultPath is PATH when the core's environment has none.
const defaultPath = "/usr/local/bin:/usr/bin:/bin"

// Bounds of a server's process.
const (
	// maxStderrLine cuts one stderr line before it is logged.
	maxStderrLine = 4096
	// stderrTail is how many of the last stderr lines Status keeps for a crash's reason.
	stderrTail = 8
	// killGrace is how long Close waits after closing stdin (the spec's orderly end) before
	// the group is killed.
	killGrace = 2 * time.Second
	// keeperSweep is how long kill waits for the keeper's sweep (its own bound is 1 s)
	// before it kills the group.
	keeperSweep = 2 * time.Second
)

// Environ is the environment of server s: the allowed part of environ, a PATH, then s.Env
// (later entries win).
func Environ(environ []string, s config.MCPServer) []string {
	kept := map[string]string{}
	for _, kv := range environ {
		k, v, ok := strings.Cut(kv, "=")
		if ok && slices.Contains(AllowedEnv, k) {
			kept[k] = v
		}
	}
	if kept["PATH"] == "" {
		kept["PATH"] = defaultPath
	}
	for k, v := range s.Env {
		kept[k] = v
	}
	out := make([]string, 0, len(kept))
	for k, v := range kept {
		out = append(out, k+"="+v)
	}
	slices.Sort(out)
	return out
}

// proc is one running server process: the leader of its own process group, with stdin
// and stdout the MCP stream and stderr logged as the server's.
type proc struct {
	pid    int
	stdin  io.WriteCloser
	stdout io.ReadCloser
	done   chan struct{} // closed once the process was reaped and stderr drained
	err    error         // the exit, set before done closes

	// lifeline is the write end of the keeper's lifeline, nil without a keeper; closing it
	// makes the keeper kill the server's whole tree.
	lifeline  *os.File
	closeOnce sync.Once

	mu   sync.Mutex
	tail []string // +checklocks:mu
}

// spawn starts s in dir, through keeper when it is not "" (the cwx binary, run as
// `cwx nodeshim keep`): the keeper leads the server's group, is a child subreaper, and
// kills the server and everything it started when the lifeline this process holds closes,
// by kill or by the core's death. Without a keeper the server leads its own group and, on
// Linux, gets a SIGKILL death signal, fired when the core dies (the thread that forked it
// lives until it is reaped), which reaches only the server itself. Either way a
// well-behaved server ends on stdin's EOF.
func spawn(s config.MCPServer, dir, keeper string, log hclog.Logger) (*proc, error) {
	path, err := exec.LookPath(s.Command)
	if err != nil {
		return nil, fmt.Errorf("mcp server %q: command %q: %w; install it or fix [mcp.servers.%s] command", s.Name, s.Command, err, s.Name)
	}
	argv, env, attr := append([]string{path}, s.Args...), Environ(os.Environ(), s), procAttr()
	var lifeline, keeperEnd *os.File
	if keeper != "" {
		if keeperEnd, lifeline, err = os.Pipe(); err != nil {
			return nil, err
		}
		defer func() { _ = keeperEnd.Close() }() // the keeper holds its own copy once started
		argv = append([]string{keeper, shared.Subcommand, shared.KeeperMode, "--"}, argv...)
		env = append(env, shared.CookieKey+"="+shared.CookieValue, fmt.Sprintf("%s=%d", shared.LifelineEnv, shared.LifelineFD))
		attr = &syscall.SysProcAttr{Setpgid: true} // no death signal: the keeper must outlive the core to sweep
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir, cmd.Env, cmd.SysProcAttr = dir, env, attr
	if keeperEnd != nil {
		cmd.ExtraFiles = []*os.File{keeperEnd} // fd 3, shared.LifelineFD
	}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	stderr, w, err := os.Pipe() // not StderrPipe: Wait must not wait for a descendant holding it
	if err != nil {
		return nil, err
	}
	cmd.Stderr = w
	p := &proc{stdin: stdin, stdout: stdout, lifeline: lifeline, done: make(chan struct{})}
	started := make(chan error, 1)
	go func() { // owner: the proc; joined by done
		lockThread() // the death signal fires when this thread ends: it ends after the reap
		err := cmd.Start()
		_ = w.Close()
		if err != nil {
			_ = stderr.Close()
			p.closeLifeline()
			started <- err
			close(p.done)
			return
		}
		p.pid = cmd.Process.Pid
		started <- nil
		logged := make(chan struct{})
		go func() { // owner: this goroutine, joined below
			defer close(logged)
			p.logStderr(stderr, log.With("plugin", "mcp:"+s.Name))
		}()
		p.err = cmd.Wait()
		p.closeLifeline()
		killGroup(p.pid) // whatever the leader left in its group
		_ = stderr.SetReadDeadline(time.Now().Add(killGrace))
		<-logged
		_ = stderr.Close()
		close(p.done)
	}()
	if err := <-started; err != nil {
		return nil, fmt.Errorf("mcp server %q: start %s: %w", s.Name, path, err)
	}
	return p, nil
}

// logStderr logs each stderr line, stripped and cut, as the server's ("host: " lines with a
// plugin name land in `cwx logs`), keeping the last few for a crash's reason. It returns at
// EOF: when the process and every holder of the pipe are gone.
func (p *proc) logStderr(r io.Reader, log hclog.Logger) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	for sc.Scan() {
		line := inert.Strip(sc.Text())
		if len(line) > maxStderrLine {
			line = line[:maxStderrLine] + "…"
		}
		log.Info("host: " + line)
		p.mu.Lock()
		p.tail = append(p.tail, line)
		if len(p.tail) > stderrTail {
			p.tail = p.tail[1:]
		}
		p.mu.Unlock()
	}
	if err := sc.Err(); err != nil && !errors.Is(err, os.ErrClosed) {
		// a line over the buffer: the rest is dropped; the process keeps running
		_, _ = io.Copy(io.Discard, r)
	}
}

// stderrTail returns the last lines the server wrote to stderr, joined.
func (p *proc) stderrTail() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return strings.Join(p.tail, " | ")
}

// exited reports whether the process is gone.
func (p *proc) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// stop ends the server: stdin closed (the spec's orderly end), then after killGrace the
// whole group killed. It returns once the process was reaped.
func (p *proc) stop() {
	_ = p.stdin.Close()
	select {
	case <-p.done:
		return
	case <-time.After(killGrace):
	}
	p.kill()
}

// kill ends the server's tree at once and waits for the reap: through the keeper when
// there is one (it kills every descendant, also those that left the group, within
// keeperSweep), then the group.
func (p *proc) kill() {
	if p == nil { // a remote server's generation has no process
		return
	}
	if p.lifeline != nil {
		p.closeLifeline()
		select {
		case <-p.done:
			return
		case <-time.After(keeperSweep):
		}
	}
	killGroup(p.pid)
	<-p.done
}

// closeLifeline closes the keeper's lifeline, once.
func (p *proc) closeLifeline() {
	if p.lifeline != nil {
		p.closeOnce.Do(func() { _ = p.lifeline.Close() })
	}
}

// killGroup kills every process of the group pgid; a group already gone is not an error.
func killGroup(pgid int) {
	if pgid > 0 {
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
	}
}
