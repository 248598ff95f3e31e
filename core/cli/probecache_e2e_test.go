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
	jsruntime "github.com/cwx-dev/cwx/core/runtime"
	"github.com/cwx-dev/cwx/shared/testenv"
)

// TestOneShotReusesProbes runs the real binary's one-shot `tool call` three times with a
// runtime wrapper that logs every start: the first process probes the runtime (--version,
// and the flags on Node), the second reuses the probe cache and starts the runtime only for
// the host, and after the wrapper is touched the third probes again. doctor, run last,
// probes afresh even though the cache is warm.
func TestOneShotReusesProbes(t *testing.T) {
	bin := testenv.BuildCWX(t, "")
	for _, want := range testenv.Runtimes() {
		t.Run(want.Name, func(t *testing.T) {
			rt := want.Get(t)
			wrapped, log := loggedRuntime(t, rt)
			// unsandboxed: the wrapper and its log live outside what the sandbox mounts
			home := e2eHome(t, wrapped, "sandbox = \"off\"\n")
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
			if err := os.Chtimes(wrapped.Path, later, later); err != nil {
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

// TestCachedSandboxStillLaunchesUnderBubblewrap: under sandbox = "required" a sandbox probe
// cached by an earlier process is not a pass to run unsandboxed. bubblewrap here is a
// wrapper that logs every start and, once a flag file exists, fails like a kernel that lost
// user namespaces (its file, and so the cache key, unchanged). The next one-shot call skips
// the probe, still starts the runtime through bubblewrap, and fails with the launch's error.
func TestCachedSandboxStillLaunchesUnderBubblewrap(t *testing.T) {
	bin := testenv.BuildCWX(t, "")
	realBwrap, err := jsruntime.ResolveBwrap("", os.Getenv("PATH")+":/usr/bin", "")
	if err != nil {
		if testenv.InCI() {
			t.Fatal("bubblewrap is not installed")
		}
		t.Skip("bubblewrap is not installed")
	}
	for _, want := range testenv.Runtimes() {
		t.Run(want.Name, func(t *testing.T) {
			rt := want.Get(t)
			dir := t.TempDir()
			log, broken := filepath.Join(dir, "bwrap-starts.log"), filepath.Join(dir, "broken")
			bw := filepath.Join(dir, "bwrap")
			script := fmt.Sprintf("#!/bin/sh\necho \"$*\" >> %q\n[ -e %q ] && { echo 'bwrap: No permissions to create new namespace' >&2; exit 1; }\nexec %q \"$@\"\n", log, broken, realBwrap)
			if err := os.WriteFile(bw, []byte(script), 0o755); err != nil {
				t.Fatal(err)
			}
			home := e2eHome(t, rt, fmt.Sprintf("sandbox = \"required\"\nbwrap = %q\n", bw))
			src, err := filepath.Abs(filepath.Join("..", "..", "testdata", "plugins", "tool"))
			if err != nil {
				t.Fatal(err)
			}
			e2eMust(t, bin, home, "plugin", "enable", e2eTrusted(t, bin, home, src))
			starts := func() (probes, launches int) {
				t.Helper()
				b, err := os.ReadFile(log)
				if err != nil && !os.IsNotExist(err) {
					t.Fatal(err)
				}
				_ = os.Remove(log)
				for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
					switch {
					case strings.HasSuffix(l, " --version"):
						probes++
					case l != "":
						launches++
					}
				}
				return probes, launches
			}
			args := []string{"tool", "call", "echo_text", "--input", `{"text":"hi"}`, "--approve", "auto"}
			e2eMust(t, bin, home, args...) // the sandbox works: probed (or cached by enable) and launched
			if _, launches := starts(); launches == 0 {
				t.Fatal("the sandboxed call did not start bubblewrap: the wrapper is not in use")
			}

			if err := os.WriteFile(broken, nil, 0o600); err != nil {
				t.Fatal(err)
			}
			r := e2eCWX(t, bin, home, "", args...)
			probes, launches := starts()
			if probes != 0 {
				t.Errorf("the sandbox probe ran again (%d): the cached success was not used, so this proves nothing", probes)
			}
			if launches == 0 {
				t.Error("with a cached sandbox success the runtime was not started through bubblewrap")
			}
			if r.code == ExitOK || strings.Contains(r.stdout, "hi") {
				t.Errorf("the call succeeded although bubblewrap fails: exit %d\n%s%s", r.code, r.stdout, r.stderr)
			}
			t.Logf("the failed launch, as reported: exit %d: %s", r.code, strings.TrimSpace(r.stderr))
			// the failed start itself drops the cached success, so the next process probes again
			if b, _ := os.ReadFile(probecache.Path(home)); strings.Contains(string(b), `"`+jsruntime.SandboxProbeKind+`:`) {
				t.Errorf("a sandbox success is still cached after the sandboxed tier failed to start:\n%s", b)
			}

			// doctor probes afresh, sees the failure and drops the cached success: the next
			// call probes again and refuses the tier before launching anything.
			if d := e2eCWX(t, bin, home, "", "doctor"); !strings.Contains(d.stdout, "does not work") {
				t.Errorf("doctor does not report the failing sandbox:\n%s", d.stdout)
			}
			if b, _ := os.ReadFile(probecache.Path(home)); strings.Contains(string(b), `"`+jsruntime.SandboxProbeKind+`:`) {
				t.Errorf("a sandbox success is still cached after doctor's probe failed:\n%s", b)
			}
			starts()
			r = e2eCWX(t, bin, home, "", args...)
			if probes, launches := starts(); probes != 1 || launches != 0 {
				t.Errorf("after doctor: %d probes and %d launches, want 1 and 0", probes, launches)
			}
			if r.code == ExitOK || !strings.Contains(r.stderr, "requires a verified OS sandbox") {
				t.Errorf("after doctor the call is not refused for the sandbox: exit %d\n%s", r.code, r.stderr)
			}
		})
	}
}
