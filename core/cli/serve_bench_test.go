package cli

import (
	"context"
	"encoding/json"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cwx-dev/cwx/core"
	"github.com/cwx-dev/cwx/shared/testenv"
)

// BenchmarkServeMCPAddedLatency measures what MCP over stdio adds to a tool call with a
// 1 KiB result: each iteration makes one call through a real `cwx serve --mcp` subprocess
// (the Go SDK client on its stdio) and one Manager.CallTool in this process, on the same
// home and fixture, so both see the same machine at the same moment. Metrics: the p50 of
// each path and the p50 of the per-iteration difference.
func BenchmarkServeMCPAddedLatency(b *testing.B) {
	bin := testenv.BuildCWX(b, "")
	fixture, err := filepath.Abs(filepath.Join("..", "..", "testdata", "plugins", "bench-tool"))
	if err != nil {
		b.Fatal(err)
	}
	for _, want := range testenv.Runtimes() {
		b.Run(want.Name, func(b *testing.B) {
			rt := want.Get(b)
			home := e2eHome(b, rt, "")
			e2eMust(b, bin, home, "plugin", "enable", e2eTrusted(b, bin, home, fixture))
			s := startServe(b, bin, home, false, "--approve", "auto", "--approve-extensions")
			defer s.stop(b)
			ctx := context.Background()
			m, err := core.Open(ctx, core.Options{Home: home, ShimPath: bin, Approval: "auto", PollInterval: -1})
			if err != nil {
				b.Fatal(err)
			}
			defer func() { _ = m.Close(ctx) }()
			if err := m.Reconcile(ctx); err != nil {
				b.Fatal(err)
			}
			in := json.RawMessage(`{"bytes":1024}`)
			viaMCP := func() time.Duration {
				start := time.Now()
				res, err := s.session.CallTool(ctx, &mcp.CallToolParams{Name: "bench_text", Arguments: in})
				if err != nil || res.IsError || len(mcpText(res)) != 1024 {
					b.Fatalf("MCP call: %v %+v", err, res)
				}
				return time.Since(start)
			}
			direct := func() time.Duration {
				start := time.Now()
				res, err := m.CallTool(ctx, "bench_text", in, core.CallOptions{})
				if err != nil || len(res.Text()) != 1024 {
					b.Fatalf("Manager call: %v", err)
				}
				return time.Since(start)
			}
			for range 20 { // warm both paths
				viaMCP()
				direct()
			}
			var mcpT, mgrT, added []float64
			b.ResetTimer()
			for range b.N {
				a, d := viaMCP(), direct()
				mcpT = append(mcpT, us(a))
				mgrT = append(mgrT, us(d))
				added = append(added, us(a)-us(d))
			}
			b.StopTimer()
			b.ReportMetric(p50(mcpT), "mcp-p50-µs")
			b.ReportMetric(p50(mgrT), "manager-p50-µs")
			b.ReportMetric(p50(added), "added-p50-µs")
		})
	}
}

func us(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e3 }

func p50(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	return s[len(s)/2]
}
