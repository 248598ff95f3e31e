package supervisor

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cwx-dev/cwx/core/config"
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
	// The fake hosts read the pinned module table from nodeshim/jshost/dist, so the
	// repository is bound where a real profile binds the bundle's folder.
	repo, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		b.Fatal(err)
	}
	o.Sandbox = &runtime.Profile{Bwrap: bw, Runtime: o.Runtime.Path, Bundle: repo, Plugins: b.TempDir(), Data: o.Dir}
	if os.Geteuid() == 0 {
		// As the core does as root: the runtime drops to the sandbox uid, which owns the
		// data folder, and the bundle's folder (the repository) is readable by any user.
		uid := config.DefaultSandboxUID
		o.Sandbox.User = &runtime.SandboxUser{UID: uint32(uid), GID: uint32(uid), Shim: o.ShimPath}
		if _, err := os.Stat("/usr/bin/setpriv"); err == nil && os.Getenv("CWX_BENCH_DROP") != "cwx" {
			o.Sandbox.User.Setpriv = "/usr/bin/setpriv" // as core.SandboxUserFor picks it
		}
		if err := os.Chown(o.Dir, uid, uid); err != nil {
			b.Fatal(err)
		}
		if err := os.Chmod(o.Dir, 0o711); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSandboxReady measures "tier needed" → Ready, and Stop, with and without the
// sandbox, alternating in the same loop so both see the same machine load (ARCHITECTURE.md,
// “Sandbox”). Each iteration starts one tier of each kind; the added cost is the
// difference of the p50s.
func BenchmarkSandboxReady(b *testing.B) {
	for _, want := range testenv.Runtimes() {
		b.Run(want.Name, func(b *testing.B) {
			rt := want.Get(b)
			ready := map[bool][]time.Duration{}
			stop := map[bool][]time.Duration{}
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
					ready[sb] = append(ready[sb], time.Since(t0))
					b.StopTimer()
					t1 := time.Now()
					tr.Stop()
					stop[sb] = append(stop[sb], time.Since(t1))
					b.StartTimer()
				}
			}
			for _, sb := range []bool{false, true} {
				name := map[bool]string{false: "off", true: "bwrap"}[sb]
				b.ReportMetric(ms(percentile(ready[sb], 0.50)), name+"-p50-ms")
				b.ReportMetric(ms(percentile(ready[sb], 0.95)), name+"-p95-ms")
				b.ReportMetric(ms(percentile(stop[sb], 0.50)), name+"-stop-p50-ms")
			}
			b.ReportMetric(ms(percentile(ready[true], 0.50)-percentile(ready[false], 0.50)), "added-p50-ms")
		})
	}
}

// BenchmarkSandboxToolCall measures a 1 KiB tool/call round trip through the shim to the
// echo host, on an unsandboxed and a sandboxed tier that run side by side, alternating
// call by call (and which goes first) so both see the same load.
func BenchmarkSandboxToolCall(b *testing.B) {
	for _, want := range testenv.Runtimes() {
		b.Run(want.Name, func(b *testing.B) {
			rt := want.Get(b)
			hosts := map[bool]*Host{}
			for _, sb := range []bool{false, true} {
				tr := newTier(b, rt, "good", func(o *Options) {
					o.Logger = nil
					if sb {
						sandboxed(b, o)
					}
				})
				h, err := ensure(b, tr)
				if err != nil {
					b.Fatal(err)
				}
				hosts[sb] = h
			}
			p := protocol.ToolCallParams{Handle: 1, CallID: "c", DeadlineMS: 60000,
				Input: json.RawMessage(`"` + strings.Repeat("x", 1<<10) + `"`)}
			lat := map[bool][]time.Duration{}
			b.SetBytes(2 << 10)
			order := [][]bool{{false, true}, {true, false}} // neither always goes second
			for i := 0; b.Loop(); i++ {
				for _, sb := range order[i%2] {
					t0 := time.Now()
					if _, err := hosts[sb].Call(context.Background(), protocol.MethodToolCall, p, rpc.CallOpts{Timeout: time.Minute}); err != nil {
						b.Fatal(err)
					}
					lat[sb] = append(lat[sb], time.Since(t0))
				}
			}
			for _, sb := range []bool{false, true} {
				name := map[bool]string{false: "off", true: "bwrap"}[sb]
				b.ReportMetric(us(percentile(lat[sb], 0.50)), name+"-p50-µs")
				b.ReportMetric(us(percentile(lat[sb], 0.95)), name+"-p95-µs")
			}
			b.ReportMetric(us(percentile(lat[true], 0.50)-percentile(lat[false], 0.50)), "added-p50-µs")
		})
	}
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
func us(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1000 }

// percentile returns the p-th fraction of d (nearest rank), 0 when d is empty.
func percentile(d []time.Duration, p float64) time.Duration {
	if len(d) == 0 {
		return 0
	}
	s := append([]time.Duration(nil), d...)
	slices.Sort(s)
	return s[int(p*float64(len(s)-1))]
}
