package supervisor

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/cwx-dev/cwx/core/bench"
	"github.com/cwx-dev/cwx/core/protocol"
	"github.com/cwx-dev/cwx/shared"
	"github.com/cwx-dev/cwx/shared/frame"
	"github.com/cwx-dev/cwx/shared/testenv"
)

// BenchmarkShimHop measures what the go-plugin shim adds to a round trip. The same verbatim
// echo runtime (the same runtime binary and script) is reached through the shim's Channel
// as the core runs it (plaintext gRPC in the private socket folder), through a second shim
// with go-plugin's AutoMTLS (tls-*), and directly over pipes; each iteration does one round
// trip on each path, alternately, so all see the same machine load. Reported: p50/p95/p99
// of each path, the added latency at each percentile (shim minus direct), and CPU time per
// round trip of each shim process, the core (this process, per path) and the runtimes.
//
// The node runtime is what the issue measures; cat (a native verbatim echo, since a CWX1
// frame echoed byte for byte is a CWX1 frame) shows the hop's own cost without the
// runtime's event loop.
func BenchmarkShimHop(b *testing.B) {
	path, _ := fakeHost(b, "raw-echo")
	runtimes := []struct {
		name string
		argv []string
	}{{"node", []string{testenv.Node(b).Path, path}}, {"cat", []string{"/bin/sh", "-c", "exec cat <&3 >&4"}}}
	for _, rt := range runtimes {
		for _, size := range []int{1 << 10, 1 << 20} {
			b.Run(rt.name+"/"+sizeName(size), func(b *testing.B) { hop(b, rt.argv, size) })
		}
	}
}

func hop(b *testing.B, argv []string, size int) {
	payload := bytes.Repeat([]byte("x"), size)
	ch, shimPID, rtPID, stop := rawShim(b, argv, false)
	defer stop()
	tch, tlsPID, _, stopTLS := rawShim(b, argv, true)
	defer stopTLS()
	direct, directPID, stopDirect := directEcho(b, argv)
	defer stopDirect()
	through := func(ch *shared.Channel) func(p []byte) ([]byte, error) {
		return func(p []byte) ([]byte, error) {
			if err := ch.Send(context.Background(), p); err != nil {
				return nil, err
			}
			return ch.Recv()
		}
	}
	viaShim, viaTLS := through(ch), through(tch)
	for range 50 { // warm every path (JIT, pools, windows)
		roundTrip(b, viaShim, payload)
		roundTrip(b, viaTLS, payload)
		roundTrip(b, direct, payload)
	}
	pids := []int{shimPID, rtPID, directPID, tlsPID}
	cpu0, sw0 := cpuNanos(pids), ctxSwitches(shimPID)
	var ls, lt, ld []time.Duration
	var coreShim, coreTLS time.Duration
	b.SetBytes(int64(len(payload)))
	for b.Loop() {
		c0 := selfCPU()
		ls = append(ls, roundTrip(b, viaShim, payload))
		c1 := selfCPU()
		lt = append(lt, roundTrip(b, viaTLS, payload))
		coreShim, coreTLS = coreShim+time.Duration(c1-c0), coreTLS+time.Duration(selfCPU()-c1)
		ld = append(ld, roundTrip(b, direct, payload))
	}
	cpu1, sw1 := cpuNanos(pids), ctxSwitches(shimPID)
	n := float64(len(ls))
	b.ReportMetric(float64(sw1-sw0)/n, "shimCtxSw/op")
	b.ReportMetric(float64(cpu1[0]-cpu0[0])/n/1e3, "shimCPU-µs/op")
	b.ReportMetric(float64(cpu1[3]-cpu0[3])/n/1e3, "tlsShimCPU-µs/op")
	b.ReportMetric(float64(cpu1[1]-cpu0[1])/n/1e3, "rtShimCPU-µs/op")
	b.ReportMetric(float64(cpu1[2]-cpu0[2])/n/1e3, "rtDirectCPU-µs/op")
	b.ReportMetric(float64(coreShim.Microseconds())/n, "coreCPU-µs/op")
	b.ReportMetric(float64(coreTLS.Microseconds())/n, "tlsCoreCPU-µs/op")
	s, t, d := bench.Percentiles(ls), bench.Percentiles(lt), bench.Percentiles(ld)
	for i, name := range []string{"p50", "p95", "p99"} {
		b.ReportMetric(s[i], "shim-"+name+"-µs")
		b.ReportMetric(t[i], "tls-"+name+"-µs")
		b.ReportMetric(d[i], "direct-"+name+"-µs")
		b.ReportMetric(s[i]-d[i], "added-"+name+"-µs")
		b.ReportMetric(t[i]-d[i], "tlsAdded-"+name+"-µs")
	}
}

func roundTrip(b *testing.B, trip func([]byte) ([]byte, error), payload []byte) time.Duration {
	t0 := time.Now()
	got, err := trip(payload)
	el := time.Since(t0)
	if err != nil {
		b.Fatal(err)
	}
	if !bytes.Equal(got, payload) {
		b.Fatalf("echo of %d bytes came back as %d different bytes", len(payload), len(got))
	}
	return el
}

// directEcho starts the raw echo runtime with a channel of its own on fd 3 and fd 4, as
// the shim gives it: the baseline without the go-plugin hop.
func directEcho(b *testing.B, argv []string) (trip func([]byte) ([]byte, error), pid int, stop func()) {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = []string{testMarkerEnv + "=" + testenv.Marker()}
	hostIn, in, err := os.Pipe()
	if err != nil {
		b.Fatal(err)
	}
	out, hostOut, err := os.Pipe()
	if err != nil {
		b.Fatal(err)
	}
	cmd.ExtraFiles = []*os.File{hostIn, hostOut}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	_, _ = hostIn.Close(), hostOut.Close()
	w, r := frame.NewWriter(in), frame.NewReader(out)
	trip = func(p []byte) ([]byte, error) {
		if len(p) < 32<<10 { // fits the pipe: the write cannot wait for the echo
			if err := w.WriteFrame(p); err != nil {
				return nil, err
			}
			return r.ReadFrame()
		}
		// A streaming echo (cat) answers while the frame is still being written.
		werr := make(chan error, 1)
		go func() { werr <- w.WriteFrame(p) }()
		got, err := r.ReadFrame()
		if e := <-werr; err == nil {
			err = e
		}
		return got, err
	}
	return trip, cmd.Process.Pid, func() { _, _ = in.Close(), cmd.Wait(); _ = out.Close() }
}

// rawShim starts the real shim with the raw echo runtime and opens its Channel, with
// go-plugin's AutoMTLS when autoMTLS is set.
func rawShim(b testing.TB, argv []string, autoMTLS bool) (ch *shared.Channel, shimPID, rtPID int, stop func()) {
	o := &Options{Tier: protocol.TierPlugin, ShimPath: shimBin, autoMTLS: autoMTLS}
	inc := &incarnation{opts: o}
	o.Logger = testLogger(b).Named("hop")
	o.Logger.SetLevel(0)
	o.StartTimeout = 10 * time.Second
	o.Clock = RealClock{}
	if err := inc.startShim(); err != nil {
		b.Fatal(err)
	}
	var err error
	if inc.ch, err = inc.shim.OpenChannel(context.Background()); err != nil {
		b.Fatal(err)
	}
	if inc.rt, err = inc.shim.Start(context.Background(), shared.LaunchPlan{Argv: argv, Env: []string{testMarkerEnv + "=" + testenv.Marker()}}); err != nil {
		b.Fatal(err)
	}
	// The stop is orderly (stdin's EOF ends the echo, the shim reports the exit, go-plugin
	// shuts the shim down), so a shim started with CWX_SHIM_CPUPROFILE writes its profile.
	stop = func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = inc.ch.CloseSend()
		for {
			if _, err := inc.ch.Recv(); err != nil {
				break
			}
		}
		inc.hardStop(ctx)
	}
	return inc.ch, inc.shimPID, inc.rt.PID, stop
}
