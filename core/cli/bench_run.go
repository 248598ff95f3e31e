package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/cwx-dev/cwx/core"
	"github.com/cwx-dev/cwx/core/bench"
	"github.com/cwx-dev/cwx/core/config"
	"github.com/cwx-dev/cwx/core/plugins"
	"github.com/cwx-dev/cwx/core/protocol"
	jsruntime "github.com/cwx-dev/cwx/core/runtime"
	"github.com/cwx-dev/cwx/core/snapshot"
	"github.com/cwx-dev/cwx/core/supervisor"
	"github.com/cwx-dev/cwx/nodeshim/jshost"
)

// benchRun is one `cwx bench`: the runtime it measures, the cwx binary (the shim and the
// one-shot calls), its throwaway folder and what it has measured so far.
type benchRun struct {
	rt       jsruntime.Runtime
	exe, tmp string
	home     string
	fx       bench.Fixtures
	n        benchN
	progress func(string)
	log      hclog.Logger
	rep      bench.Report
	plugins  int    // enabled fixture plugins (--plugins): the fixture and plugins-1 copies
	only     string // run only this step (--only); "" runs every step
	isolated bool   // each plugin in a host of its own (--isolated)
}

// maxBenchPlugins bounds --plugins.
const maxBenchPlugins = 8

// benchSteps names the steps --only selects.
var benchSteps = []string{"ready", "oneshot", "live", "direct", "serve", "fetch"}

// benchCrashLimit is the bench's crash budget: room for the kill rounds (each SIGKILL is a
// crash), yet a start that keeps failing still ends the tier Failed with its reason.
const benchCrashLimit = 64

// benchTier gives the bench's tiers benchCrashLimit.
func benchTier(o *supervisor.Options) { o.CrashLimit = benchCrashLimit }

var (
	in1KiB = benchInput(1 << 10)
	in1MiB = benchInput(1 << 20)
)

func (r *benchRun) run(ctx context.Context) (bench.Report, error) {
	if err := r.setup(); err != nil {
		return r.rep, err
	}
	steps := []func(context.Context) error{r.readyCold, r.oneshot, r.live, r.direct, r.serveMCP, r.fetch}
	for i, step := range steps {
		if r.only != "" && r.only != benchSteps[i] {
			continue
		}
		if r.only == "oneshot" {
			// what a one-shot call meets on a machine in use: the plugins activated once before
			if err := r.warm(ctx); err != nil {
				return r.rep, err
			}
		}
		if err := step(ctx); err != nil {
			return r.rep, err
		}
	}
	r.rep.Machine = bench.ThisMachine()
	r.rep.Date = time.Now().UTC().Format(time.RFC3339)
	return r.rep, nil
}

// setup writes the fixtures and a home whose config selects the runtime by path, then
// installs, trusts and enables the fixture plugin.
func (r *benchRun) setup() error {
	var err error
	if r.fx, err = bench.WriteFixtures(r.tmp); err != nil {
		return err
	}
	r.home = filepath.Join(r.tmp, "home")
	if err := os.MkdirAll(r.home, 0o700); err != nil {
		return err
	}
	conf := fmt.Sprintf("[extension_host]\nruntime = %q\n%s = %q\n", r.rt.Kind, r.rt.Kind, r.rt.Path)
	if r.isolated {
		conf += "isolation = \"process\"\n"
	}
	if err := os.WriteFile(filepath.Join(r.home, "config.toml"), []byte(conf), 0o600); err != nil {
		return err
	}
	provided, err := jshost.Provided()
	if err != nil {
		return err
	}
	store, err := plugins.Open(plugins.Options{Home: r.home, Provided: provided.Provided, Refused: provided.Refused})
	if err != nil {
		return err
	}
	dirs := []string{r.fx.Plugin}
	for i := 2; i <= r.plugins; i++ {
		dir, err := benchCopy(r.fx.Plugin, filepath.Join(r.tmp, "extra"), i)
		if err != nil {
			return err
		}
		dirs = append(dirs, dir)
	}
	for _, dir := range dirs {
		res, err := store.Install(dir)
		if err != nil {
			return fmt.Errorf("install the bench fixture: %w", err)
		}
		rev, err := store.Review(res.ID)
		if err != nil {
			return err
		}
		if err := store.Trust(res.ID, rev.Token); err != nil {
			return err
		}
		if err := store.Enable(res.ID); err != nil {
			return err
		}
	}
	r.warmStartup()
	return nil
}

// warmStartup builds the host's startup snapshot (Node) or bytecode cache (Bun) in the bench
// home before the first round, as a real home's first start does once, so that every round
// measures what each later start pays. A failed build is the Manager's to report: its hosts
// then start from the bundle.
func (r *benchRun) warmStartup() {
	o, why := snapshot.For(r.home, config.ExtensionHost{Snapshot: config.SnapshotAuto}, r.rt, jshost.BundleSHA256())
	if why != "" {
		return
	}
	if o.Kind == jsruntime.KindBun {
		_, _ = snapshot.PrepareBytecode(context.Background(), o)
		return
	}
	_, _ = snapshot.Prepare(context.Background(), o)
}

// fixtureID is the id of fixture plugin i (1-based) of a bench home: the fixture itself,
// then its copies (benchCopy).
func fixtureID(i int) string {
	if i == 1 {
		return "cwx-bench-tool"
	}
	return fmt.Sprintf("cwx-bench-tool-%d", i)
}

// fixtureTool is the tool of fixture plugin i.
func fixtureTool(i int) string {
	if i == 1 {
		return bench.FixtureTool
	}
	return fmt.Sprintf("%s_%d", bench.FixtureTool, i)
}

// benchCopy writes copy i of the fixture plugin under parent: the same code under the
// name fixtureID(i), with its tool renamed fixtureTool(i).
func benchCopy(fixture, parent string, i int) (string, error) {
	dir := filepath.Join(parent, fmt.Sprintf("bench-tool-%d", i))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	for _, name := range []string{"plugin.json", "index.mjs"} {
		data, err := os.ReadFile(filepath.Join(fixture, name))
		if err != nil {
			return "", err
		}
		text := strings.ReplaceAll(string(data), fixtureID(1), fixtureID(i))
		text = strings.ReplaceAll(text, "'"+fixtureTool(1)+"'", "'"+fixtureTool(i)+"'")
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			return "", err
		}
	}
	return dir, nil
}

// warm activates every fixture plugin once on a Manager of the bench home and closes it.
func (r *benchRun) warm(ctx context.Context) error {
	m, err := r.openManager(ctx)
	if err != nil {
		return err
	}
	return errors.Join(reconcileBounded(ctx, m), r.needLive(m), closeManager(m))
}

func (r *benchRun) step(name string, i, n int) {
	r.progress(fmt.Sprintf("%s %d/%d", name, i+1, n))
}

// readyCold opens a fresh Manager per round and times Reconcile: the tier is needed, the
// shim and the runtime start, the handshake runs and the fixture activates.
func (r *benchRun) readyCold(ctx context.Context) error {
	var lat []time.Duration
	for i := range r.n.ready {
		r.step("tier start to Ready", i, r.n.ready)
		m, err := r.openManager(ctx)
		if err != nil {
			return err
		}
		el, err := since(func() error { return reconcileBounded(ctx, m) })
		err = errors.Join(err, r.needLive(m), closeManager(m))
		if err != nil {
			return fmt.Errorf("tier start round %d: %w", i+1, err)
		}
		lat = append(lat, el)
	}
	r.rep.ReadyColdMS = bench.Of(lat, time.Millisecond)
	return nil
}

// readyBound ends a tier start that has not reached Ready, so that a run never waits
// forever on a loaded machine (the bench's crash budget keeps restarting a failing start).
const readyBound = time.Minute

func reconcileBounded(ctx context.Context, m *core.Manager) error {
	ctx, cancel := context.WithTimeout(ctx, readyBound)
	defer cancel()
	return m.Reconcile(ctx)
}

func (r *benchRun) needLive(m *core.Manager) error {
	for _, t := range m.Tools() {
		if t.Name == bench.FixtureTool {
			return nil
		}
	}
	return fmt.Errorf("%w: the fixture's %s is not live", core.ErrNotAvailable, bench.FixtureTool)
}

// oneshot times whole `cwx tool call` processes on the bench home, each followed by a bare
// runtime process (`-e 0`), so that both meet the same load.
func (r *benchRun) oneshot(ctx context.Context) error {
	var lat, bare []time.Duration
	for i := range r.n.oneshot {
		r.step("one-shot cwx tool call", i, r.n.oneshot)
		cmd := exec.CommandContext(ctx, r.exe, "tool", "call", bench.FixtureTool, "--input", string(in1KiB), "--approve", "auto", "--workspace", r.tmp)
		cmd.Env = append(os.Environ(), "CWX_HOME="+r.home)
		cmd.Dir = r.tmp
		el, err := since(func() error { return cmd.Run() })
		if err != nil {
			return fmt.Errorf("cwx tool call round %d: %w", i+1, err)
		}
		lat = append(lat, el)
		b := exec.CommandContext(ctx, r.rt.Path, "-e", "0")
		b.Dir = r.tmp
		if el, err = since(func() error { return b.Run() }); err != nil {
			return fmt.Errorf("bare %s -e 0, round %d: %w", r.rt.Kind, i+1, err)
		}
		bare = append(bare, el)
	}
	r.rep.OneshotCallMS = bench.Of(lat, time.Millisecond)
	r.rep.BareStartMS = bench.Of(bare, time.Millisecond)
	if p := r.rep.BareStartMS.P50; p > 0 {
		r.rep.OneshotRatio = bench.Round2(r.rep.OneshotCallMS.P50 / p)
	}
	return nil
}

// live measures on one Manager kept open: idle runtime memory, calls/s, memory after
// totalCalls calls, then kill -9 of the runtime to the next answer.
func (r *benchRun) live(ctx context.Context) (err error) {
	m, err := r.openManager(ctx)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, closeManager(m)) }()
	if err := reconcileBounded(ctx, m); err != nil {
		return err
	}
	if err := r.needLive(m); err != nil {
		return err
	}
	r.progress("runtime idle memory")
	if err := pause(ctx, time.Second); err != nil { // let start-up garbage settle, as an idle host would
		return err
	}
	r.rep.RSSRuntimeIdleMiB = bench.RSSMiB(m.Host(protocol.TierPlugin).RuntimePID)
	r.rep.PSSRuntimeIdleMiB = bench.PSSMiB(m.Host(protocol.TierPlugin).RuntimePID)
	if err := r.throughput(ctx, m); err != nil {
		return err
	}
	r.rep.RSSShimMiB = bench.RSSMiB(pluginShimPID(m))
	r.rep.RSSCoreMiB = bench.RSSMiB(os.Getpid())
	r.rep.PSSShimMiB, r.rep.PrivateShimMiB = bench.PSSMiB(pluginShimPID(m)), bench.PrivateMiB(pluginShimPID(m))
	r.rep.PSSCoreMiB = bench.PSSMiB(os.Getpid())
	for _, s := range m.Status() {
		if s.RuntimePID > 0 {
			r.rep.HostsRunning++
		}
	}
	return r.killToAnswer(ctx, m)
}

func pluginShimPID(m *core.Manager) int {
	for _, s := range m.Status() {
		if s.Tier == protocol.TierPlugin {
			return s.ShimPID
		}
	}
	return 0
}

func pause(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// throughput runs perLevel calls at each concurrency level, then more single calls until
// the Manager has served totalCalls.
func (r *benchRun) throughput(ctx context.Context, m *core.Manager) error {
	r.rep.CallsPerS = map[string]float64{}
	r.progress("warming up")
	done := warmup * 4
	if _, err := callsPerSecond(ctx, m, 1, done); err != nil {
		return err
	}
	for _, callers := range bench.CallerCounts {
		r.progress(fmt.Sprintf("calls/s at %d callers", callers))
		var cpu *bench.CPUMeter
		if callers == 16 {
			cpu = bench.StartCPU(os.Getpid(), pluginShimPID(m), m.Host(protocol.TierPlugin).RuntimePID)
		}
		rate, err := callsPerSecond(ctx, m, callers, r.n.perLevel)
		if err != nil {
			return err
		}
		if cpu != nil {
			r.rep.CPUPerCall16US = cpu.PerCall(r.n.perLevel)
		}
		r.rep.CallsPerS[strconv.Itoa(callers)] = float64(int(rate))
		done += r.n.perLevel
	}
	r.progress(fmt.Sprintf("calls up to %d", totalCalls))
	_, err := callsPerSecond(ctx, m, 16, totalCalls-done)
	return err
}

// callsPerSecond makes n calls of 1 KiB results of the fixture's tool from callers
// goroutines.
func callsPerSecond(ctx context.Context, m *core.Manager, callers, n int) (float64, error) {
	return callsSpread(ctx, m, callers, n, func(int) string { return bench.FixtureTool })
}

// callsSpread makes n calls of 1 KiB results from callers goroutines, caller c calling
// toolOf(c).
func callsSpread(ctx context.Context, m *core.Manager, callers, n int, toolOf func(c int) string) (float64, error) {
	if n <= 0 {
		return 0, nil
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	errs := make([]error, callers)
	begin := time.Now()
	for c := range callers {
		tool := toolOf(c)
		wg.Go(func() {
			for next.Add(1) <= int64(n) {
				if err := callSized(ctx, m, tool, in1KiB, 1<<10); err != nil {
					errs[c] = err
					return
				}
			}
		})
	}
	wg.Wait()
	return float64(n) / time.Since(begin).Seconds(), errors.Join(errs...)
}

func call1KiB(ctx context.Context, m *core.Manager) error {
	return callSized(ctx, m, bench.FixtureTool, in1KiB, 1<<10)
}

// callSized calls tool for size bytes of text (in asks for them) and checks the answer.
func callSized(ctx context.Context, m *core.Manager, tool string, in []byte, size int) error {
	res, err := m.CallTool(ctx, tool, in, core.CallOptions{})
	if err != nil {
		return err
	}
	if n := len(res.Text()); n != size {
		return fmt.Errorf("%s answered %d bytes, want %d", tool, n, size)
	}
	return nil
}

// hostKiller is what killReady needs of a Manager.
type hostKiller interface {
	HostAt(k protocol.HostKey) core.HostInfo
	KillHost(k protocol.HostKey) error
}

// killReady sends SIGKILL to host k's runtime once the supervisor reports it Ready. A call
// can be answered a moment before that (the plugins activate on the new incarnation before
// the supervisor marks it Ready), and only a Ready host reports its runtime's pid.
func killReady(ctx context.Context, m hostKiller, k protocol.HostKey) error {
	t0 := time.Now()
	for {
		st := m.HostAt(k)
		if st.State == supervisor.StateReady {
			return m.KillHost(k)
		}
		if time.Since(t0) > liveWait {
			return fmt.Errorf("%w: %s is %s, not ready, %s after its last answer", core.ErrNotAvailable, k.Describe(), st.State, liveWait)
		}
		if err := pause(ctx, time.Millisecond); err != nil {
			return err
		}
	}
}

// killToAnswer sends SIGKILL to the runtime and times until a call is answered again (the
// supervisor's backoff, a new shim and runtime, the handshake, the fixture's activation).
func (r *benchRun) killToAnswer(ctx context.Context, m *core.Manager) error {
	var lat []time.Duration
	for i := range r.n.kill {
		r.step("kill -9 to the next answer", i, r.n.kill)
		if err := killReady(ctx, m, protocol.SharedHost(protocol.TierPlugin)); err != nil {
			return err
		}
		t0 := time.Now()
		for {
			err := call1KiB(ctx, m)
			if err == nil {
				break
			}
			if ctx.Err() != nil || time.Since(t0) > liveWait {
				return fmt.Errorf("no answer %s after kill %d: %w", liveWait, i+1, err)
			}
			if err := pause(ctx, 2*time.Millisecond); err != nil {
				return err
			}
		}
		lat = append(lat, time.Since(t0))
	}
	r.rep.KillToAnswerMS = bench.Of(lat, time.Millisecond)
	return nil
}
