//go:build unix && !linux

package mcpclient

import "syscall"

// procAttr puts the server in a process group it leads. Outside Linux there is no death
// signal: the server ends on stdin's EOF when the core dies.
func procAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }

func lockThread() {}
