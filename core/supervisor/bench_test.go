package supervisor

import (
	"context"
	"encoding/json"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cwx-dev/cwx/core/protocol"
	"github.com/cwx-dev/cwx/core/rpc"
	"github.com/cwx-dev/cwx/shared/testenv"
)

// BenchmarkTierReady measures "tier needed" -> Ready (shim start, runtime start, handshake)
// with the good fake host, and reports the idle shim's RSS.
func BenchmarkTierReady(b *testing.B) {
	for _, want := range testenv.Runtimes() {
		b.Run(want.Name, func(b *testing.B) {
			rt := want.Get(b)
			var rss uint64
			var lat []time.Duration
			for b.Loop() {
				tr := newTier(b, rt, "good", func(o *Options) { o.Logger = nil })
				t0 := time.Now()
				if _, err := ensure(b, tr); err != nil {
					b.Fatal(err)
				}
				lat = append(lat, time.Since(t0))
				b.StopTimer()
				tr.mu.Lock()
				cur := tr.cur
				tr.mu.Unlock()
				if st, err := cur.shim.Stats(context.Background()); err == nil {
					rss = max(rss, st.ShimRSS)
				}
				tr.Stop()
				b.StartTimer()
			}
			b.ReportMetric(float64(rss)/(1<<20), "shimRSS-MiB")
			reportPercentiles(b, lat)
		})
	}
}

// BenchmarkToolCallEcho measures a tool/call round trip through the shim to the echo host.
func BenchmarkToolCallEcho(b *testing.B) {
	for _, want := range testenv.Runtimes() {
		for _, size := range []int{1 << 10, 1 << 20} {
			b.Run(want.Name+"/"+sizeName(size), func(b *testing.B) {
				rt := want.Get(b)
				tr := newTier(b, rt, "good", func(o *Options) { o.Logger = nil })
				h, err := ensure(b, tr)
				if err != nil {
					b.Fatal(err)
				}
				p := protocol.ToolCallParams{Handle: 1, CallID: "c", DeadlineMS: 60000,
					Input: json.RawMessage(`"` + strings.Repeat("x", size) + `"`)}
				var lat []time.Duration
				b.SetBytes(int64(size))
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

func sizeName(n int) string {
	if n >= 1<<20 {
		return "1MiB"
	}
	return "1KiB"
}

func reportPercentiles(b *testing.B, lat []time.Duration) {
	if len(lat) == 0 {
		return
	}
	s := append([]time.Duration(nil), lat...)
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
	pct := func(p float64) float64 { return float64(s[int(p*float64(len(s)-1))].Microseconds()) }
	b.ReportMetric(pct(0.50), "p50-µs")
	b.ReportMetric(pct(0.95), "p95-µs")
	b.ReportMetric(pct(0.99), "p99-µs")
}

// BenchmarkKill9ToReady measures kill -9 of the runtime -> Ready again (default 250 ms
// backoff included; the crash budget is raised so 20 kills do not exhaust it).
func BenchmarkKill9ToReady(b *testing.B) {
	for _, want := range testenv.Runtimes() {
		b.Run(want.Name, func(b *testing.B) {
			rt := want.Get(b)
			tr := newTier(b, rt, "good", func(o *Options) { o.Logger = nil; o.CrashLimit = 1 << 20 })
			if _, err := ensure(b, tr); err != nil {
				b.Fatal(err)
			}
			var lat []time.Duration
			for b.Loop() {
				st := tr.Status()
				t0 := time.Now()
				if err := syscall.Kill(st.RuntimePID, syscall.SIGKILL); err != nil {
					b.Fatal(err)
				}
				for {
					now := tr.Status()
					if now.Generation == st.Generation+1 && now.State == StateReady {
						break
					}
					time.Sleep(200 * time.Microsecond)
				}
				lat = append(lat, time.Since(t0))
			}
			reportPercentiles(b, lat)
		})
	}
}
