package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"runtime"
	"slices"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/cwx-dev/cwx/core"
	"github.com/cwx-dev/cwx/core/bench"
	jsruntime "github.com/cwx-dev/cwx/core/runtime"
)

// maxIsolatedHosts bounds --isolated.
const maxIsolatedHosts = 20

// isolatedBench is one `cwx bench --isolated N`: two throwaway homes, one with a single
// isolated fixture plugin (one host's start) and one with N (all of them), and what was
// measured.
type isolatedBench struct {
	rt       jsruntime.Runtime
	exe, tmp string
	hosts    int
	quick    bool
	progress func(string)
	log      hclog.Logger
	one, all *benchRun
	rep      bench.IsolatedReport
}

func runIsolatedBench(ctx context.Context, w io.Writer, f benchFlags, b *isolatedBench) error {
	rep, err := b.run(ctx)
	b.progress("")
	if err != nil {
		return callErr(err)
	}
	return writeBenchReport(w, f.asJSON, rep, func(w io.Writer, rep bench.IsolatedReport) error {
		return bench.WriteIsolatedTable(w, fmt.Sprintf("%s %s", b.rt.Kind, b.rt.Version), rep)
	})
}

func (b *isolatedBench) run(ctx context.Context) (bench.IsolatedReport, error) {
	b.rep.Hosts = b.hosts
	mk := func(dir string, n int) (*benchRun, error) {
		r := &benchRun{rt: b.rt, exe: b.exe, tmp: filepath.Join(b.tmp, dir), log: b.log, plugins: n, isolated: true}
		return r, r.setup()
	}
	var err error
	if b.one, err = mk("one", 1); err != nil {
		return b.rep, err
	}
	if b.all, err = mk("all", b.hosts); err != nil {
		return b.rep, err
	}
	if err := b.ready(ctx); err != nil {
		return b.rep, err
	}
	if err := b.live(ctx); err != nil {
		return b.rep, err
	}
	b.rep.Machine = bench.ThisMachine()
	b.rep.Date = time.Now().UTC().Format(time.RFC3339)
	return b.rep, nil
}

// ready alternates a start of the one-plugin home with a start of the N-plugin home, each
// from a fresh Manager; the last round reads each host's CPU time at Ready.
func (b *isolatedBench) ready(ctx context.Context) error {
	rounds := 10
	if b.quick {
		rounds = 3
	}
	var one, all []time.Duration
	for i := range rounds {
		b.progress(fmt.Sprintf("one host, then %d, to Ready %d/%d", b.hosts, i+1, rounds))
		el, err := b.start(ctx, b.one, 1, nil)
		if err != nil {
			return fmt.Errorf("one host's start, round %d: %w", i+1, err)
		}
		one = append(one, el)
		var cpu func(*core.Manager)
		if i == rounds-1 {
			cpu = func(m *core.Manager) { b.rep.StartCPUMS = b.startCPU(m) }
		}
		if el, err = b.start(ctx, b.all, b.hosts, cpu); err != nil {
			return fmt.Errorf("%d hosts' start, round %d: %w", b.hosts, i+1, err)
		}
		all = append(all, el)
	}
	b.rep.ReadyOneMS = bench.Of(one, time.Millisecond)
	b.rep.ReadyAllMS = bench.Of(all, time.Millisecond)
	b.rep.ReadyTargetMS = bench.Round2(1.3 * float64(b.hosts) * b.rep.ReadyOneMS.P50 / float64(runtime.NumCPU()))
	return nil
}

// start opens a Manager on r's home, times its Reconcile until all n plugins are live, hands
// it to after (if any), and closes it.
func (b *isolatedBench) start(ctx context.Context, r *benchRun, n int, after func(*core.Manager)) (time.Duration, error) {
	m, err := r.openManager(ctx)
	if err != nil {
		return 0, err
	}
	el, err := since(func() error { return reconcileBounded(ctx, m) })
	if err == nil {
		err = needTools(m, n)
	}
	if err == nil && after != nil {
		after(m)
	}
	return el, errors.Join(err, closeManager(m))
}

// needTools checks that the tools of fixture plugins 1..n are live.
func needTools(m *core.Manager, n int) error {
	live := map[string]bool{}
	for _, t := range m.Tools() {
		live[t.Name] = true
	}
	for i := 1; i <= n; i++ {
		if !live[fixtureTool(i)] {
			return fmt.Errorf("%w: %s of plugin %s is not live", core.ErrNotAvailable, fixtureTool(i), fixtureID(i))
		}
	}
	return nil
}

// ownHosts lists the status of every plugin's own host of m.
func ownHosts(m *core.Manager) []core.TierStatus {
	var out []core.TierStatus
	for _, s := range m.Status() {
		if s.Group != "" && s.RuntimePID > 0 {
			out = append(out, s)
		}
	}
	return out
}

// startCPU is the mean CPU time of one own host's shim and runtime so far.
func (b *isolatedBench) startCPU(m *core.Manager) float64 {
	hosts := ownHosts(m)
	if len(hosts) == 0 {
		return 0
	}
	var sum float64
	for _, s := range hosts {
		sum += bench.CPUTimeMS(s.ShimPID) + bench.CPUTimeMS(s.RuntimePID)
	}
	return bench.Round2(sum / float64(len(hosts)))
}

// live measures on one Manager of the N-plugin home: idle memory per host, calls/s at 16
// callers spread over the hosts, then kill -9 of host 1 while the others are called.
func (b *isolatedBench) live(ctx context.Context) (err error) {
	m, err := b.all.openManager(ctx)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, closeManager(m)) }()
	if err := reconcileBounded(ctx, m); err != nil {
		return err
	}
	if err := needTools(m, b.hosts); err != nil {
		return err
	}
	b.progress("memory per host")
	if err := pause(ctx, time.Second); err != nil {
		return err
	}
	b.memory(m)
	calls := 5000
	if b.quick {
		calls = 1000
	}
	b.progress(fmt.Sprintf("calls/s at 16 callers over %d hosts", b.hosts))
	if _, err := callsSpread(ctx, m, 16, 200, b.toolOfCaller); err != nil { // warm-up
		return err
	}
	rate, err := callsSpread(ctx, m, 16, calls, b.toolOfCaller)
	if err != nil {
		return err
	}
	b.rep.CallsPerS16 = float64(int(rate))
	return b.killOne(ctx, m)
}

func (b *isolatedBench) memory(m *core.Manager) {
	var pss, priv []float64
	for _, s := range ownHosts(m) {
		pss = append(pss, bench.PSSMiB(s.ShimPID)+bench.PSSMiB(s.RuntimePID))
		priv = append(priv, bench.PrivateMiB(s.ShimPID)+bench.PrivateMiB(s.RuntimePID))
	}
	mean := func(v []float64) float64 {
		if len(v) == 0 {
			return 0
		}
		var s float64
		for _, x := range v {
			s += x
		}
		return bench.Round2(s / float64(len(v)))
	}
	largest := func(v []float64) float64 {
		if len(v) == 0 {
			return 0
		}
		return bench.Round2(slices.Max(v))
	}
	b.rep.PSSHostMiB, b.rep.PSSHostMaxMiB = mean(pss), largest(pss)
	b.rep.PrivateHostMiB, b.rep.PrivateHostMaxMiB = mean(priv), largest(priv)
}

// toolOfCaller spreads the callers over the hosts: caller c calls the tool of host c mod N.
func (b *isolatedBench) toolOfCaller(c int) string { return fixtureTool(c%b.hosts + 1) }

// killOne sends SIGKILL to host 1's runtime and times until its tool answers again, while
// one goroutine calls the other hosts' tools in turn and counts what fails.
func (b *isolatedBench) killOne(ctx context.Context, m *core.Manager) error {
	rounds := 10
	if b.quick {
		rounds = 3
	}
	target := m.HostOf(fixtureID(1))
	var lat []time.Duration
	for i := range rounds {
		b.progress(fmt.Sprintf("kill -9 of one host to its next answer %d/%d", i+1, rounds))
		stop := make(chan struct{})
		var wg sync.WaitGroup
		if b.hosts > 1 {
			wg.Go(func() {
				for j := 0; ; j++ {
					select {
					case <-stop:
						return
					default:
					}
					b.rep.OtherCalls++
					if callSized(ctx, m, fixtureTool(j%(b.hosts-1)+2), in1KiB, 1<<10) != nil {
						b.rep.OtherFailures++
					}
				}
			})
		}
		err := killReady(ctx, m, target)
		t0 := time.Now()
		for err == nil {
			cerr := callSized(ctx, m, fixtureTool(1), in1KiB, 1<<10)
			if cerr == nil {
				break
			}
			if ctx.Err() != nil || time.Since(t0) > liveWait {
				err = fmt.Errorf("no answer %s after kill %d: %w", liveWait, i+1, cerr)
				break
			}
			err = pause(ctx, 2*time.Millisecond)
		}
		el := time.Since(t0)
		close(stop)
		wg.Wait()
		if err != nil {
			return err
		}
		lat = append(lat, el)
	}
	b.rep.KillToAnswerMS = bench.Of(lat, time.Millisecond)
	return nil
}
