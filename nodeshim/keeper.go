package nodeshim

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	goruntime "runtime"
	"strings"
	"syscall"

	"github.com/cwx-dev/cwx/shared"
)

// RunKeeper is the keeper of one MCP server (args are those after shared.KeeperMode:
// `-- <argv>`). The core starts it as the leader of the server's process group, with the
// server's stdin, stdout and stderr, and the read end of a lifeline as fd 3. The keeper is a
// child subreaper and runs argv as its child in its own group, so every process the server
// starts stays below it, even one that leaves the group. When the lifeline reaches EOF (the
// core closed it, or the core died) or a SIGTERM comes, the keeper kills every descendant
// and exits; when the server exits first, the keeper kills what it left and exits with the
// server's status (128 + the signal for a signalled server). It returns 126 when argv could
// not be started, the reason on fd 2, which the core logs as the server's.
func RunKeeper(args []string) int {
	if len(args) < 2 || args[0] != "--" {
		fmt.Fprintf(os.Stderr, "cwx keeper: usage: %s %s -- <argv>\n", shared.Subcommand, shared.KeeperMode)
		return 2
	}
	// Once the core is gone, fd 2 is a broken pipe; the keeper must live on to sweep.
	signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
	ended := make(chan os.Signal, 1)
	signal.Notify(ended, syscall.SIGTERM, syscall.SIGHUP)
	if err := becomeSubreaper(); err != nil {
		fmt.Fprintf(os.Stderr, "cwx keeper: not a child subreaper, a process that leaves the server's group may outlive it: %v\n", err)
	}
	// The child's death signal fires when the thread that forked it ends: this one, which
	// stays locked until the keeper exits.
	goruntime.LockOSThread()
	cmd := exec.Command(args[1], args[2:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	cmd.Env = keeperEnv(os.Environ())
	cmd.SysProcAttr = keeperChildAttr()
	if err := cmd.Start(); err != nil {
		fmt.Fprintf(os.Stderr, "cwx keeper: start %s: %v\n", args[1], err)
		return 126
	}
	// The server holds the stream now; the keeper keeps only fd 2 and the lifeline.
	_ = os.Stdin.Close()
	_ = os.Stdout.Close()
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }() // owner: RunKeeper; joined below, on every path
	lifeline := make(chan struct{})
	if os.Getenv(shared.LifelineEnv) != "" {
		f := os.NewFile(shared.LifelineFD, "lifeline")
		go func() { // owner: the process; ends at EOF, or with it
			_, _ = io.Copy(io.Discard, f)
			close(lifeline)
		}()
	}
	select {
	case err := <-exited:
		sweepDescendants(cmd.Process.Pid)
		return exitStatus(err)
	case <-lifeline:
	case <-ended:
	}
	sweepDescendants(cmd.Process.Pid)
	_ = cmd.Process.Kill() // the sweep reached it; a server forked out of /proc's sight is not left
	return exitStatus(<-exited)
}

// keeperEnv is the keeper's environment less what only the keeper may see: go-plugin's
// cookie (which makes the cwx binary the shim) and the lifeline's announcement.
func keeperEnv(env []string) []string {
	out := make([]string, 0, len(env))
	for _, kv := range withoutCookie(env) {
		if !strings.HasPrefix(kv, shared.LifelineEnv+"=") {
			out = append(out, kv)
		}
	}
	return out
}

// exitStatus is the keeper's exit code for its server's end: the server's own code, 128 +
// the signal that killed it, 0 for none.
func exitStatus(err error) int {
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		if err != nil {
			return 1
		}
		return 0
	}
	if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return ee.ExitCode()
}
