package supervisor

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// The /proc readers BenchmarkShimHop measures with.

// cpuNanos returns each process's CPU time so far in nanoseconds, summed over its threads
// (/proc/PID/task/*/schedstat; threads that already exited are not counted).
func cpuNanos(pids []int) []int64 {
	out := make([]int64, len(pids))
	for i, pid := range pids {
		tasks, _ := filepath.Glob("/proc/" + strconv.Itoa(pid) + "/task/*/schedstat")
		for _, t := range tasks {
			raw, err := os.ReadFile(t)
			if err != nil {
				continue
			}
			if f := strings.Fields(string(raw)); len(f) > 0 {
				ns, _ := strconv.ParseInt(f[0], 10, 64)
				out[i] += ns
			}
		}
	}
	return out
}

// ctxSwitches is the number of context switches of pid's live threads so far.
func ctxSwitches(pid int) int64 {
	var n int64
	tasks, _ := filepath.Glob("/proc/" + strconv.Itoa(pid) + "/task/*/status")
	for _, t := range tasks {
		raw, err := os.ReadFile(t)
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(raw), "\n") {
			if k, v, ok := strings.Cut(line, ":"); ok && strings.HasSuffix(k, "ctxt_switches") {
				c, _ := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
				n += c
			}
		}
	}
	return n
}

// selfCPU is this process's user plus system time in nanoseconds.
func selfCPU() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
