package core

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/cwx-dev/cwx/core/internal/mcptest"
	"github.com/cwx-dev/cwx/core/plugins"
	"github.com/cwx-dev/cwx/core/supervisor"
	"github.com/cwx-dev/cwx/nodeshim/jshost"
	"github.com/cwx-dev/cwx/shared/testenv"
)

// cwxBin is the real cwx binary, built once per run: the Manager re-executes it as
// `cwx nodeshim`, exactly as in production.
var cwxBin string

func TestMain(m *testing.M) {
	mcptest.Main() // the test MCP server of mcp_test.go, when asked
	os.Exit(testenv.Main(mainWithShim{m}))
}

type mainWithShim struct{ m *testing.M }

func (w mainWithShim) Run() int {
	dir, err := os.MkdirTemp("", "cwx-core-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	defer func() {
		if seed.dir != "" {
			_ = os.RemoveAll(seed.dir)
		}
	}()
	cwxBin = filepath.Join(dir, "cwx")
	if err := testenv.BuildCWXAt(cwxBin); err != nil {
		fmt.Fprintln(os.Stderr, "build the cwx binary for the shim:", err)
		return 1
	}
	return w.m.Run()
}

// testLogger sends hclog output to the test log until the test's cleanup ran.
func testLogger(t testing.TB) hclog.Logger {
	w := &testWriter{t: t}
	t.Cleanup(func() { w.mu.Lock(); w.done = true; w.mu.Unlock() })
	return hclog.New(&hclog.LoggerOptions{Name: "core", Level: hclog.Debug, Output: w})
}

type testWriter struct {
	t    testing.TB
	mu   sync.Mutex
	done bool
}

func (w *testWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.done {
		w.t.Log(strings.TrimRight(string(p), "\n"))
	}
	return len(p), nil
}

// env is a throwaway cwx home whose config.toml pins one runtime by absolute path.
type env struct {
	t     testing.TB
	rt    testenv.Runtime
	home  string
	store *plugins.Store
	extra string // extra config.toml text
}

func newEnv(t testing.TB, rt testenv.Runtime) *env {
	t.Helper()
	e := &env{t: t, rt: rt, home: t.TempDir()}
	e.writeConfig("")
	if rt.Name == "node" {
		seedSnapshot(t, e.home, rt.Path)
	}
	provided, err := jshost.Provided()
	if err != nil {
		t.Fatal(err)
	}
	if e.store, err = plugins.Open(plugins.Options{Home: e.home, Provided: provided.Provided, Refused: provided.Refused}); err != nil {
		t.Fatal(err)
	}
	return e
}

func (e *env) writeConfig(extra string) {
	e.t.Helper()
	e.extra = extra
	text := fmt.Sprintf("[extension_host]\nruntime = %q\n%s = %q\n\n%s", e.rt.Name, e.rt.Name, e.rt.Path, extra)
	if err := os.WriteFile(filepath.Join(e.home, "config.toml"), []byte(text), 0o600); err != nil {
		e.t.Fatal(err)
	}
}

// fixture returns the path of a fixture plugin: testdata/plugins/<name>, or core's own
// testdata/plugins/<name> when the shared folder has none.
func fixture(t testing.TB, name string) string {
	t.Helper()
	for _, p := range []string{filepath.Join("testdata", "plugins", name), filepath.Join("..", "testdata", "plugins", name)} {
		if _, err := os.Stat(p); err == nil {
			abs, _ := filepath.Abs(p)
			return abs
		}
	}
	t.Fatalf("no fixture plugin %q", name)
	return ""
}

// install installs, trusts and enables fixture plugins; it returns their ids.
func (e *env) install(names ...string) []string {
	e.t.Helper()
	var ids []string
	for _, n := range names {
		res, err := e.store.Install(fixture(e.t, n))
		if err != nil {
			e.t.Fatalf("install %s: %v", n, err)
		}
		rev, err := e.store.Review(res.ID)
		if err != nil {
			e.t.Fatal(err)
		}
		if err := e.store.Trust(res.ID, rev.Token); err != nil {
			e.t.Fatal(err)
		}
		if err := e.store.Enable(res.ID); err != nil {
			e.t.Fatal(err)
		}
		ids = append(ids, res.ID)
	}
	return ids
}

// installNewBuild installs, over the installed fixture plugin name, a copy whose index.mjs
// has one more line: another build (another closure) that needs a new review and trust.
func (e *env) installNewBuild(name string) {
	e.t.Helper()
	dir := e.t.TempDir()
	for _, f := range []string{"plugin.json", "index.mjs"} {
		b, err := os.ReadFile(filepath.Join(fixture(e.t, name), f))
		if err != nil {
			e.t.Fatal(err)
		}
		if f == "index.mjs" {
			b = append(b, "\n// a new build\n"...)
		}
		if err := os.WriteFile(filepath.Join(dir, f), b, 0o644); err != nil {
			e.t.Fatal(err)
		}
	}
	if _, err := e.store.Install(dir); err != nil {
		e.t.Fatal(err)
	}
}

// open opens a Manager on the env with auto approval, closed at the end of the test.
func (e *env) open(mod func(*Options)) *Manager {
	e.t.Helper()
	o := Options{Home: e.home, ShimPath: cwxBin, Logger: testLogger(e.t), Approval: "auto",
		Tier: func(so *supervisor.Options) { so.HandshakeTimeout = 20 * time.Second }}
	if mod != nil {
		mod(&o)
	}
	m, err := Open(context.Background(), o)
	if err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
		defer cancel()
		if err := m.Close(ctx); err != nil {
			e.t.Errorf("close: %v", err)
		}
	})
	return m
}

func reconcile(t testing.TB, m *Manager) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := PluginErrors(m.Reconcile(ctx)); err != nil { // a plugin's own failure is the test's to check
		t.Fatalf("reconcile: %v", err)
	}
}

// eachRuntime runs f as a subtest on Node and on Bun.
func eachRuntime(t *testing.T, f func(t *testing.T, rt testenv.Runtime)) {
	for _, want := range testenv.Runtimes() {
		t.Run(want.Name, func(t *testing.T) { f(t, want.Get(t)) })
	}
}

// eventually polls cond (for real-process tests) up to bound, logging how long it took.
func eventually(t testing.TB, bound time.Duration, what string, cond func() bool) {
	t.Helper()
	begin := time.Now()
	for !cond() {
		if time.Since(begin) > bound {
			t.Fatalf("%s: not within %v", what, bound)
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Logf("%s after %v", what, time.Since(begin).Round(time.Millisecond))
}
