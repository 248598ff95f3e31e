package bench

import (
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
)

// RSSMiB is the resident set (VmRSS) of process pid in MiB, or 0 when it cannot be read.
func RSSMiB(pid int) float64 {
	raw, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(raw), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kib, _ := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 64)
			return round2(kib / 1024)
		}
	}
	return 0
}

// CPUNanos returns each process's CPU time so far in nanoseconds, summed over its threads
// (/proc/PID/task/*/schedstat; threads that already exited are not counted).
func CPUNanos(pids []int) []int64 {
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

// CtxSwitches is the number of context switches of pid's live threads so far.
func CtxSwitches(pid int) int64 {
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

// SelfCPU is this process's user plus system time in nanoseconds.
func SelfCPU() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}

// Machine describes where a run happened: logical CPUs, total memory and the load
// averages over 1, 5 and 15 minutes when the run ended.
type Machine struct {
	Cores     int        `json:"cores"`
	MemoryMiB int64      `json:"memory"` // total, in MiB
	Load      [3]float64 `json:"load"`
}

// ThisMachine reads Machine from the runtime and /proc (zeros where /proc is absent).
func ThisMachine() Machine {
	m := Machine{Cores: runtime.NumCPU()}
	if raw, err := os.ReadFile("/proc/meminfo"); err == nil {
		for _, line := range strings.Split(string(raw), "\n") {
			if v, ok := strings.CutPrefix(line, "MemTotal:"); ok {
				kib, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
				m.MemoryMiB = kib / 1024
			}
		}
	}
	if raw, err := os.ReadFile("/proc/loadavg"); err == nil {
		f := strings.Fields(string(raw))
		for i := 0; i < 3 && i < len(f); i++ {
			m.Load[i], _ = strconv.ParseFloat(f[i], 64)
		}
	}
	return m
}
