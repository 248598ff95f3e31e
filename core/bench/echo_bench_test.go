package bench

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/cwx-dev/cwx/shared"
	"github.com/cwx-dev/cwx/shared/testenv"
)

// echoVariants are the gRPC transport knobs BenchmarkGRPCEchoKnobs compares with the
// default, by name: the echo server's GOMAXPROCS 1, a write buffer of its own per connection
// (grpc-go shares one by default), read and write buffers of 16 KiB and of 256 KiB (the
// default is 64 KiB), and GOMAXPROCS 1 with 16 KiB buffers.
func echoVariants() ([]string, []EchoOptions) {
	d := shared.DefaultTransport
	with := func(f func(*EchoOptions)) EchoOptions {
		o := EchoOptions{Transport: d}
		f(&o)
		return o
	}
	return []string{"default", "procs1", "ownwb", "buf16k", "buf256k", "procs1-buf16k"}, []EchoOptions{
		{Transport: d},
		with(func(o *EchoOptions) { o.GOMAXPROCS = 1 }),
		with(func(o *EchoOptions) { o.Transport.OwnWriteBuffer = true }),
		with(func(o *EchoOptions) { o.Transport.ReadBuffer, o.Transport.WriteBuffer = 16<<10, 16<<10 }),
		with(func(o *EchoOptions) { o.Transport.ReadBuffer, o.Transport.WriteBuffer = 256<<10, 256<<10 }),
		with(func(o *EchoOptions) {
			o.GOMAXPROCS = 1
			o.Transport.ReadBuffer, o.Transport.WriteBuffer = 16<<10, 16<<10
		}),
	}
}

// BenchmarkGRPCEchoKnobs measures the gRPC echo of `cwx bench` under each of echoVariants
// side by side: each iteration makes one 1 KiB round trip through every variant's echo
// server in turn (starting one variant further on each time), so all meet the same load. Metrics per variant: p50 and p95 (µs), the
// echo server's CPU per round trip (µs) and its private memory after the run (KiB).
func BenchmarkGRPCEchoKnobs(b *testing.B) {
	bin := testenv.BuildCWX(b, "")
	ctx := context.Background()
	names, vs := echoVariants()
	echoes := make([]*GRPCEcho, len(vs))
	for i, o := range vs {
		e, err := StartGRPCEcho(ctx, bin, o)
		if err != nil {
			b.Fatal(err)
		}
		defer e.Close()
		echoes[i] = e
	}
	payload := bytes.Repeat([]byte{'e'}, EchoSize)
	for range 200 {
		for _, e := range echoes {
			if err := e.Trip(payload); err != nil {
				b.Fatal(err)
			}
		}
	}
	lat := make([][]time.Duration, len(vs))
	cpu := make([]int64, len(vs))
	for i, e := range echoes {
		cpu[i] = CPUTimeNS(e.pid)
	}
	b.ResetTimer()
	for n := range b.N {
		for k := range echoes { // each round starts one variant further on, so none is always first
			i := (n + k) % len(echoes)
			e := echoes[i]
			t0 := time.Now()
			if err := e.Trip(payload); err != nil {
				b.Fatal(err)
			}
			lat[i] = append(lat[i], time.Since(t0))
		}
	}
	b.StopTimer()
	for i, e := range echoes {
		p := Percentiles(lat[i])
		name := names[i]
		b.ReportMetric(p[0], name+"-p50-µs")
		b.ReportMetric(p[1], name+"-p95-µs")
		b.ReportMetric(float64(CPUTimeNS(e.pid)-cpu[i])/1e3/float64(b.N), name+"-cpu-µs")
		b.ReportMetric(PrivateMiB(e.pid)*1024, name+"-private-KiB")
	}
}
