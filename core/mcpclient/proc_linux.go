package mcpclient

import (
	"runtime"
	"syscall"
)

// procAttr puts the server in a process group it leads, with a SIGKILL death signal.
func procAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

// lockThread keeps the forking goroutine on its thread, which then ends with the goroutine
// (after the reap), so the death signal fires only when the core itself dies.
func lockThread() { runtime.LockOSThread() }
