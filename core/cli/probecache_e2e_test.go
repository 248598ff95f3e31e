package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cwx-dev/cwx/core/probecache"
	"github.com/cwx-dev/cwx/shared/testenv"
)

// TestOneShotReusesProbes runs the real binary's one-shot `tool call` three times with a
// runtime wrapper that logs every start: the first process probes the runtime (--version,
// and the flags on Node), the second reuses the probe cache and starts the runtime only for
// the host, and after the wrapper is touched the third probes again. doctor, run last,
// probes afresh even though the cache is warm.
func TestOneShotReusesProbes(t *testing.T) {
	bin := buildCWX(t)
	for _, want := range testenv.Runtimes() {
		t.Run(want.Name, func(t *testing.T) {
			rt := want.Get(t)
			dir := t.TempDir()
			log := filepath.Join(dir, "runtime-starts.log")
			wrapper := filepath.Join(dir, rt.Name)
			script := fmt.Sprintf("#!/bin/sh\necho \"$*\" >> %q\nexec %q \"$@\"\n", log, rt.Path)
			if err := os.WriteFile(wrapper, []byte(script), 0o755); err != nil {
				t.Fatal(err)
			}
			// unsandboxed: the wrapper and its log live outside what the sandbox mounts
			home := e2eHome(t, testenv.Runtime{Name: rt.Name, Path: wrapper}, "sandbox = \"off\"\n")
			src, err := filepath.Abs(filepath.Join("..", "..", "testdata", "plugins", "tool"))
			if err != nil {
				t.Fatal(err)
			}
			e2eMust(t, bin, home, "plugin", "enable", e2eTrusted(t, bin, home, src))
			probes := func() []string {
				t.Helper()
				b, err := os.ReadFile(log)
				if err != nil && !os.IsNotExist(err) {
					t.Fatal(err)
				}
				_ = os.Remove(log)
				var out []string
				for _, l := range strings.Split(string(b), "\n") {
					if strings.HasSuffix(l, "--version") {
						out = append(out, l)
					}
				}
				return out
			}
			call := func() {
				t.Helper()
				r := e2eMust(t, bin, home, "tool", "call", "echo_text", "--input", `{"text":"hi"}`, "--approve", "auto")
				if !strings.Contains(r.stdout, "hi") {
					t.Fatalf("tool call: %q", r.stdout)
				}
			}
			probes()                                                                        // what installing and enabling ran
			if err := os.Remove(probecache.Path(home)); err != nil && !os.IsNotExist(err) { // they warmed it: start cold
				t.Fatal(err)
			}
			call()
			if p := probes(); len(p) == 0 {
				t.Fatal("the first call probed nothing: the wrapper is not in use")
			}
			b, err := os.ReadFile(probecache.Path(home))
			if err != nil {
				t.Fatal(err)
			}
			var f struct{ Entries map[string]json.RawMessage }
			if err := json.Unmarshal(b, &f); err != nil {
				t.Fatal(err)
			}
			kinds := map[string]bool{}
			for k := range f.Entries {
				kinds[k[:strings.IndexByte(k, ':')]] = true
			}
			for _, k := range []string{"shim", "runtime-version"} {
				if !kinds[k] {
					t.Errorf("probes.json has no %s entry: %s", k, b)
				}
			}

			call()
			if p := probes(); len(p) != 0 {
				t.Errorf("the second call probed again: %q", p)
			}

			later := time.Now().Add(time.Minute)
			if err := os.Chtimes(wrapper, later, later); err != nil {
				t.Fatal(err)
			}
			call()
			if p := probes(); len(p) == 0 {
				t.Error("the call after the runtime changed reused the old probe")
			}

			r := e2eCWX(t, bin, home, "", "doctor")
			if p := probes(); len(p) == 0 {
				t.Errorf("doctor did not probe afresh:\n%s", r.stdout)
			}
			if !strings.Contains(r.stdout, "all run afresh") {
				t.Errorf("doctor does not say it probes afresh:\n%s", r.stdout)
			}
		})
	}
}
