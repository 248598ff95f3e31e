//go:build unix

package natives

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"syscall"
	"time"
)

// runShell runs command under /bin/sh in dir, in a new process group, and kills the group
// when the command ends, when timeout passes or when ctx ends (then ctx's error is
// returned). Output goes through a pipe the core holds the read end of, so waiting for the
// shell never waits for a descendant that keeps the pipe open.
func runShell(ctx context.Context, dir, command string, timeout time.Duration) (shellOutcome, error) {
	r, pw, err := os.Pipe()
	if err != nil {
		return shellOutcome{}, fmt.Errorf("shell: %w", err)
	}
	defer r.Close()
	cmd := exec.Command("/bin/sh", "-c", command)
	cmd.Dir = dir
	cmd.Stdout, cmd.Stderr = pw, pw
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	err = cmd.Start()
	pw.Close()
	if err != nil {
		return shellOutcome{}, fmt.Errorf("shell: start /bin/sh: %w", err)
	}
	capw := &capWriter{max: MaxShellOutput}
	copied := make(chan struct{})
	go func() { defer close(copied); _, _ = io.Copy(capw, r) }()

	pgid := cmd.Process.Pid
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	var out shellOutcome
	var waitErr error
	done, cancelled := false, false
	select {
	case waitErr = <-exited:
		done = true
	case <-timer.C:
		out.timedOut = true
	case <-ctx.Done():
		cancelled = true
	}
	killGroup(pgid)
	if !done {
		waitErr = <-exited
	}
	drain(r, copied)
	if cancelled {
		return shellOutcome{}, ctx.Err()
	}
	out.output, out.dropped = capw.buf, capw.dropped
	out.exitCode = exitCode(waitErr)
	return out, nil
}

// killGroup kills every process of the group pgid; a group already gone is not an error.
func killGroup(pgid int) {
	_ = syscall.Kill(-pgid, syscall.SIGKILL)
}

// drain waits for the copy of the output to end, at most shellDrain.
func drain(r *os.File, copied <-chan struct{}) {
	_ = r.SetReadDeadline(time.Now().Add(shellDrain))
	<-copied
}

func exitCode(err error) int {
	if err == nil {
		return 0
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		if st, ok := ee.Sys().(syscall.WaitStatus); ok && st.Signaled() {
			return -1
		}
		return ee.ExitCode()
	}
	return -1
}
