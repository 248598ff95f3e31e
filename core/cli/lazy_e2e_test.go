package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cwx-dev/cwx/shared/testenv"
)

// TestWarmListingSpawnsNothing runs the real cwx binary on Node and on Bun: once a plugin's
// catalog entry is written (its first activation, by the first `cwx tool list`), the next
// `cwx tool list` and `cwx command list` answer from the catalog and start no process: the
// runtime, reached only through a wrapper that logs every start, is never run (not even
// for its version), and go-plugin never starts a shim. A call then starts both.
func TestWarmListingSpawnsNothing(t *testing.T) {
	bin := testenv.BuildCWX(t, "")
	for _, want := range testenv.Runtimes() {
		t.Run(want.Name, func(t *testing.T) {
			rt := want.Get(t)
			wrapped, log := loggedRuntime(t, rt)
			// unsandboxed: the wrapper and its log live outside what the sandbox mounts
			home := e2eHome(t, wrapped, "sandbox = \"off\"\n")
			for _, p := range []string{"tool", "command"} {
				src, err := filepath.Abs(filepath.Join("..", "..", "testdata", "plugins", p))
				if err != nil {
					t.Fatal(err)
				}
				e2eMust(t, bin, home, "plugin", "enable", e2eTrusted(t, bin, home, src))
			}
			starts := func() string {
				b, err := os.ReadFile(log)
				if err != nil && !os.IsNotExist(err) {
					t.Fatal(err)
				}
				return string(b)
			}

			listed := func(warm bool, args ...string) map[string]string {
				t.Helper()
				r := e2eMust(t, bin, home, append(args, "--json")...)
				var items []map[string]any
				if err := json.Unmarshal([]byte(r.stdout), &items); err != nil {
					t.Fatalf("%v: %v\n%s", args, err, r.stdout)
				}
				out := map[string]string{}
				for _, it := range items {
					name, _ := it["name"].(string)
					src, _ := it["source"].(string)
					out[name] = src
				}
				if warm && strings.Contains(r.stderr, "starting plugin") {
					t.Errorf("%v started a shim:\n%s", args, r.stderr)
				}
				return out
			}
			t.Setenv("CWX_LOG", "debug") // go-plugin logs "starting plugin" when it starts a shim

			// cold: the plugins are activated and their entries written
			if _, ok := listed(false, "tool", "list")["echo_text"]; !ok {
				t.Fatal("cold tool list: echo_text missing")
			}
			if starts() == "" {
				t.Fatal("the cold listing did not start the runtime: the wrapper is not in use")
			}
			if err := os.Remove(log); err != nil {
				t.Fatal(err)
			}

			// warm: nothing starts
			tools := listed(true, "tool", "list")
			if src, ok := tools["echo_text"]; !ok || (src != "" && src != "cached") {
				t.Errorf("warm tool list: echo_text %q, %v; want it from the catalog", src, ok)
			}
			commands := listed(true, "command", "list")
			if src, ok := commands["greet"]; !ok || (src != "" && src != "cached") {
				t.Errorf("warm command list: greet %q, %v", src, ok)
			}
			if s := starts(); s != "" {
				t.Fatalf("a warm listing started the runtime:\n%s", s)
			}

			r := e2eMust(t, bin, home, "tool", "call", "echo_text", "--input", `{"text":"hi"}`, "--approve", "auto")
			if !strings.Contains(r.stdout, "hi") || starts() == "" {
				t.Errorf("the call after a warm listing: %q, runtime starts %q", r.stdout, starts())
			}
		})
	}
}
