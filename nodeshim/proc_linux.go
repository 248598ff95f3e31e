package nodeshim

import (
	"fmt"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// runtimeProcAttr puts the runtime in a process group it leads and gives it a SIGKILL death
// signal, which Linux sends when the thread that forked it exits (spawn keeps that thread
// alive until the runtime is reaped, so the signal means the shim died).
func runtimeProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

// pipeSize is what the shim asks for its stdin/stdout pipes with the runtime: 1 MiB (the
// default maximum for unprivileged processes) so a large payload crosses with few wakeups.
// Failure is harmless: the pipe keeps its 64 KiB.
const pipeSize = 1 << 20

func growPipe(f *os.File) {
	_, _ = unix.FcntlInt(f.Fd(), unix.F_SETPIPE_SZ, pipeSize)
}

// rss returns the resident set size of pid in bytes (0 when unknown).
func rss(pid int) uint64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/statm", pid))
	if err != nil {
		return 0
	}
	var size, res uint64
	if _, err := fmt.Sscan(string(b), &size, &res); err != nil {
		return 0
	}
	return res * uint64(os.Getpagesize())
}
