//go:build unix

package natives

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"
)

// runShell runs command under /bin/sh in dir, in a new process group, and kills the group
// when the command ends, when timeout passes or when ctx ends (then ctx's error is
// returned). Stdout and stderr go through two pipes the core holds the read ends of, so
// waiting for the shell never waits for a descendant that keeps a pipe open; both are
// read into one capture, which keeps them apart within one bound.
func runShell(ctx context.Context, dir, command string, timeout time.Duration) (shellOutcome, error) {
	var rs, ws [2]*os.File
	for i := range rs {
		r, w, err := os.Pipe()
		if err != nil {
			closeAll(rs[:], ws[:])
			return shellOutcome{}, fmt.Errorf("shell: %w", err)
		}
		rs[i], ws[i] = r, w
	}
	defer closeAll(rs[:], nil)
	cmd := exec.Command("/bin/sh", "-c", command)
	cmd.Dir = dir
	cmd.Stdout, cmd.Stderr = ws[0], ws[1]
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	err := cmd.Start()
	closeAll(nil, ws[:])
	if err != nil {
		return shellOutcome{}, fmt.Errorf("shell: start /bin/sh: %w", err)
	}
	capt := &capture{max: MaxShellOutput}
	var copies sync.WaitGroup
	for i, r := range rs {
		copies.Go(func() { _, _ = io.Copy(stream{c: capt, err: i == 1}, r) })
	}
	copied := make(chan struct{})
	go func() { defer close(copied); copies.Wait() }()

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
	drain(rs[:], copied)
	if cancelled {
		return shellOutcome{}, ctx.Err()
	}
	capt.mu.Lock()
	out.stdout, out.stderr, out.dropped = capt.stdout, capt.stderr, capt.dropped
	capt.mu.Unlock()
	out.exitCode = exitCode(waitErr)
	return out, nil
}

// killGroup kills every process of the group pgid; a group already gone is not an error.
func killGroup(pgid int) {
	_ = syscall.Kill(-pgid, syscall.SIGKILL)
}

// drain waits for the copies of the output to end, at most shellDrain.
func drain(rs []*os.File, copied <-chan struct{}) {
	deadline := time.Now().Add(shellDrain)
	for _, r := range rs {
		_ = r.SetReadDeadline(deadline)
	}
	<-copied
}

// closeAll closes the files of both lists that are open.
func closeAll(a, b []*os.File) {
	for _, f := range append(append([]*os.File(nil), a...), b...) {
		if f != nil {
			_ = f.Close()
		}
	}
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
