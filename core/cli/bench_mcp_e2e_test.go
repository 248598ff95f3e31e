package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cwx-dev/cwx/core"
	"github.com/cwx-dev/cwx/core/bench"
	jsruntime "github.com/cwx-dev/cwx/core/runtime"
	"github.com/cwx-dev/cwx/shared/testenv"
)

// mcpFigureKeys are the keys of each transport's object in `cwx bench --mcp --json`.
var mcpFigureKeys = []string{"added_1kib_us", "added_1mib_ms", "cwx_1kib_us", "cwx_1mib_ms", "sdk_1kib_us", "sdk_1mib_ms"}

// TestBenchMCPQuickJSON runs `cwx bench --mcp --quick --json` (Node as the configured host;
// no MCP call uses it): the report's keys, every latency measured, and no process of the
// binary left once it has exited (the stdio server under the core's keeper, the baseline's
// own server).
func TestBenchMCPQuickJSON(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the quick MCP bench")
	}
	bin := testenv.BuildCWX(t, "")
	rt := testenv.Node(t)
	home := e2eHome(t, rt, "")
	res := e2eMust(t, bin, home, "bench", "--mcp", "--quick", "--json", "--runtime", rt.Name)
	var top map[string]json.RawMessage
	if err := json.Unmarshal([]byte(res.stdout), &top); err != nil {
		t.Fatalf("bench --mcp --json is not an object: %v\n%s", err, res.stdout)
	}
	checkKeys(t, "the report", top, map[string][]string{"runtime": nil, "stdio": mcpFigureKeys, "http": mcpFigureKeys,
		"machine": {"cores", "load", "memory"}, "date": nil})
	var rep bench.MCPReport
	if err := json.Unmarshal([]byte(res.stdout), &rep); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(rep.Runtime, "node ") {
		t.Errorf("runtime %q, want node's", rep.Runtime)
	}
	for name, f := range map[string]bench.MCPTransport{"stdio": rep.Stdio, "http": rep.HTTP} {
		for fig, l := range map[string]bench.Latency{"cwx_1kib_us": f.CWX1KiBUS, "sdk_1kib_us": f.SDK1KiBUS, "cwx_1mib_ms": f.CWX1MiBMS, "sdk_1mib_ms": f.SDK1MiBMS} {
			if l.P50 <= 0 || l.P95 < l.P50 || l.P99 < l.P95 {
				t.Errorf("%s.%s = %+v: want measured percentiles", name, fig, l)
			}
		}
		if f.Added1KiBUS != bench.Added(f.CWX1KiBUS, f.SDK1KiBUS) || f.Added1MiBMS != bench.Added(f.CWX1MiBMS, f.SDK1MiBMS) {
			t.Errorf("%s: added figures %+v %+v are not cwx minus the SDK", name, f.Added1KiBUS, f.Added1MiBMS)
		}
	}
	if left := processesOf(t, bin, 10*time.Second); len(left) > 0 {
		t.Errorf("processes of %s outlived `cwx bench --mcp`: %s", bin, strings.Join(left, "; "))
	}
}

// processesOf lists the processes running the binary bin ("pid argv"), waiting up to bound
// for them to end.
func processesOf(t *testing.T, bin string, bound time.Duration) []string {
	t.Helper()
	if real, err := filepath.EvalSymlinks(bin); err == nil {
		bin = real // what /proc/<pid>/exe names
	}
	for end := time.Now().Add(bound); ; time.Sleep(20 * time.Millisecond) {
		var left []string
		ents, err := os.ReadDir("/proc")
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range ents {
			pid, err := strconv.Atoi(e.Name())
			if err != nil {
				continue
			}
			if exe, err := os.Readlink(fmt.Sprintf("/proc/%d/exe", pid)); err == nil && exe == bin {
				argv, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
				left = append(left, fmt.Sprintf("%d %s", pid, bytes.ReplaceAll(bytes.TrimRight(argv, "\x00"), []byte{0}, []byte(" "))))
			}
		}
		if len(left) == 0 || time.Now().After(end) {
			return left
		}
	}
}

func TestBenchMCPFlags(t *testing.T) {
	for _, args := range [][]string{
		{"bench", "--mcp", "--only", "live"},
		{"bench", "--mcp", "--isolated", "2"},
		{"bench", "--mcp", "--plugins", "2"},
	} {
		var out, errb bytes.Buffer
		code := Main(args, &bytes.Buffer{}, &out, &errb)
		if code != ExitUsage || !strings.Contains(errb.String(), "--mcp measures its own MCP servers; leave out --only, --plugins and --isolated") {
			t.Errorf("cwx %v: exit %d, %q", args, code, errb.String())
		}
	}
	var out bytes.Buffer
	if code := Main([]string{"bench", "--help"}, &bytes.Buffer{}, &out, &bytes.Buffer{}); code != 0 || strings.Contains(out.String(), "mcp-server") {
		t.Errorf("cwx bench --help: exit %d, and the hidden mcp-server shown:\n%s", code, out.String())
	}
}

// BenchmarkBenchMCP1MiB makes the 1 MiB calls of `cwx bench --mcp` one path at a time, for a
// CPU profile of what the core adds (BENCHMARKS.md, “MCP servers through the gate”):
//
//	go test -run '^$' -bench 'BenchmarkBenchMCP1MiB/cwx/stdio' -benchtime 300x -cpuprofile /tmp/mcp.prof ./core/cli
func BenchmarkBenchMCP1MiB(b *testing.B) {
	bin := testenv.BuildCWX(b, "")
	rt := testenv.Node(b)
	mb := &mcpBench{benchRun: &benchRun{rt: jsruntime.Runtime{Kind: jsruntime.Kind(rt.Name), Path: rt.Path}, exe: bin, tmp: b.TempDir(), log: coreLogger(os.Stderr)}}
	srv, err := bench.StartMCPHTTP()
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = srv.Close() })
	if err := mb.writeHome(srv.URL); err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	m, err := mb.openManager(ctx)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = closeManager(m) })
	stdio, err := bench.DialMCPStdio(ctx, []string{bin, "bench", "mcp-server"})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = stdio.Close() })
	web, err := bench.DialMCPHTTP(ctx, srv.URL)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = web.Close() })
	for _, tr := range []struct {
		name, server string
		peer         *bench.MCPPeer
	}{{"stdio", benchStdioServer, stdio}, {"http", benchHTTPServer, web}} {
		tool := core.MCPToolPrefix + tr.server + "_" + bench.MCPTool
		paths := map[string]func() error{
			"cwx": func() error { return callSized(ctx, m, tool, in1MiB, 1<<20) },
			"sdk": func() error { return tr.peer.Blob(ctx, in1MiB, 1<<20) },
		}
		for _, path := range []string{"cwx", "sdk"} {
			b.Run(path+"/"+tr.name, func(b *testing.B) {
				call := paths[path]
				if err := call(); err != nil { // the server started, the pools warm
					b.Fatal(err)
				}
				for b.Loop() {
					if err := call(); err != nil {
						b.Fatalf("%s: %v", tool, err)
					}
				}
			})
		}
	}
}
