package core

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/cwx-dev/cwx/core/errdefs"
	"github.com/cwx-dev/cwx/core/protocol"
	"github.com/cwx-dev/cwx/core/supervisor"
	"github.com/cwx-dev/cwx/shared/frame"
	"github.com/cwx-dev/cwx/shared/testenv"
)

// soakFor is how long TestSoak runs on each runtime. Zero (the default) skips it, so a plain
// `go test ./...` stays fast: `make test` runs it for 60 s as its own step and `make soak` for
// five minutes; CWX_SOAK (a Go duration) sets it when the flag is not given.
var soakFor = flag.Duration("soak", 0, "run TestSoak for this long on each runtime (0: skip unless CWX_SOAK is set)")

// The soak's shape. The budget is smaller than the default so that a few minutes hold many
// windows: the chaos loop kills only while the tier's crashes in the window are at most
// soakCrashLimit-3, leaving room for one unplanned crash, and once exceeds it on purpose.
const (
	soakCallers     = 8
	soakCrashLimit  = 5
	soakCrashWindow = 20 * time.Second
	soakCallBound   = 30 * time.Second // no call may take longer, whatever the chaos
	soakStaleBound  = 10 * time.Second // an earlier incarnation's process may linger this long
)

// soakPlugins are the fixtures the callers use, all on the plugin tier: fixture-bench-tool
// always in a host of its own, fixture-config moved between the shared host and its own by
// the config rewrites, the others in the shared host.
var soakPlugins = []string{"tool", "config", "slow-tool", "bench-tool"}

// soakOp is one kind of call a caller makes; check judges its outcome and returns the name
// under which it is counted, or an error when the outcome is wrong for the op.
type soakOp struct {
	name  string
	tool  string
	input func(rng *rand.Rand, nonce string) string
	check func(res ToolResult, err error, nonce string) (string, error)
}

var soakOps = []soakOp{
	{"echo", "echo_text", func(_ *rand.Rand, n string) string { return `{"text":"` + n + `"}` }, checkEcho},
	{"echo-string", "echo_text", func(_ *rand.Rand, n string) string { return `{"text":"` + n + `","mode":"string"}` }, checkEchoString},
	{"throw", "echo_text", func(_ *rand.Rand, n string) string { return `{"text":"` + n + `","mode":"throw"}` }, want(ErrExecutionFailed)},
	{"config", "config_echo", func(*rand.Rand, string) string { return `{}` }, checkConfig},
	{"slow", "slow_wait", func(rng *rand.Rand, _ string) string { return fmt.Sprintf(`{"ms":%d}`, 20+rng.IntN(400)) }, want(ErrCancelled)},
	{"bench", "bench_echo", func(_ *rand.Rand, n string) string { return `{"text":"` + n + `"}` }, checkBench},
	{"missing-field", "echo_text", func(*rand.Rand, string) string { return `{}` }, want(ErrInvalidInput)},
	{"not-json", "echo_text", func(*rand.Rand, string) string { return `{"text":` }, want(ErrInvalidInput)},
	{"unknown-tool", "no_such_tool", func(*rand.Rand, string) string { return `{}` }, checkAbsent},
}

// classify names err by its errdefs kind; "" means the error has none (a finding).
func classify(err error) string {
	for _, k := range []struct {
		name string
		err  error
	}{
		{"invalid_input", ErrInvalidInput}, {"denied", ErrDenied}, {"busy", ErrBusy},
		{"host_exited", ErrHostExited}, {"not_available", ErrNotAvailable}, {"cancelled", ErrCancelled},
		{"timeout", ErrTimeout}, {"execution_failed", ErrExecutionFailed}, {"too_large", errdefs.ErrTooLarge},
		{"violation", ErrViolation}, {"refused", errdefs.ErrRefused}, {"not_allowed", errdefs.ErrNotAllowed},
	} {
		if errors.Is(err, k.err) {
			return k.name
		}
	}
	return ""
}

// outcome is the counted name of a call's outcome: "ok", "is_error" or the error's kind.
// Every op may meet the host down (NotAvailable and its cases); the ops of a plugin the
// chaos loop disables or reconfigures may also meet a revocation mid-call (Cancelled), which
// they pass in allowed.
func outcome(res ToolResult, err error, allowed ...error) (string, error) {
	if err == nil {
		if res.IsError {
			return "is_error", nil
		}
		return "ok", nil
	}
	kind := classify(err)
	if kind == "" {
		return "untyped", fmt.Errorf("untyped error %T: %v", err, err)
	}
	if errors.Is(err, ErrNotAvailable) {
		return kind, nil
	}
	for _, a := range allowed {
		if errors.Is(err, a) {
			return kind, nil
		}
	}
	return kind, fmt.Errorf("unexpected %s: %v", kind, err)
}

// want accepts a success or one of kinds.
func want(kinds ...error) func(ToolResult, error, string) (string, error) {
	return func(res ToolResult, err error, _ string) (string, error) { return outcome(res, err, kinds...) }
}

// checkAbsent wants NotAvailable: no plugin registers the tool.
func checkAbsent(res ToolResult, err error, _ string) (string, error) {
	kind, e := outcome(res, err)
	if err == nil {
		return kind, fmt.Errorf("a call of a tool nobody registered answered %s", kind)
	}
	return kind, e
}

func checkEcho(res ToolResult, err error, nonce string) (string, error) {
	kind, e := outcome(res, err)
	if kind == "ok" && !strings.Contains(string(res.Structured)+res.Text(), `"echoed":"`+nonce+`"`) {
		return kind, fmt.Errorf("echo of %s answered %s %s", nonce, res.Structured, res.Text())
	}
	return kind, e
}

func checkEchoString(res ToolResult, err error, nonce string) (string, error) {
	kind, e := outcome(res, err)
	if kind == "ok" && res.Text() != nonce {
		return kind, fmt.Errorf("echo of %s answered %q", nonce, res.Text())
	}
	return kind, e
}

func checkBench(res ToolResult, err error, nonce string) (string, error) {
	kind, e := outcome(res, err, ErrCancelled)
	if kind == "ok" && !strings.Contains(res.Text()+string(res.Structured), nonce) {
		return kind, fmt.Errorf("bench_echo of %s answered %q", nonce, res.Text())
	}
	return kind, e
}

func checkConfig(res ToolResult, err error, _ string) (string, error) {
	kind, e := outcome(res, err, ErrCancelled)
	if kind == "ok" && !strings.Contains(res.Text()+string(res.Structured), "Hello, target-") {
		return kind, fmt.Errorf("config_echo answered %q", res.Text())
	}
	return kind, e
}

// soakCounts are what the soak reports. Every field is written under mu.
type soakCounts struct {
	mu       sync.Mutex
	started  int
	returned int
	results  map[string]int // "ok", "is_error" or an error kind
	byOp     map[string]int
	faults   map[string]int // faults injected, by kind
	findings []string       // wrong outcomes; the soak fails on any
}

func (c *soakCounts) fault(kind string) {
	c.mu.Lock()
	c.faults[kind]++
	c.mu.Unlock()
}

func (c *soakCounts) finding(format string, args ...any) {
	c.mu.Lock()
	if len(c.findings) < 50 {
		c.findings = append(c.findings, fmt.Sprintf(format, args...))
	}
	c.mu.Unlock()
}

func (c *soakCounts) report(t *testing.T, m *Manager, firstGen uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	h := m.Host(protocol.TierPlugin)
	t.Logf("soak %s: calls started %d, returned %d", t.Name(), c.started, c.returned)
	t.Logf("  results: %s", sortedCounts(c.results))
	t.Logf("  by op:   %s", sortedCounts(c.byOp))
	t.Logf("  faults:  %s", sortedCounts(c.faults))
	t.Logf("  restarts (host generations after the first): %d; crashes counted by the Manager: %d", h.Generation-firstGen, h.Crashes)
	for _, st := range m.Status() {
		if st.Group != "" {
			t.Logf("  own host of %s: generation %d, crashes in the window %d, %s", st.Group, st.Generation, st.Crashes, st.State)
		}
	}
}

func sortedCounts(m map[string]int) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s=%d", k, m[k])
	}
	return strings.Join(parts, " ")
}

// TestSoak runs soakCallers concurrent callers against the fixture plugins while a chaos
// loop kills the runtime and the shim (paced under the crash budget, then once past it),
// disables and re-enables plugins through the real cwx binary, rewrites a plugin's config
// and sends an input over the frame limit. It checks continuously that every call returns
// within soakCallBound with a typed outcome its op allows and that no process of an earlier
// incarnation (by pid, process group or descendant) survives soakStaleBound, and at the end
// that every call returned exactly once, the state file is valid, the goroutines are back to
// their baseline and the heap did not grow without bound.
func TestSoak(t *testing.T) {
	d := *soakFor
	if d == 0 {
		if v := os.Getenv("CWX_SOAK"); v != "" {
			var err error
			if d, err = time.ParseDuration(v); err != nil {
				t.Fatalf("CWX_SOAK=%q: %v", v, err)
			}
		}
	}
	if d <= 0 {
		t.Skip("the soak runs with -soak=<duration> or CWX_SOAK (make soak, make test)")
	}
	for _, want := range testenv.Runtimes() {
		t.Run(want.Name, func(t *testing.T) { soak(t, want.Get(t), d) })
	}
}

// soakRun is one runtime's soak.
type soakRun struct {
	t      *testing.T
	e      *env
	m      *Manager
	counts *soakCounts
	stop   chan struct{}
	gens   sync.Map // genKey -> TierStatus of that incarnation
	stale  staleProcs
}

// genKey names one incarnation of one host of the plugin tier: its group ("" for the shared
// host) and generation.
type genKey struct {
	group string
	gen   uint64
}

func keyOf(st TierStatus) genKey { return genKey{st.Group, st.Generation} }

func soak(t *testing.T, rt testenv.Runtime, d time.Duration) {
	runtime.GC()
	baseline := runtime.NumGoroutine()
	e := newEnv(t, rt)
	e.writeConfig(soakConfig("target-0", false))
	e.install(soakPlugins...)
	logs := &testWriter{t: t} // errors only: a kill logs a few lines, a debug log would be millions
	t.Cleanup(func() { logs.mu.Lock(); logs.done = true; logs.mu.Unlock() })
	m, err := Open(context.Background(), Options{Home: e.home, ShimPath: cwxBin, Approval: "auto", PollInterval: 200 * time.Millisecond,
		Logger: hclog.New(&hclog.LoggerOptions{Name: "core", Level: hclog.Error, Output: logs}),
		Tier: func(so *supervisor.Options) {
			so.HandshakeTimeout, so.CrashLimit, so.CrashWindow = 20*time.Second, soakCrashLimit, soakCrashWindow
		}})
	if err != nil {
		t.Fatal(err)
	}
	closed := false
	closeManager := func() {
		if closed {
			return
		}
		closed = true
		ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
		defer cancel()
		if err := m.Close(ctx); err != nil {
			t.Errorf("close: %v", err)
		}
	}
	defer closeManager()
	reconcile(t, m)
	firstGen := m.Host(protocol.TierPlugin).Generation
	r := &soakRun{t: t, e: e, m: m, stop: make(chan struct{}),
		counts: &soakCounts{results: map[string]int{}, byOp: map[string]int{}, faults: map[string]int{}}}
	var heap heapSamples
	var wg sync.WaitGroup
	for i := range soakCallers {
		wg.Add(1)
		go func() { defer wg.Done(); r.caller(i) }()
	}
	chaosDone := make(chan struct{})
	go func() { defer close(chaosDone); r.chaos(d, &heap) }()
	<-chaosDone
	close(r.stop)
	if !waitBounded(&wg, soakCallBound+5*time.Second) {
		t.Fatalf("callers still in a call %v after the soak ended: a call was lost", soakCallBound)
	}
	r.counts.report(t, m, firstGen)
	r.finalChecks(&heap)
	closeManager()
	r.checkNoMarkedProcess()
	eventually(t, 10*time.Second, "goroutines back to the baseline", func() bool { return runtime.NumGoroutine() <= baseline })
}

func soakConfig(target string, configIsolated bool) string {
	iso := "shared"
	if configIsolated {
		iso = "process"
	}
	return fmt.Sprintf("[plugins.\"fixture-bench-tool\"]\nisolation = \"process\"\n\n[plugins.\"fixture-config\"]\nisolation = %q\n\n[plugins.\"fixture-config\".config]\ntarget = %q\n", iso, target)
}

// caller makes calls until stop, at most one every 5 ms, each bounded by soakCallBound.
func (r *soakRun) caller(i int) {
	rng := rand.New(rand.NewPCG(uint64(i), uint64(time.Now().UnixNano())))
	pace := time.NewTicker(5 * time.Millisecond)
	defer pace.Stop()
	for n := 0; ; n++ {
		select {
		case <-r.stop:
			return
		case <-pace.C:
		}
		op := soakOps[rng.IntN(len(soakOps))]
		nonce := fmt.Sprintf("c%d-%d", i, n)
		r.call(op, op.input(rng, nonce), nonce)
	}
}

// call makes one call and counts its one return.
func (r *soakRun) call(op soakOp, in, nonce string) {
	c := r.counts
	c.mu.Lock()
	c.started++
	c.byOp[op.name]++
	c.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), soakCallBound)
	begin := time.Now()
	res, err := r.m.CallTool(ctx, op.tool, json.RawMessage(in), CallOptions{})
	cancel()
	kind, bad := op.check(res, err, nonce)
	c.mu.Lock()
	c.returned++
	c.results[kind]++
	c.mu.Unlock()
	if bad != nil {
		c.finding("%s (%s): %v", op.name, nonce, bad)
	}
	if took := time.Since(begin); took > soakCallBound {
		c.finding("%s (%s) took %v", op.name, nonce, took)
	}
}

func waitBounded(wg *sync.WaitGroup, bound time.Duration) bool {
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
		return true
	case <-time.After(bound):
		return false
	}
}

// chaos injects one fault about every 400 ms until d has passed, running the budget phase
// once at the middle; it samples the heap and checks the processes between faults.
func (r *soakRun) chaos(d time.Duration, heap *heapSamples) {
	rng := rand.New(rand.NewPCG(7, uint64(time.Now().UnixNano())))
	begin := time.Now()
	exceeded := false
	tick := time.NewTicker(400 * time.Millisecond)
	defer tick.Stop()
	lastSample := time.Time{}
	for time.Since(begin) < d {
		<-tick.C
		r.observe()
		r.checkProcesses(r.pluginHosts(), time.Now())
		if time.Since(lastSample) >= time.Second {
			heap.sample()
			lastSample = time.Now()
		}
		if !exceeded && time.Since(begin) > d/2 {
			exceeded = true
			r.exceedBudget()
			continue
		}
		r.fault(rng)
	}
	r.observe()
}

// fault injects one fault chosen at random, or none (about half the ticks, so that calls
// also run on a settled host): a kill of the runtime or the shim of one host (the shared one
// or a plugin's own), a disable and re-enable from another process, a config rewrite (which
// may move fixture-config between the shared host and its own), an input over the frame
// limit.
func (r *soakRun) fault(rng *rand.Rand) {
	switch n := rng.IntN(20); {
	case n < 4:
		r.kill(rng, "kill_runtime", func(st TierStatus) int { return st.RuntimePID })
	case n < 6:
		r.kill(rng, "kill_shim", func(st TierStatus) int { return st.ShimPID })
	case n < 8:
		r.toggle(rng)
	case n < 10:
		r.rewriteConfig(rng)
	case n < 11:
		r.oversized()
	}
}

// tierStatus is the supervisor status of the plugin tier's shared host.
func (r *soakRun) tierStatus() TierStatus {
	for _, s := range r.m.Status() {
		if s.Tier == protocol.TierPlugin && s.Group == "" {
			return s
		}
	}
	return TierStatus{}
}

// pluginHosts are the statuses of every host of the plugin tier: the shared one and the
// plugins' own.
func (r *soakRun) pluginHosts() []TierStatus {
	var out []TierStatus
	for _, s := range r.m.Status() {
		if s.Tier == protocol.TierPlugin {
			out = append(out, s)
		}
	}
	return out
}

// observe records the current incarnation of every host, so that its processes are checked
// after it ends.
func (r *soakRun) observe() {
	for _, st := range r.pluginHosts() {
		if st.State == supervisor.StateReady && st.ShimPID > 0 {
			r.gens.LoadOrStore(keyOf(st), st)
		}
		if st.State == supervisor.StateFailed {
			r.counts.finding("host %q failed outside the budget phase: %s", st.Group, st.LastFailure)
			r.m.Retry(protocol.TierPlugin)
		}
	}
}

// kill sends SIGKILL to one process of the ready incarnation of one host, picked at random,
// while that host's budget has room.
func (r *soakRun) kill(rng *rand.Rand, kind string, pid func(TierStatus) int) {
	hosts := r.pluginHosts()
	if len(hosts) == 0 {
		return
	}
	st := hosts[rng.IntN(len(hosts))]
	if st.State != supervisor.StateReady || st.Crashes > soakCrashLimit-3 || pid(st) <= 0 {
		return
	}
	r.gens.LoadOrStore(keyOf(st), st)
	if err := syscall.Kill(pid(st), syscall.SIGKILL); err == nil {
		if st.Group != "" {
			kind += "_own_host"
		}
		r.counts.fault(kind)
	}
}

// toggled are the plugins the chaos loop disables and re-enables, with a tool of each.
var toggled = []struct{ id, tool string }{{"fixture-slow-tool", "slow_wait"}, {"fixture-bench-tool", "bench_echo"}}

// toggle disables a plugin through the real cwx binary (another process), waits until the
// Manager's watcher revoked its tool, and enables it again the same way.
func (r *soakRun) toggle(rng *rand.Rand) {
	p := toggled[rng.IntN(len(toggled))]
	for _, verb := range []string{"disable", "enable"} {
		cmd := exec.Command(cwxBin, "plugin", verb, p.id)
		cmd.Env = append(os.Environ(), "CWX_HOME="+r.e.home)
		if out, err := cmd.CombinedOutput(); err != nil {
			r.counts.finding("cwx plugin %s %s: %v: %s", verb, p.id, err, out)
			return
		}
		r.counts.fault("cwx_plugin_" + verb)
		if verb == "disable" && !eventuallyNoFatal(5*time.Second, func() bool { return !hasTool(r.m, p.tool) }) {
			r.counts.finding("%s still live 5s after cwx plugin disable %s", p.tool, p.id)
		}
	}
}

// rewriteConfig gives fixture-config a new target and, every other time, moves it between
// the shared host and its own; then it reconciles.
func (r *soakRun) rewriteConfig(rng *rand.Rand) {
	own := rng.IntN(2) == 0
	text := fmt.Sprintf("[extension_host]\nruntime = %q\n%s = %q\n\n%s", r.e.rt.Name, r.e.rt.Name, r.e.rt.Path, soakConfig(fmt.Sprintf("target-%d", rng.IntN(1000)), own))
	if own != r.m.HostOf("fixture-config").Isolated() {
		r.counts.fault("isolation_move")
	}
	if err := os.WriteFile(filepath.Join(r.e.home, "config.toml"), []byte(text), 0o600); err != nil {
		r.counts.finding("rewrite config: %v", err)
		return
	}
	r.counts.fault("config_rewrite")
	ctx, cancel := context.WithTimeout(context.Background(), soakCallBound)
	defer cancel()
	if err := r.m.Reconcile(ctx); err != nil && classify(err) == "" {
		r.counts.finding("reconcile after a config rewrite: untyped %v", err)
	}
}

// oversized sends an input over the frame limit: refused before the host, typed.
func (r *soakRun) oversized() {
	r.counts.fault("oversized_input")
	big := `{"text":"` + strings.Repeat("x", frame.MaxPayload) + `"}`
	r.call(soakOp{name: "oversized", tool: "echo_text", check: want(ErrInvalidInput, errdefs.ErrTooLarge, ErrExecutionFailed)}, big, "")
}

// exceedBudget kills the runtime until the tier is Failed (the budget exhausted on
// purpose), checks that a call is then answered NotAvailable at once, and Retries.
func (r *soakRun) exceedBudget() {
	t := r.t
	r.counts.fault("budget_phase")
	deadline := time.Now().Add(2 * time.Minute)
	for r.tierStatus().State != supervisor.StateFailed {
		if time.Now().After(deadline) {
			r.counts.finding("the tier was not Failed after killing its runtime past the budget: %+v", r.tierStatus())
			return
		}
		st := r.tierStatus()
		if st.State == supervisor.StateReady && st.RuntimePID > 0 {
			r.gens.LoadOrStore(keyOf(st), st)
			if syscall.Kill(st.RuntimePID, syscall.SIGKILL) == nil {
				r.counts.fault("kill_runtime_past_budget")
			}
			eventuallyNoFatal(30*time.Second, func() bool {
				s := r.tierStatus()
				return s.Generation != st.Generation || s.State == supervisor.StateFailed
			})
			continue
		}
		// starting or backing off: the supervisor restarts on its own to replay the owners
		eventuallyNoFatal(30*time.Second, func() bool {
			s := r.tierStatus().State
			return s == supervisor.StateReady || s == supervisor.StateFailed
		})
	}
	begin := time.Now()
	_, err := r.m.CallTool(context.Background(), "echo_text", json.RawMessage(`{"text":"x"}`), CallOptions{})
	if !errors.Is(err, ErrNotAvailable) || time.Since(begin) > 5*time.Second {
		r.counts.finding("a call to a Failed tier answered %v after %v, want NotAvailable at once", err, time.Since(begin))
	}
	t.Logf("budget phase: tier Failed (%s); retrying", r.tierStatus().LastFailure)
	r.m.Retry(protocol.TierPlugin)
	if !eventuallyNoFatal(60*time.Second, func() bool {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = r.m.Reconcile(ctx)
		return hasTool(r.m, "echo_text") && r.tierStatus().State == supervisor.StateReady
	}) {
		r.counts.finding("the tools did not come back after Retry: %+v", r.tierStatus())
	}
	r.counts.fault("retry")
}

func eventuallyNoFatal(bound time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(bound)
	for !cond() {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(20 * time.Millisecond)
	}
	return true
}
