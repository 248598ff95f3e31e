package nodeshim

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// runtimeProcAttr puts the runtime in a process group it leads and gives it a SIGKILL death
// signal, which Linux sends when the thread that forked it exits (spawn keeps that thread
// alive until the runtime is reaped, so the signal means the shim died).
func runtimeProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

// pipeSize is what the shim asks for the channel's two pipes with the runtime: 1 MiB (the
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

// prlimitPath is util-linux's prlimit, from the read-only system tree where it is installed
// (a variable for the tests).
var prlimitPath = "/usr/bin/prlimit"

// prlimitLauncher returns prlimitPath when spawn may start the runtime through it (launcher):
// a regular executable file, and, for a sandboxed plan, a shim without a controlling
// terminal (the core starts it in a session of its own, which has none), since prlimit would
// not give one up as the exec helper does. "" means the exec helper.
func prlimitLauncher(sandbox bool) string {
	fi, err := os.Stat(prlimitPath)
	if err != nil || !fi.Mode().IsRegular() || fi.Mode().Perm()&0o111 == 0 {
		return ""
	}
	if sandbox {
		fd, err := openTerminal()
		if fd >= 0 {
			_ = unix.Close(fd)
		}
		if fd >= 0 || err != nil {
			return "" // a controlling terminal (or no telling): the helper gives it up
		}
	}
	return prlimitPath
}

// helperPath is the shim's own binary, through /proc so that a binary replaced on disk
// since the shim started still runs as the same build.
func helperPath() (string, error) { return "/proc/self/exe", nil }

// becomeSubreaper makes the shim a child subreaper (PR_SET_CHILD_SUBREAPER): a process a
// plugin starts that leaves the runtime's group or session (detached, setsid, a double
// fork) re-parents to the shim when its parent dies, instead of to init, so the sweep
// after the runtime's end finds it.
func becomeSubreaper() error {
	return unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
}

// sweepBound bounds the sweep of the runtime's descendants after it was reaped.
const sweepBound = time.Second

// sweepDescendants SIGKILLs every descendant of the shim and reaps those re-parented to it,
// round after round, until none is left or sweepBound has passed. It runs once the runtime
// (runtimePID, never waited for here) was reaped, so every child left is an orphan of it.
// Each round reads the parent of every process from /proc/<pid>/stat (the per-thread
// children files need a kernel option that is often off); a process forked during a round
// is found in the next one, when its killed parent hands it to the shim.
func sweepDescendants(runtimePID int) {
	deadline := time.Now().Add(sweepBound)
	self := os.Getpid()
	for {
		tree := processTree()
		all := descendants(tree, self)
		if len(all) == 0 {
			return
		}
		for _, pid := range all {
			_ = unix.Kill(pid, unix.SIGKILL)
		}
		for _, pid := range tree[self] {
			if pid != runtimePID {
				_, _ = unix.Wait4(pid, nil, 0, nil)
			}
		}
		if time.Now().After(deadline) {
			return
		}
	}
}

// descendants lists the processes below pid in tree, breadth first.
func descendants(tree map[int][]int, pid int) []int {
	var out []int
	for queue := tree[pid]; len(queue) > 0; queue = queue[1:] {
		out = append(out, queue[0])
		queue = append(queue, tree[queue[0]]...)
	}
	return out
}

// processTree maps each parent pid to its children, from /proc/<pid>/stat.
func processTree() map[int][]int {
	ents, _ := os.ReadDir("/proc")
	tree := map[int][]int{}
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if ppid, ok := parentPID(pid); ok {
			tree[ppid] = append(tree[ppid], pid)
		}
	}
	return tree
}

// parentPID reads the ppid field of /proc/<pid>/stat, which follows the parenthesized
// command name (itself free to contain spaces and parentheses) and the state.
func parentPID(pid int) (int, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, false
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, false
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 2 {
		return 0, false
	}
	ppid, err := strconv.Atoi(f[1])
	return ppid, err == nil
}

// firstChild returns a child of pid (0 when it has none yet), from the thread's children
// file when the kernel has it, else from the pids just above pid (the kernel hands them
// out in order, so a child forked soon after its parent is almost always among them), and
// with scan from a scan of all of /proc, which on a busy machine costs milliseconds.
func firstChild(pid int, scan bool) int {
	if b, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%d/children", pid, pid)); err == nil {
		if f := strings.Fields(string(b)); len(f) > 0 {
			c, _ := strconv.Atoi(f[0])
			return c
		}
		return 0
	}
	if c := childNear(pid); c > 0 || !scan {
		return c
	}
	if kids := processTree()[pid]; len(kids) > 0 {
		return kids[0]
	}
	return 0
}

// childNear returns a child of pid among the childWindow pids above it, 0 when none is.
func childNear(pid int) int {
	for c := pid + 1; c <= pid+childWindow; c++ {
		if ppid, ok := parentPID(c); ok && ppid == pid {
			return c
		}
	}
	return 0
}

// childWindow is how many pids above its parent firstChild looks at before a scan.
const childWindow = 32

// keeperChildAttr gives an MCP server, the keeper's child, a SIGKILL death signal tied to the
// keeper's locked thread; it stays in the keeper's group, which the core kills as one.
func keeperChildAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
