package bench

import (
	"fmt"
	"io"
)

// IsolatedReport is the outcome of `cwx bench --isolated N`: N copies of the fixture plugin,
// each in a host of its own (isolation = "process"). Its JSON form is `cwx bench --isolated
// N --json`.
type IsolatedReport struct {
	Hosts int `json:"hosts"` // N
	// ReadyOneMS is one plugin's own host, needed → Ready with its plugin active (a home
	// with one isolated plugin), alternated with ReadyAllMS, all N of them from one Reconcile.
	ReadyOneMS Latency `json:"ready_one_ms"`
	ReadyAllMS Latency `json:"ready_all_ms"`
	// ReadyTargetMS is the target for ReadyAllMS p50: 1.3 × N × ReadyOneMS p50 ÷ cores
	// (hosts start in parallel, so N of them cost N starts spread over the cores).
	ReadyTargetMS float64 `json:"ready_target_ms"`
	// StartCPUMS is the CPU time one host's shim and runtime used from spawn to Ready with
	// the plugin active, the mean over the N hosts of the last round.
	StartCPUMS float64 `json:"start_cpu_ms"`
	// PSSHostMiB and PrivateHostMiB are one host's proportional and private memory, its
	// shim's and runtime's together, idle after the start: the mean and the largest over
	// the N hosts.
	PSSHostMiB        float64 `json:"pss_host_mib"`
	PSSHostMaxMiB     float64 `json:"pss_host_max_mib"`
	PrivateHostMiB    float64 `json:"private_host_mib"`
	PrivateHostMaxMiB float64 `json:"private_host_max_mib"`
	// CallsPerS16 is calls/s of 1 KiB results at 16 callers, caller c calling the tool of
	// host c mod N.
	CallsPerS16 float64 `json:"calls_per_s_16"`
	// KillToAnswerMS is SIGKILL of host 1's runtime to its plugin's next answer, while the
	// other hosts are called all along; OtherFailures counts their calls that failed (0 is
	// the independence the per-plugin hosts promise) out of OtherCalls.
	KillToAnswerMS Latency `json:"kill_to_answer_ms"`
	OtherCalls     int     `json:"other_calls"`
	OtherFailures  int     `json:"other_failures"`
	Machine        Machine `json:"machine"`
	Date           string  `json:"date"`
}

// WriteIsolatedTable prints r as one table.
func WriteIsolatedTable(w io.Writer, runtime string, r IsolatedReport) error {
	t := newTable(w, fmt.Sprintf("%s, %d isolated hosts", runtime, r.Hosts))
	p, lat, one := t.p, t.lat, t.one
	lat("ready_one", "ms", r.ReadyOneMS)
	lat("ready_all", "ms", r.ReadyAllMS)
	one("ready_target", "ms", r.ReadyTargetMS)
	one("start_cpu", "ms", r.StartCPUMS)
	one("pss_host", "MiB", r.PSSHostMiB)
	one("pss_host_max", "MiB", r.PSSHostMaxMiB)
	one("private_host", "MiB", r.PrivateHostMiB)
	one("private_host_max", "MiB", r.PrivateHostMaxMiB)
	one("calls_per_s at 16", "calls/s", r.CallsPerS16)
	lat("kill_to_answer", "ms", r.KillToAnswerMS)
	p("other_failures\tcalls\t%d of %d\t\t\n", r.OtherFailures, r.OtherCalls)
	if err := t.tw.Flush(); err != nil {
		return err
	}
	return writeMachine(w, r.Machine, r.Date)
}
