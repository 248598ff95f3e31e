package bench

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// Report is the outcome of one `cwx bench` run; its JSON form is `cwx bench --json`. Each
// latency is in the unit its key names.
type Report struct {
	ReadyColdMS   Latency `json:"ready_cold_ms"`   // tier needed → Ready with the fixture activated
	ActivateMS    Latency `json:"activate_ms"`     // ext/activate of the one-tool fixture
	OneshotCallMS Latency `json:"oneshot_call_ms"` // a whole `cwx tool call` process
	// BareStartMS is a bare `node -e 0` / `bun -e 0` process, alternated with the one-shot
	// calls; OneshotRatio is their p50 ratio (oneshot ÷ bare).
	BareStartMS  Latency `json:"bare_start_ms"`
	OneshotRatio float64 `json:"oneshot_ratio"`
	Call1KiBUS   Latency `json:"call_1kib_us"`   // Manager.CallTool, 1 KiB result
	Direct1KiBUS Latency `json:"direct_1kib_us"` // the same call over a direct CWX1 pipe, alternated
	HopRatio1KiB float64 `json:"hop_ratio_1kib"` // call p50 / direct p50
	// GRPCEcho1KiBUS is a 1 KiB Frame through go-plugin's gRPC stream to an echo with no cwx
	// code (`cwx bench grpc-echo`), PipeEcho1KiBUS the same 1 KiB over a bare pipe to a
	// process copying stdin to stdout (`cwx bench pipe-echo`), both alternated with the two
	// calls above; CWXShare1KiBUS is what cwx adds to the hop beyond go-plugin's gRPC,
	// (call − direct) − (grpc_echo − pipe_echo) at p50.
	GRPCEcho1KiBUS Latency `json:"grpc_echo_1kib_us"`
	PipeEcho1KiBUS Latency `json:"pipe_echo_1kib_us"`
	CWXShare1KiBUS float64 `json:"cwx_share_1kib_us"`
	// ServeMCP1KiBUS is the 1 KiB call through a `cwx serve --mcp` process over stdio (the
	// Go SDK's client), alternated with Manager.CallTool in this process; ServeMCPAddedUS
	// is their difference, percentile by percentile.
	ServeMCP1KiBUS  Latency            `json:"serve_mcp_1kib_us"`
	ServeMCPAddedUS Latency            `json:"serve_mcp_added_us"`
	Result1MiBMS    Latency            `json:"result_1mib_ms"` // Manager.CallTool, 1 MiB result
	Floor1MiBMS     Latency            `json:"floor_1mib_ms"`  // a bare script writing the same bytes as one frame
	CallsPerS       map[string]float64 `json:"calls_per_s"`    // by concurrent callers: "1", "16", "64"
	// CPUPerCall16US is the CPU time per call of the core (the bench process), the shim and
	// the runtime over the calls at 16 callers.
	CPUPerCall16US    CPUPerCall `json:"cpu_per_call_16_us"`
	RSSRuntimeIdleMiB float64    `json:"rss_runtime_idle_mib"`
	RSSShimMiB        float64    `json:"rss_shim_mib"` // after 10,000 calls
	RSSCoreMiB        float64    `json:"rss_core_mib"` // after 10,000 calls
	// PSS (what a process costs the machine: its private pages and its share of the shared
	// ones) and private memory beside the RSS figures, measured at the same moments, with
	// the number of extension hosts running then.
	PSSRuntimeIdleMiB float64 `json:"pss_runtime_idle_mib"`
	PSSShimMiB        float64 `json:"pss_shim_mib"`
	PrivateShimMiB    float64 `json:"private_shim_mib"`
	PSSCoreMiB        float64 `json:"pss_core_mib"`
	HostsRunning      int     `json:"hosts_running"`
	KillToAnswerMS    Latency `json:"kill_to_answer_ms"`
	// Fetch1MiBMS is a 1 MiB response fetched by a sandboxed plugin through the core's fetch
	// proxy, FetchDirect1MiBMS the same server fetched by a bare unsandboxed runtime,
	// alternated, each timed in the runtime from the call of fetch to the last byte;
	// FetchAddedP95MS is their p95 difference. FetchSkipped says why they were not measured
	// (no bubblewrap: an unsandboxed host fetches by itself).
	Fetch1MiBMS       Latency `json:"fetch_1mib_ms"`
	FetchDirect1MiBMS Latency `json:"fetch_direct_1mib_ms"`
	FetchAddedP95MS   float64 `json:"fetch_added_p95_ms"`
	FetchSkipped      string  `json:"fetch_skipped,omitempty"`
	Machine           Machine `json:"machine"`
	Date              string  `json:"date"` // RFC 3339, UTC
}

// CallerCounts are the concurrency levels of Report.CallsPerS.
var CallerCounts = []int{1, 16, 64}

// WriteTable prints r as one table: a row per figure with its unit and percentiles.
func WriteTable(w io.Writer, runtime string, r Report) error {
	t := newTable(w, runtime)
	lat, one := t.lat, t.one
	lat("ready_cold", "ms", r.ReadyColdMS)
	lat("activate", "ms", r.ActivateMS)
	lat("oneshot_call", "ms", r.OneshotCallMS)
	lat("bare_start", "ms", r.BareStartMS)
	one("oneshot_ratio", "×", r.OneshotRatio)
	lat("call_1kib", "µs", r.Call1KiBUS)
	lat("direct_1kib", "µs", r.Direct1KiBUS)
	one("hop_ratio_1kib", "×", r.HopRatio1KiB)
	lat("grpc_echo_1kib", "µs", r.GRPCEcho1KiBUS)
	lat("pipe_echo_1kib", "µs", r.PipeEcho1KiBUS)
	one("cwx_share_1kib", "µs", r.CWXShare1KiBUS)
	lat("serve_mcp_1kib", "µs", r.ServeMCP1KiBUS)
	lat("serve_mcp_added", "µs", r.ServeMCPAddedUS)
	lat("result_1mib", "ms", r.Result1MiBMS)
	lat("floor_1mib", "ms", r.Floor1MiBMS)
	for _, n := range CallerCounts {
		one(fmt.Sprintf("calls_per_s at %d", n), "calls/s", r.CallsPerS[fmt.Sprint(n)])
	}
	one("cpu_per_call_16 core", "µs", r.CPUPerCall16US.Core)
	one("cpu_per_call_16 shim", "µs", r.CPUPerCall16US.Shim)
	one("cpu_per_call_16 runtime", "µs", r.CPUPerCall16US.Runtime)
	one("rss_runtime_idle", "MiB", r.RSSRuntimeIdleMiB)
	one("rss_shim", "MiB", r.RSSShimMiB)
	one("rss_core", "MiB", r.RSSCoreMiB)
	one("pss_runtime_idle", "MiB", r.PSSRuntimeIdleMiB)
	one("pss_shim", "MiB", r.PSSShimMiB)
	one("private_shim", "MiB", r.PrivateShimMiB)
	one("pss_core", "MiB", r.PSSCoreMiB)
	one("hosts_running", "hosts", float64(r.HostsRunning))
	lat("kill_to_answer", "ms", r.KillToAnswerMS)
	lat("fetch_1mib", "ms", r.Fetch1MiBMS)
	lat("fetch_direct_1mib", "ms", r.FetchDirect1MiBMS)
	one("fetch_added_p95", "ms", r.FetchAddedP95MS)
	if err := t.tw.Flush(); err != nil {
		return err
	}
	return writeMachine(w, r.Machine, r.Date)
}

// table is a figures table: a header naming the run, then a row per figure with its unit
// and percentiles (lat) or its one value (one).
type table struct{ tw *tabwriter.Writer }

func newTable(w io.Writer, title string) table {
	t := table{tabwriter.NewWriter(w, 2, 8, 2, ' ', 0)}
	t.p("FIGURE (%s)\tUNIT\tP50\tP95\tP99\n", title)
	return t
}

func (t table) p(format string, a ...any) { _, _ = fmt.Fprintf(t.tw, format, a...) }

func (t table) lat(name, unit string, l Latency) {
	t.p("%s\t%s\t%.2f\t%.2f\t%.2f\n", name, unit, l.P50, l.P95, l.P99)
}

func (t table) one(name, unit string, v float64) { t.p("%s\t%s\t%.2f\t\t\n", name, unit, v) }

// writeMachine prints the line under a table that says where and when it was measured.
func writeMachine(w io.Writer, m Machine, date string) error {
	load := make([]string, len(m.Load))
	for i, l := range m.Load {
		load[i] = fmt.Sprintf("%.2f", l)
	}
	_, err := fmt.Fprintf(w, "machine: %d cores, %d MiB, load %s; date %s\n", m.Cores, m.MemoryMiB, strings.Join(load, " "), date)
	return err
}
