package supervisor

import (
	"bytes"
	"context"
	"os/exec"
	"testing"
	"time"

	"github.com/cwx-dev/cwx/core/internal/testenv"
	"github.com/cwx-dev/cwx/core/protocol"
	"github.com/cwx-dev/cwx/shared"
	"github.com/cwx-dev/cwx/shared/frame"
)

// BenchmarkShimHop measures what the go-plugin shim adds to a round trip: the same
// verbatim echo runtime reached through the shim's Channel, and directly over pipes.
func BenchmarkShimHop(b *testing.B) {
	rt := testenv.Node(b)
	for _, size := range []int{1 << 10, 1 << 20} {
		payload := bytes.Repeat([]byte("x"), size)
		b.Run("shim/"+sizeName(size), func(b *testing.B) {
			ch, stop := rawShim(b, rt)
			defer stop()
			roundTrips(b, payload, func(p []byte) ([]byte, error) {
				if err := ch.Send(context.Background(), p); err != nil {
					return nil, err
				}
				return ch.Recv()
			})
		})
		b.Run("direct/"+sizeName(size), func(b *testing.B) {
			path, _ := fakeHost(b, "raw-echo")
			cmd := exec.Command(rt.Path, path)
			in, _ := cmd.StdinPipe()
			out, _ := cmd.StdoutPipe()
			if err := cmd.Start(); err != nil {
				b.Fatal(err)
			}
			defer func() { _ = in.Close(); _ = cmd.Wait() }()
			w, r := frame.NewWriter(in), frame.NewReader(out)
			roundTrips(b, payload, func(p []byte) ([]byte, error) {
				if err := w.WriteFrame(p); err != nil {
					return nil, err
				}
				return r.ReadFrame()
			})
		})
	}
}

func roundTrips(b *testing.B, payload []byte, rt func([]byte) ([]byte, error)) {
	var lat []time.Duration
	b.SetBytes(int64(len(payload)))
	for b.Loop() {
		t0 := time.Now()
		got, err := rt(payload)
		if err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(t0))
		if len(got) != len(payload) {
			b.Fatalf("echo of %d bytes came back as %d", len(payload), len(got))
		}
	}
	reportPercentiles(b, lat)
}

// rawShim starts the real shim with the raw echo runtime and opens its Channel.
func rawShim(b *testing.B, rt testenv.Runtime) (*shared.Channel, func()) {
	path, _ := fakeHost(b, "raw-echo")
	o := &Options{Tier: protocol.TierPlugin, ShimPath: shimBin}
	inc := &incarnation{opts: o}
	o.Logger = testLogger(b).Named("hop")
	o.Logger.SetLevel(0)
	o.StartTimeout = 10 * time.Second
	o.Clock = RealClock{}
	if err := inc.startShim(); err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	inc.stopCh = cancel
	var err error
	if inc.ch, err = inc.shim.OpenChannel(ctx); err != nil {
		b.Fatal(err)
	}
	if inc.rt, err = inc.shim.Start(context.Background(), shared.LaunchPlan{Argv: []string{rt.Path, path}, Env: []string{testMarkerEnv + "=" + testenv.Marker()}}); err != nil {
		b.Fatal(err)
	}
	return inc.ch, func() { inc.hardStop(context.Background()) }
}
