package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"github.com/cwx-dev/cwx/core"
	"github.com/cwx-dev/cwx/core/bench"
	"github.com/cwx-dev/cwx/shared"
)

// warmup is how many untimed round trips each path makes first (JIT, pools, windows).
const warmup = 50

// direct measures what needs the baselines: activation and 1 KiB calls on the host over a
// direct pipe, alternated with the same call through a Manager, and the 1 MiB result
// alternated with the floor script.
func (r *benchRun) direct(ctx context.Context) (err error) {
	r.progress("direct pipe to the host")
	d, err := bench.StartDirect(ctx, r.rt, filepath.Join(r.tmp, "direct"))
	if err != nil {
		return err
	}
	defer d.Close()
	if err := r.activations(ctx, d); err != nil {
		return err
	}
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
	if err := r.hop(ctx, m, d); err != nil {
		return err
	}
	return r.bigResult(ctx, m)
}

// activations times ext/activate of the fixture under fresh owners (each deactivated
// after), then leaves one owner active for the calls.
func (r *benchRun) activations(ctx context.Context, d *bench.Direct) error {
	entry := filepath.Join(r.fx.Plugin, "index.mjs")
	var lat []time.Duration
	for i := range r.n.activate {
		r.step("activation", i, r.n.activate)
		t0 := time.Now()
		owner, err := d.Activate(ctx, "cwx-bench-tool", entry)
		if err != nil {
			return err
		}
		lat = append(lat, time.Since(t0))
		if err := d.Deactivate(ctx, owner); err != nil {
			return err
		}
	}
	r.rep.ActivateMS = bench.Of(lat, time.Millisecond)
	_, err := d.Activate(ctx, "cwx-bench-tool", entry)
	return err
}

// hop alternates one 1 KiB call through the Manager, one over the direct pipe, one 1 KiB
// round trip through go-plugin's gRPC stream to an echo and one over a bare pipe to an
// echo, so all four see the same load.
func (r *benchRun) hop(ctx context.Context, m *core.Manager, d *bench.Direct) (err error) {
	grpcEcho, err := bench.StartGRPCEcho(ctx, r.exe, bench.EchoOptions{Transport: shared.DefaultTransport})
	if err != nil {
		return err
	}
	defer grpcEcho.Close()
	pipeEcho, err := bench.StartPipeEcho(r.exe)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, pipeEcho.Close()) }()
	handle := d.Handle(bench.FixtureTool)
	viaDirect := func() error {
		n, err := d.Call(ctx, handle, in1KiB)
		if err == nil && n != 1<<10 {
			err = fmt.Errorf("direct call answered %d bytes, want %d", n, 1<<10)
		}
		return err
	}
	viaCore := func() error { return call1KiB(ctx, m) }
	payload := bytes.Repeat([]byte{'e'}, bench.EchoSize)
	viaGRPC := func() error { return grpcEcho.Trip(payload) }
	viaPipe := func() error { return pipeEcho.Trip(payload) }
	l, err := alternateN(r, "1 KiB calls, core, direct and echoes", r.n.hop, viaCore, viaDirect, viaGRPC, viaPipe)
	if err != nil {
		return err
	}
	r.rep.Call1KiBUS, r.rep.Direct1KiBUS = bench.Of(l[0], time.Microsecond), bench.Of(l[1], time.Microsecond)
	r.rep.GRPCEcho1KiBUS, r.rep.PipeEcho1KiBUS = bench.Of(l[2], time.Microsecond), bench.Of(l[3], time.Microsecond)
	if r.rep.Direct1KiBUS.P50 > 0 {
		r.rep.HopRatio1KiB = float64(int(r.rep.Call1KiBUS.P50/r.rep.Direct1KiBUS.P50*100)) / 100
	}
	r.rep.CWXShare1KiBUS = bench.Round2((r.rep.Call1KiBUS.P50 - r.rep.Direct1KiBUS.P50) - (r.rep.GRPCEcho1KiBUS.P50 - r.rep.PipeEcho1KiBUS.P50))
	return nil
}

// bigResult alternates a 1 MiB result through the Manager with the floor script's frame of
// the same bytes.
func (r *benchRun) bigResult(ctx context.Context, m *core.Manager) (err error) {
	fl, err := bench.StartFloor(r.rt, r.fx.Floor, 1<<20)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, fl.Close()) }()
	viaCore := func() error { return callSized(ctx, m, bench.FixtureTool, in1MiB, 1<<20) }
	viaFloor := func() error { _, err := fl.Trip(); return err }
	lc, lf, err := alternate(r, "1 MiB results, core and floor", r.n.big, viaCore, viaFloor)
	if err != nil {
		return err
	}
	r.rep.Result1MiBMS, r.rep.Floor1MiBMS = bench.Of(lc, time.Millisecond), bench.Of(lf, time.Millisecond)
	return nil
}

// alternate warms both paths, then times n rounds of a then b.
func alternate(r *benchRun, name string, n int, a, b func() error) (la, lb []time.Duration, err error) {
	l, err := alternateN(r, name, n, a, b)
	if err != nil {
		return nil, nil, err
	}
	return l[0], l[1], nil
}

// alternateN warms every path, then times n rounds of each path in turn; l[i] holds the
// samples of paths[i].
func alternateN(r *benchRun, name string, n int, paths ...func() error) (l [][]time.Duration, err error) {
	for range min(warmup, n) {
		for _, p := range paths {
			if err := p(); err != nil {
				return nil, err
			}
		}
	}
	l = make([][]time.Duration, len(paths))
	for i := range n {
		if i%50 == 0 {
			r.step(name, i, n)
		}
		for j, p := range paths {
			el, err := since(p)
			if err != nil {
				return nil, err
			}
			l[j] = append(l[j], el)
		}
	}
	return l, nil
}
