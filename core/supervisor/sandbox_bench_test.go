package supervisor

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cwx-dev/cwx/core/protocol"
	"github.com/cwx-dev/cwx/core/rpc"
	"github.com/cwx-dev/cwx/core/runtime"
	"github.com/cwx-dev/cwx/shared/testenv"
)

// sandboxed sets o.Sandbox to the plugin tier's profile around the fake host, or skips
// without bubblewrap.
func sandboxed(b *testing.B, o *Options) {
	bw, err := runtime.ResolveBwrap("", os.Getenv("PATH"), "")
	if err != nil {
		b.Skipf("bubblewrap is not installed: %v", err)
	}
	o.Sandbox = &runtime.Profile{Bwrap: bw, Runtime: o.Runtime.Path, Bundle: filepath.Dir(o.BundlePath), Data: o.Dir}
}

// BenchmarkSandboxReady measures "tier needed" → Ready with and without the sandbox,
// alternating in the same run so both see the same machine load (ARCHITECTURE.md,
// “Sandbox”). The added cost is the difference of the p50s.
func BenchmarkSandboxReady(b *testing.B) {
	for _, want := range testenv.Runtimes() {
		b.Run(want.Name, func(b *testing.B) {
			rt := want.Get(b)
			lat := map[bool][]time.Duration{}
			for b.Loop() {
				for _, sb := range []bool{false, true} {
					tr := newTier(b, rt, "good", func(o *Options) {
						o.Logger = nil
						if sb {
							sandboxed(b, o)
						}
					})
					t0 := time.Now()
					if _, err := ensure(b, tr); err != nil {
						b.Fatal(err)
					}
					lat[sb] = append(lat[sb], time.Since(t0))
					b.StopTimer()
					tr.Stop()
					b.StartTimer()
				}
			}
			b.ReportMetric(float64(median(lat[false]).Microseconds()), "off-p50-µs")
			b.ReportMetric(float64(median(lat[true]).Microseconds()), "bwrap-p50-µs")
		})
	}
}

// BenchmarkSandboxToolCall measures a 1 KiB tool/call round trip with and without the
// sandbox.
func BenchmarkSandboxToolCall(b *testing.B) {
	for _, want := range testenv.Runtimes() {
		for _, mode := range []string{"off", "bwrap"} {
			b.Run(want.Name+"/"+mode, func(b *testing.B) {
				rt := want.Get(b)
				tr := newTier(b, rt, "good", func(o *Options) {
					o.Logger = nil
					if mode == "bwrap" {
						sandboxed(b, o)
					}
				})
				h, err := ensure(b, tr)
				if err != nil {
					b.Fatal(err)
				}
				p := protocol.ToolCallParams{Handle: 1, CallID: "c", DeadlineMS: 60000,
					Input: json.RawMessage(`"` + strings.Repeat("x", 1<<10) + `"`)}
				var lat []time.Duration
				b.SetBytes(1 << 10)
				for b.Loop() {
					t0 := time.Now()
					if _, err := h.Call(context.Background(), protocol.MethodToolCall, p, rpc.CallOpts{Timeout: time.Minute}); err != nil {
						b.Fatal(err)
					}
					lat = append(lat, time.Since(t0))
				}
				reportPercentiles(b, lat)
			})
		}
	}
}

func median(d []time.Duration) time.Duration {
	if len(d) == 0 {
		return 0
	}
	s := append([]time.Duration(nil), d...)
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
	return s[len(s)/2]
}
