package cli

import (
	"encoding/json"
	"maps"
	"math"
	"os"
	"slices"
	"strings"
	"testing"

	jsruntime "github.com/cwx-dev/cwx/core/runtime"
	"github.com/cwx-dev/cwx/shared/testenv"
)

// benchKeys are the keys of `cwx bench --json`, each with the keys of its object ("" for a
// number or a string).
var benchKeys = map[string][]string{
	"ready_cold_ms": {"p50", "p95", "p99"}, "activate_ms": {"p50", "p95", "p99"}, "oneshot_call_ms": {"p50", "p95", "p99"}, "bare_start_ms": {"p50", "p95", "p99"}, "oneshot_ratio": nil,
	"call_1kib_us": {"p50", "p95", "p99"}, "direct_1kib_us": {"p50", "p95", "p99"}, "hop_ratio_1kib": nil,
	"grpc_echo_1kib_us": {"p50", "p95", "p99"}, "pipe_echo_1kib_us": {"p50", "p95", "p99"}, "cwx_share_1kib_us": nil,
	"serve_mcp_1kib_us": {"p50", "p95", "p99"}, "serve_mcp_added_us": {"p50", "p95", "p99"},
	"cpu_per_call_16_us": {"core", "runtime", "shim"},
	"result_1mib_ms":     {"p50", "p95", "p99"}, "floor_1mib_ms": {"p50", "p95", "p99"},
	"calls_per_s": {"1", "16", "64"}, "rss_runtime_idle_mib": nil, "rss_shim_mib": nil, "rss_core_mib": nil,
	"pss_runtime_idle_mib": nil, "pss_shim_mib": nil, "private_shim_mib": nil, "pss_core_mib": nil, "hosts_running": nil,
	"kill_to_answer_ms": {"p50", "p95", "p99"}, "machine": {"cores", "load", "memory"}, "date": nil,
	"fetch_1mib_ms": {"p50", "p95", "p99"}, "fetch_direct_1mib_ms": {"p50", "p95", "p99"}, "fetch_added_p95_ms": nil,
}

// TestBenchQuickJSON runs `cwx bench --quick --json` on each runtime and checks the keys of
// its report, not the figures.
func TestBenchQuickJSON(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the whole quick bench")
	}
	bin := testenv.BuildCWX(t, "")
	for _, want := range testenv.Runtimes() {
		t.Run(want.Name, func(t *testing.T) {
			rt := want.Get(t)
			home := e2eHome(t, rt, "")
			res := e2eMust(t, bin, home, "bench", "--quick", "--json", "--runtime", rt.Name)
			var top map[string]json.RawMessage
			if err := json.Unmarshal([]byte(res.stdout), &top); err != nil {
				t.Fatalf("bench --json is not an object: %v\n%s", err, res.stdout)
			}
			if _, err := jsruntime.ResolveBwrap("", os.Getenv("PATH"), ""); err != nil && os.Getenv("CI") != "true" {
				t.Logf("no bubblewrap (%v): the fetch figures are not measured", err)
				delete(top, "fetch_skipped")
				checkKeys(t, "the report", top, benchKeys)
				checkMeasured(t, res.stdout)
				return
			}
			checkKeys(t, "the report", top, benchKeys)
			checkMeasured(t, res.stdout)
			checkFetchFigures(t, res.stdout)
		})
	}
}

// checkMeasured: every figure of the one-shot, hop, memory, CPU and serve keys was measured
// and is sane (no timing is asserted): latencies positive and ordered, the ratios consistent
// with their parts, the memory read and the CPU per call counted in each process.
func checkMeasured(t *testing.T, out string) {
	t.Helper()
	type lat struct{ P50, P95, P99 float64 }
	var rep struct {
		Oneshot  lat                `json:"oneshot_call_ms"`
		Bare     lat                `json:"bare_start_ms"`
		Ratio    float64            `json:"oneshot_ratio"`
		Call     lat                `json:"call_1kib_us"`
		Direct   lat                `json:"direct_1kib_us"`
		GRPC     lat                `json:"grpc_echo_1kib_us"`
		Pipe     lat                `json:"pipe_echo_1kib_us"`
		Share    float64            `json:"cwx_share_1kib_us"`
		Serve    lat                `json:"serve_mcp_1kib_us"`
		Added    lat                `json:"serve_mcp_added_us"`
		CPU      map[string]float64 `json:"cpu_per_call_16_us"`
		PSSShim  float64            `json:"pss_shim_mib"`
		PrivShim float64            `json:"private_shim_mib"`
		PSSIdle  float64            `json:"pss_runtime_idle_mib"`
		PSSCore  float64            `json:"pss_core_mib"`
		RSSShim  float64            `json:"rss_shim_mib"`
		Hosts    int                `json:"hosts_running"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	for name, l := range map[string]lat{"oneshot_call_ms": rep.Oneshot, "bare_start_ms": rep.Bare, "call_1kib_us": rep.Call,
		"direct_1kib_us": rep.Direct, "grpc_echo_1kib_us": rep.GRPC, "pipe_echo_1kib_us": rep.Pipe, "serve_mcp_1kib_us": rep.Serve} {
		if l.P50 <= 0 || l.P95 < l.P50 || l.P99 < l.P95 {
			t.Errorf("%s = %+v: want 0 < p50 <= p95 <= p99", name, l)
		}
	}
	if want := math.Round(rep.Oneshot.P50/rep.Bare.P50*100) / 100; math.Abs(rep.Ratio-want) > 0.011 {
		t.Errorf("oneshot_ratio %v, want %v (oneshot p50 / bare p50)", rep.Ratio, want)
	}
	if want := (rep.Call.P50 - rep.Direct.P50) - (rep.GRPC.P50 - rep.Pipe.P50); math.Abs(rep.Share-want) > 0.011 {
		t.Errorf("cwx_share_1kib_us %v, want %v", rep.Share, want)
	}
	if rep.Added.P50 >= rep.Serve.P50 {
		t.Errorf("serve_mcp_added_us %+v against serve_mcp_1kib_us %+v: the added part must be less than the whole", rep.Added, rep.Serve)
	}
	for _, p := range []string{"core", "shim", "runtime"} {
		if rep.CPU[p] <= 0 {
			t.Errorf("cpu_per_call_16_us %v: want the %s's CPU counted", rep.CPU, p)
		}
	}
	if rep.PSSShim <= 0 || rep.PrivShim <= 0 || rep.PrivShim > rep.PSSShim || rep.PSSShim > rep.RSSShim || rep.PSSIdle <= 0 || rep.PSSCore <= 0 {
		t.Errorf("memory: pss_shim %v, private_shim %v, rss_shim %v, pss_runtime_idle %v, pss_core %v: want private <= PSS <= RSS, all read",
			rep.PSSShim, rep.PrivShim, rep.RSSShim, rep.PSSIdle, rep.PSSCore)
	}
	if rep.Hosts < 1 {
		t.Errorf("hosts_running %d, want the plugin tier's host counted", rep.Hosts)
	}
}

// checkFetchFigures: with bubblewrap (which the e2e tests need anyway) the fetch figures
// were measured, through the proxy and directly.
func checkFetchFigures(t *testing.T, out string) {
	t.Helper()
	var rep struct {
		Fetch   struct{ P50 float64 } `json:"fetch_1mib_ms"`
		Direct  struct{ P50 float64 } `json:"fetch_direct_1mib_ms"`
		Skipped string                `json:"fetch_skipped"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Skipped != "" || rep.Fetch.P50 <= 0 || rep.Direct.P50 <= 0 {
		t.Fatalf("fetch figures %+v: want both measured", rep)
	}
}

// isolatedKeys are the keys of `cwx bench --isolated N --json`.
var isolatedKeys = map[string][]string{
	"hosts": nil, "ready_one_ms": {"p50", "p95", "p99"}, "ready_all_ms": {"p50", "p95", "p99"}, "ready_target_ms": nil,
	"start_cpu_ms": nil, "pss_host_mib": nil, "pss_host_max_mib": nil, "private_host_mib": nil, "private_host_max_mib": nil,
	"calls_per_s_16": nil, "kill_to_answer_ms": {"p50", "p95", "p99"}, "other_calls": nil, "other_failures": nil,
	"machine": {"cores", "load", "memory"}, "date": nil,
}

// TestBenchIsolatedJSON runs `cwx bench --isolated 3 --quick --json` on each runtime: its
// keys, three hosts measured, and no call to the other hosts failed while one was killed.
func TestBenchIsolatedJSON(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the isolated quick bench")
	}
	bin := testenv.BuildCWX(t, "")
	for _, want := range testenv.Runtimes() {
		t.Run(want.Name, func(t *testing.T) {
			rt := want.Get(t)
			home := e2eHome(t, rt, "")
			res := e2eMust(t, bin, home, "bench", "--isolated", "3", "--quick", "--json", "--runtime", rt.Name)
			var top map[string]json.RawMessage
			if err := json.Unmarshal([]byte(res.stdout), &top); err != nil {
				t.Fatalf("bench --isolated --json is not an object: %v\n%s", err, res.stdout)
			}
			checkKeys(t, "the report", top, isolatedKeys)
			var rep struct {
				Hosts         int     `json:"hosts"`
				OtherCalls    int     `json:"other_calls"`
				OtherFailures int     `json:"other_failures"`
				PSS           float64 `json:"pss_host_mib"`
				StartCPU      float64 `json:"start_cpu_ms"`
			}
			_ = json.Unmarshal([]byte(res.stdout), &rep)
			if rep.Hosts != 3 || rep.OtherCalls == 0 || rep.OtherFailures != 0 || rep.PSS <= 0 || rep.StartCPU <= 0 {
				t.Fatalf("report %+v: want 3 hosts measured and no other host's call failed", rep)
			}
		})
	}
	res := e2eCWX(t, bin, t.TempDir(), "", "bench", "--isolated", "21")
	if res.code != ExitUsage || !strings.Contains(res.stderr, "--isolated 21: use 1 to 20") {
		t.Fatalf("--isolated 21: %+v", res)
	}
}

func checkKeys(t *testing.T, where string, top map[string]json.RawMessage, want map[string][]string) {
	t.Helper()
	if got, w := slices.Sorted(maps.Keys(top)), slices.Sorted(maps.Keys(want)); !slices.Equal(got, w) {
		t.Fatalf("%s has keys %v, want %v", where, got, w)
	}
	for key, inner := range want {
		if inner == nil {
			if top[key][0] == '{' || top[key][0] == '[' {
				t.Errorf("%s: %s = %s, want a number or a string", where, key, top[key])
			}
			continue
		}
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(top[key], &obj); err != nil {
			t.Errorf("%s: %s = %s, want an object", where, key, top[key])
			continue
		}
		if got := slices.Sorted(maps.Keys(obj)); !slices.Equal(got, inner) {
			t.Errorf("%s: %s has keys %v, want %v", where, key, got, inner)
		}
	}
}
