//go:build !linux

package nodeshim

import (
	"os"
	"syscall"
	"time"
)

// runtimeProcAttr puts the runtime in a process group it leads. There is no death signal
// outside Linux: the lifeline (fd 3) is what ends the tree when the core dies, and a shim
// killed outright leaves the runtime to notice its channel input (fd 3) closing.
func runtimeProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}

// growPipe does nothing outside Linux, which alone can resize a pipe (F_SETPIPE_SZ); the
// pipe keeps the system's size and a large payload crosses in more writes.
func growPipe(*os.File) {}

// rss returns 0 ("unknown"): outside Linux there is no /proc to read it from without cgo.
func rss(int) uint64 { return 0 }

func helperPath() (string, error) { return os.Executable() }

// prlimitLauncher is "": outside Linux there is no prlimit, and the exec helper sets the limit.
func prlimitLauncher(bool) string { return "" }

// becomeSubreaper does nothing outside Linux, which alone has PR_SET_CHILD_SUBREAPER: a
// process a plugin starts outside the runtime's group survives the host there.
func becomeSubreaper() error { return nil }

// sweepBound bounds the sweep, which does nothing here.
const sweepBound = time.Second

// sweepDescendants does nothing outside Linux: the runtime's group kill is all there is.
func sweepDescendants(int) {}

// firstChild is unknown outside Linux, where the sandbox does not run.
func firstChild(int, bool) int { return 0 }

// keeperChildAttr keeps an MCP server in the keeper's group; there is no death signal
// outside Linux, and the lifeline is what ends the server.
func keeperChildAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{} }
