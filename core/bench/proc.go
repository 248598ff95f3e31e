package bench

import (
	"os"
	"runtime"
	"strconv"
	"strings"
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
			return Round2(kib / 1024)
		}
	}
	return 0
}

// PSSMiB is the proportional set size of process pid in MiB (its private pages plus its
// share of the pages it shares, such as the cwx binary's text a shim shares with the core:
// what it costs the machine), or 0 when /proc/<pid>/smaps_rollup cannot be read.
func PSSMiB(pid int) float64 { return Round2(float64(smapsKiB(pid, "Pss:")) / 1024) }

// PrivateMiB is the private memory (clean and dirty) of process pid in MiB, or 0.
func PrivateMiB(pid int) float64 {
	return Round2(float64(smapsKiB(pid, "Private_Clean:")+smapsKiB(pid, "Private_Dirty:")) / 1024)
}

// smapsKiB is the kB value of field in /proc/<pid>/smaps_rollup, 0 when absent.
func smapsKiB(pid int, field string) int64 {
	if pid <= 0 {
		return 0
	}
	raw, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/smaps_rollup")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(raw), "\n") {
		if v, ok := strings.CutPrefix(line, field); ok {
			kib, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return kib
		}
	}
	return 0
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

// CPUTimeMS is the CPU time (user and system) process pid has used, in milliseconds, or 0
// when /proc/<pid>/stat cannot be read. The kernel counts it in clock ticks; Linux's USER_HZ
// is 100 on every architecture cwx runs on.
func CPUTimeMS(pid int) float64 {
	if pid <= 0 {
		return 0
	}
	raw, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	// the command name is in parentheses and may hold spaces: the fields follow its last ')'
	s := string(raw)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 13 {
		return 0
	}
	utime, _ := strconv.ParseFloat(f[11], 64) // field 14 of stat(5)
	stime, _ := strconv.ParseFloat(f[12], 64) // field 15
	return (utime + stime) * 1000 / userHZ
}

const userHZ = 100

// CPUTimeNS is the CPU time process pid's threads have run, in nanoseconds: the sum of the
// first field of /proc/<pid>/task/<tid>/schedstat (the scheduler's own count, far finer
// than CPUTimeMS's clock ticks). A thread that ended is no longer counted, so take both
// readings of a difference while the process's threads live; 0 without /proc.
func CPUTimeNS(pid int) int64 {
	if pid <= 0 {
		return 0
	}
	dir := "/proc/" + strconv.Itoa(pid) + "/task"
	tasks, err := os.ReadDir(dir)
	if err != nil {
		return 0
	}
	var sum int64
	for _, t := range tasks {
		raw, err := os.ReadFile(dir + "/" + t.Name() + "/schedstat")
		if err != nil {
			continue // the thread ended
		}
		if f := strings.Fields(string(raw)); len(f) > 0 {
			ns, _ := strconv.ParseInt(f[0], 10, 64)
			sum += ns
		}
	}
	return sum
}

// CPUPerCall is the CPU each process of a tier spent per call over a run of calls, in µs.
type CPUPerCall struct {
	Core    float64 `json:"core"`
	Shim    float64 `json:"shim"`
	Runtime float64 `json:"runtime"`
}

// CPUMeter takes the CPU time of a core, a shim and a runtime at the start of a run of calls.
type CPUMeter struct {
	pids  [3]int
	start [3]int64
}

// StartCPU reads the three processes' CPU time now.
func StartCPU(core, shim, runtime int) *CPUMeter {
	m := &CPUMeter{pids: [3]int{core, shim, runtime}}
	for i, pid := range m.pids {
		m.start[i] = CPUTimeNS(pid)
	}
	return m
}

// PerCall is the CPU each process spent since StartCPU, divided by calls.
func (m *CPUMeter) PerCall(calls int) CPUPerCall {
	if calls <= 0 {
		return CPUPerCall{}
	}
	var us [3]float64
	for i, pid := range m.pids {
		us[i] = Round2(float64(CPUTimeNS(pid)-m.start[i]) / 1e3 / float64(calls))
	}
	return CPUPerCall{Core: us[0], Shim: us[1], Runtime: us[2]}
}
