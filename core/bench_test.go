package core

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cwx-dev/cwx/core/bench"
	"github.com/cwx-dev/cwx/core/owners"
	"github.com/cwx-dev/cwx/core/protocol"
	"github.com/cwx-dev/cwx/core/rpc"
	"github.com/cwx-dev/cwx/core/runtime"
	"github.com/cwx-dev/cwx/shared/testenv"
)

// callFunc is one tool/call round trip of a tool of the bench-tool fixture; it returns the
// result's text.
type callFunc func(ctx context.Context, tool string, in json.RawMessage) (string, error)

// benchFixture is the fixture plugin the call benchmarks load: `bench_text` answers
// {"bytes": N} with N bytes of text, `bench_echo` returns its input text.
const benchFixture = "bench-tool"

// BenchmarkCallTool measures Manager.CallTool (auto approval) through the real shim, the
// supervisor's host (the shim without the Manager), and the same bundle reached by a
// core/rpc peer directly over pipes (no go-plugin hop). Rows: round-trip percentiles for a
// small input with a 1 KiB and a 1 MiB result, a 1 MiB echo (1 MiB both ways), and calls
// per second at 1, 16 and 64 concurrent callers (1 KiB results).
func BenchmarkCallTool(b *testing.B) {
	for _, want := range testenv.Runtimes() {
		b.Run(want.Name, func(b *testing.B) {
			rt := want.Get(b)
			b.Run("manager", func(b *testing.B) { benchCalls(b, managerCaller(b, rt)) })
			b.Run("shim", func(b *testing.B) { benchCalls(b, shimCaller(b, rt)) })
			b.Run("direct", func(b *testing.B) { benchCalls(b, directCaller(b, rt)) })
		})
	}
}

// benchRow is one latency row: a tool, its input and the size of the text it returns.
type benchRow struct {
	name, tool string
	in         json.RawMessage
	size       int
}

func benchRows() []benchRow {
	var rows []benchRow
	for _, size := range []int{1 << 10, 1 << 20} {
		rows = append(rows, benchRow{"result-" + sizeName(size), "bench_text", textInput(size), size})
	}
	return append(rows, benchRow{"echo-1MiB", "bench_echo", echoInput(1 << 20), 1 << 20})
}

func benchCalls(b *testing.B, call callFunc) {
	for _, row := range benchRows() {
		b.Run(row.name, func(b *testing.B) {
			b.SetBytes(int64(row.size))
			var lat []time.Duration
			for b.Loop() {
				t0 := time.Now()
				out, err := call(context.Background(), row.tool, row.in)
				if err != nil {
					b.Fatal(err)
				}
				lat = append(lat, time.Since(t0))
				if len(out) != row.size {
					b.Fatalf("result of %d bytes, want %d", len(out), row.size)
				}
			}
			reportPercentiles(b, lat)
		})
	}
	in := textInput(1 << 10)
	for _, callers := range []int{1, 16, 64} {
		b.Run("callers-"+strconv.Itoa(callers), func(b *testing.B) {
			var next atomic.Int64
			var wg sync.WaitGroup
			var failed atomic.Pointer[error]
			begin := time.Now()
			for range callers {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for next.Add(1) <= int64(b.N) {
						if _, err := call(context.Background(), "bench_text", in); err != nil {
							failed.Store(&err)
							return
						}
					}
				}()
			}
			wg.Wait()
			if p := failed.Load(); p != nil {
				b.Fatal(*p)
			}
			b.ReportMetric(float64(b.N)/time.Since(begin).Seconds(), "calls/s")
		})
	}
}

// textInput asks bench_text for size bytes.
func textInput(size int) json.RawMessage {
	return json.RawMessage(`{"bytes":` + strconv.Itoa(size) + `}`)
}

// echoInput gives bench_echo size bytes of text.
func echoInput(size int) json.RawMessage {
	return json.RawMessage(`{"text":"` + strings.Repeat("x", size) + `"}`)
}

func sizeName(n int) string {
	if n >= 1<<20 {
		return fmt.Sprintf("%dMiB", n>>20)
	}
	return fmt.Sprintf("%dKiB", n>>10)
}

func reportPercentiles(b *testing.B, lat []time.Duration) {
	if len(lat) == 0 {
		return
	}
	for i, p := range bench.Percentiles(lat) {
		b.ReportMetric(p, []string{"p50-µs", "p95-µs", "p99-µs"}[i])
	}
}

func managerCaller(b *testing.B, rt testenv.Runtime) callFunc {
	e := newEnv(b, rt)
	e.install(benchFixture)
	m := e.open(func(o *Options) { o.Logger = nil; o.PollInterval = -1 })
	reconcile(b, m)
	return func(ctx context.Context, tool string, in json.RawMessage) (string, error) {
		res, err := m.CallTool(ctx, tool, in, CallOptions{})
		return res.Text(), err
	}
}

// shimCaller sends tool/call straight to the tier's host through the supervisor (the real
// shim), skipping the Manager's gate, validation and bookkeeping: the Manager's own cost is
// manager minus shim, the go-plugin hop's is shim minus direct.
func shimCaller(b *testing.B, rt testenv.Runtime) callFunc {
	e := newEnv(b, rt)
	e.install(benchFixture)
	m := e.open(func(o *Options) { o.Logger = nil; o.PollInterval = -1 })
	var plugin owners.Tier
	setTierAround(m, func(t protocol.HostKey, real func(protocol.HostKey) (owners.Tier, error)) (owners.Tier, error) {
		tr, err := real(t)
		if t.Tier == protocol.TierPlugin {
			plugin = tr
		}
		return tr, err
	})
	reconcile(b, m)
	h, err := plugin.Ensure(context.Background())
	if err != nil {
		b.Fatal(err)
	}
	handles := map[string]uint64{}
	for _, name := range []string{"bench_text", "bench_echo"} {
		info, ok := m.reg.Tool(name)
		if !ok {
			b.Fatalf("no live tool %s", name)
		}
		handles[name] = info.Handle
	}
	var seq atomic.Uint64
	return func(ctx context.Context, tool string, in json.RawMessage) (string, error) {
		p := protocol.ToolCallParams{Handle: handles[tool], CallID: "s" + strconv.FormatUint(seq.Add(1), 10), Input: in, DeadlineMS: 120000}
		msg, err := h.Call(ctx, protocol.MethodToolCall, p, rpc.CallOpts{Timeout: ToolCallDeadline})
		if err != nil {
			return "", err
		}
		r, _ := protocol.ValueOf[protocol.ToolResult](msg)
		return ToolResult{Content: r.Content}.Text(), nil
	}
}

// directCaller runs the embedded bundle under rt with the channel on plain pipes and a
// core/rpc peer (bench.Direct): the handshake, one activation of the bench fixture, then
// tool/call straight to its handles.
func directCaller(b *testing.B, rt testenv.Runtime) callFunc {
	res, err := runtime.Resolve(context.Background(), runtime.Options{Kind: runtime.Kind(rt.Name), NodePath: rt.Path, BunPath: rt.Path})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	d, err := bench.StartDirect(ctx, res.Chosen, b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(d.Close)
	entry, _ := filepath.Abs(filepath.Join(fixture(b, benchFixture), "index.mjs"))
	if _, err := d.Activate(ctx, "fixture-bench-tool", entry); err != nil {
		b.Fatal(err)
	}
	handles := map[string]uint64{"bench_text": d.Handle("bench_text"), "bench_echo": d.Handle("bench_echo")}
	return func(ctx context.Context, tool string, in json.RawMessage) (string, error) {
		r, err := d.CallResult(ctx, handles[tool], in)
		if err != nil {
			return "", err
		}
		return ToolResult{Content: r.Content}.Text(), nil
	}
}
