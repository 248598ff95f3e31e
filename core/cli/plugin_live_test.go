package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/cwx-dev/cwx/core"
	"github.com/cwx-dev/cwx/core/plugins/plugintest"
	"github.com/cwx-dev/cwx/shared/testenv"
)

// Owner and Reload make the fake a core.Manager for `cwx plugin show` and `reload`: a plugin
// with live registrations is active; reload is recorded, then reconciles.
func (f *fakeCore) Owner(id string) (core.OwnerInfo, bool) {
	info := core.OwnerInfo{PluginID: id, Tier: "plugin", State: ownerActive, Generation: 7, Tools: []string{}, Commands: []string{}}
	for _, t := range f.Tools() {
		if t.PluginID == id {
			info.Tools = append(info.Tools, t.Name)
		}
	}
	for _, c := range f.Commands() {
		if c.PluginID == id {
			info.Commands = append(info.Commands, c.Name)
		}
	}
	return info, len(info.Tools)+len(info.Commands) > 0
}

func (f *fakeCore) Reload(ctx context.Context) error {
	f.record("reload")
	return f.Reconcile(ctx)
}

// enabledHello is replFake with plugin "hello" trusted and enabled and one tool and one
// command of its own live.
func enabledHello(t *testing.T) *fakeCore {
	t.Helper()
	f := replFake(t)
	mustCLI(t, "plugin", "trust", "hello", "--token", reviewToken(t, "hello"))
	mustCLI(t, "plugin", "enable", "hello")
	f.tools = append(f.tools, core.ToolInfo{Name: "hello_probe", PluginID: "hello", Origin: "extension:hello", Description: "Probe.\x1b[5m", InputSchema: json.RawMessage(`{"type":"object"}`)})
	f.commands = append(f.commands, core.CommandInfo{Name: "probe", PluginID: "hello", Origin: "extension:hello", Description: "Probe.", ArgumentHint: "<x>"})
	return f
}

func liveOf(t *testing.T, id string) PluginLive {
	t.Helper()
	s, _, err := openPlugins()
	if err != nil {
		t.Fatal(err)
	}
	r, err := s.Get(id)
	if err != nil {
		t.Fatal(err)
	}
	live, err := showLive(context.Background(), &bytes.Buffer{}, s, r, s.Status(r))
	if err != nil {
		t.Fatal(err)
	}
	return live
}

// showLivePart runs `cwx plugin show id` (the production writer) and returns its live part:
// the text from the "live" line on.
func showLivePart(t *testing.T, id string) []byte {
	t.Helper()
	out := mustCLI(t, "plugin", "show", id)
	i := strings.Index(out, "\nlive ")
	if i < 0 {
		t.Fatalf("no live part in plugin show:\n%s", out)
	}
	return []byte(out[i+1:])
}

// showLiveJSON runs `cwx plugin show id --json` and returns its "live" member, indented as
// the CLI indents a top-level value.
func showLiveJSON(t *testing.T, id string) []byte {
	t.Helper()
	var sh map[string]json.RawMessage
	out := mustCLI(t, "plugin", "show", id, "--json")
	if err := json.Unmarshal([]byte(out), &sh); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	var compact, js bytes.Buffer
	if err := json.Compact(&compact, sh["live"]); err != nil {
		t.Fatal(err)
	}
	if err := json.Indent(&js, compact.Bytes(), "", "  "); err != nil {
		t.Fatal(err)
	}
	return append(js.Bytes(), '\n')
}

func TestPluginLiveGoldens(t *testing.T) {
	f := enabledHello(t) // the fake's other tools belong to other plugins
	checkGolden(t, "plugin-live.golden", showLivePart(t, "hello"))
	checkGolden(t, "plugin-live-json.golden", showLiveJSON(t, "hello"))
	if !f.logged("reconcile") {
		t.Fatal("show did not activate the plugin")
	}
}

func TestPluginLiveNotRunning(t *testing.T) {
	f := enabledHello(t)
	f.tools, f.commands = nil, nil
	f.reconcile = func(context.Context, *fakeCore) error {
		return fmt.Errorf("start the plugin tier: %w: no usable node runtime", core.ErrNotAvailable)
	}
	checkGolden(t, "plugin-live-not-running.golden", showLivePart(t, "hello"))
}

// activatingCore is a core whose plugins never finish activating.
type activatingCore struct{ *fakeCore }

func (activatingCore) Owner(id string) (core.OwnerInfo, bool) {
	return core.OwnerInfo{PluginID: id, Tier: "plugin", State: ownerActivating, Generation: 1}, true
}

// show waits for an activation that never settles for liveWait, then reports it and
// still closes the core.
func TestPluginLiveStillActivatingIsBounded(t *testing.T) {
	f := enabledHello(t)
	f.tools, f.commands = nil, nil
	old := openCore
	t.Cleanup(func() { openCore = old })
	openCore = func(context.Context, core.Options) (liveCore, error) {
		f.mu.Lock()
		defer f.mu.Unlock()
		f.opened = true
		return activatingCore{f}, nil
	}
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		live := liveOf(t, "hello")
		if waited := time.Since(start); waited < liveWait || waited > liveWait+settleGrace+time.Second {
			t.Fatalf("waited %s, want about %s", waited, liveWait)
		}
		var text bytes.Buffer
		writeLiveOnce(&text, "hello", live, newDiagSet(false))
		if live.State != ownerActivating || text.String() != "live     still activating after 20s; show stopped waiting (see CWX_LOG=debug)\n" {
			t.Fatalf("live %+v\n%s", live, text.String())
		}
	})
	if !f.closed {
		t.Fatal("the core was not closed")
	}
}

// A plugin that is not enabled and trusted is shown without opening the core.
func TestPluginShowNotStartedOpensNothing(t *testing.T) {
	f := replFake(t) // "hello" installed, not trusted
	out := mustCLI(t, "plugin", "show", "hello")
	if !strings.Contains(out, "live     not started: not trusted (cwx plugin review hello)\n") {
		t.Fatalf("show of an untrusted plugin:\n%s", out)
	}
	mustCLI(t, "plugin", "trust", "hello", "--token", reviewToken(t, "hello"))
	var sh PluginShow
	if err := json.Unmarshal([]byte(mustCLI(t, "plugin", "show", "hello", "--json")), &sh); err != nil {
		t.Fatal(err)
	}
	if sh.Live.Started || sh.Live.State != ownerNotStarted || sh.Live.Reason != "trusted, disabled" {
		t.Fatalf("live of a disabled plugin: %+v", sh.Live)
	}
	if f.opened {
		t.Fatal("show opened the core for a plugin it must not start")
	}
}

func TestPluginReloadGoldens(t *testing.T) {
	f := enabledHello(t)
	checkGolden(t, "plugin-reload.golden", []byte(mustCLI(t, "plugin", "reload")))
	checkGolden(t, "plugin-reload-json.golden", []byte(mustCLI(t, "plugin", "reload", "--json")))
	if !f.logged("reload") {
		t.Fatalf("reload did not call Manager.Reload: %q", f.log)
	}
	mustCLI(t, "plugin", "disable", "hello")
	f.setTools()
	f.mu.Lock()
	f.commands = nil
	f.mu.Unlock()
	f.reconcile = func(context.Context, *fakeCore) error {
		return fmt.Errorf("start the plugin tier: %w: no usable node runtime", core.ErrNotAvailable)
	}
	r := runPluginCLI(t, "plugin", "reload")
	if r.code != ExitUnavailable || !strings.Contains(r.stdout, "reload: start the plugin tier") || !strings.Contains(r.stdout, "hello: not started (trusted, disabled)") {
		t.Fatalf("reload without a runtime: %+v", r)
	}
}

// liveWant is what `cwx plugin show ID --json` must report live for one plugin.
type liveWant struct {
	id       string
	state    string
	tools    []string
	commands []string
	reason   string // a substring of the owner's reason
	problem  string // the kind of a problem recorded by this activation
}

func (w liveWant) check(t *testing.T, sh PluginShow) {
	t.Helper()
	var tools, cmds []string
	for _, x := range sh.Live.Tools {
		tools = append(tools, x.Name)
	}
	for _, x := range sh.Live.Commands {
		cmds = append(cmds, x.Name)
	}
	kinds := map[string]bool{}
	for _, p := range sh.Live.Problems {
		kinds[p.Kind] = true
	}
	if !sh.Live.Started || sh.Live.State != w.state || fmt.Sprint(tools) != fmt.Sprint(w.tools) || fmt.Sprint(cmds) != fmt.Sprint(w.commands) ||
		!strings.Contains(sh.Live.Reason, w.reason) || (w.problem != "" && !kinds[w.problem]) || sh.Live.Error != "" {
		t.Errorf("%s: live %+v, want %+v", w.id, sh.Live, w)
	}
}

// TestPluginShowLiveEndToEnd runs the real cwx binary and the real bundle
// through the real shim, on Node and on Bun. `cwx plugin show` lists what the fixture
// plugins and the published DSH package have live, the refusal of a clashing name, an
// activation that kills its host, one that never settles and a fault; `cwx plugin reload`
// reports every plugin.
func TestPluginShowLiveEndToEnd(t *testing.T) {
	rts := testenv.Runtimes()
	bin := testenv.BuildCWX(t, "")
	fixtures, err := filepath.Abs(filepath.Join("..", "..", "testdata", "plugins"))
	if err != nil {
		t.Fatal(err)
	}
	dsh := plugintest.NpmTarball(t, plugintest.SessionLogExport)
	const dshID = "@deepseek-ai/dsh-session-log-export"
	happy := []liveWant{
		{id: "fixture-tool", state: "active", tools: []string{"echo_text"}},
		{id: "fixture-command", state: "active", commands: []string{"greet", "rawcheck"}},
		{id: "fixture-two-entries", state: "active", tools: []string{"first_tool", "second_tool"}},
		{id: "fixture-config", state: "active", tools: []string{"config_echo"}},
		{id: dshID, state: "active", commands: []string{"export"}},
		// read_file is a native tool's name: refused, and the refusal fails the activation
		{id: "fixture-name-clash", state: "failed", reason: "tool name `read_file` collides with the built-in tool `read_file`; choose another name", problem: "refused"},
	}
	timeRE := regexp.MustCompile(`\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z`)
	for _, want := range rts {
		t.Run(want.Name, func(t *testing.T) {
			rt := want.Get(t)
			home := e2eHome(t, rt, "[plugins.fixture-config.config]\ntarget = \"world\"\n")
			must := func(args ...string) cliResult { t.Helper(); return e2eMust(t, bin, home, args...) }
			showJSON := func(id string) PluginShow {
				t.Helper()
				var sh PluginShow
				if err := json.Unmarshal([]byte(must("plugin", "show", id, "--json").stdout), &sh); err != nil {
					t.Fatal(err)
				}
				return sh
			}
			norm := func(s string) []byte {
				s = normalize(s, home, "$CWX_HOME", fixtures, "$FIXTURES", dsh, "$TARBALL")
				s = timeRE.ReplaceAllString(s, "TIME")
				s = regexp.MustCompile(`"(generation|elapsed_ms)": \d+`).ReplaceAllString(s, `"$1": N`)
				return []byte(s)
			}
			sources := []string{dsh}
			for _, d := range []string{"tool", "command", "two-entries", "config", "name-clash", "crash-activation", "never-settles", "faults"} {
				sources = append(sources, filepath.Join(fixtures, d))
			}
			for _, src := range sources {
				e2eTrusted(t, bin, home, src)
			}

			// Not enabled: shown without starting anything.
			if sh := showJSON("fixture-tool"); sh.Live.Started || sh.Live.State != ownerNotStarted || sh.Live.Reason != "trusted, disabled" {
				t.Fatalf("disabled fixture-tool: %+v", sh.Live)
			}
			for _, w := range happy {
				must("plugin", "enable", w.id)
			}
			clash := must("plugin", "show", "fixture-name-clash") // first: its ring holds this run only
			checkGolden(t, "plugin-show-live-clash.golden", norm(clash.stdout))
			dshShow := must("plugin", "show", dshID)
			checkGolden(t, "plugin-show-live-dsh.golden", norm(dshShow.stdout))
			for _, w := range happy {
				w.check(t, showJSON(w.id))
			}
			checkGolden(t, "plugin-show-live-json.golden", norm(must("plugin", "show", "fixture-tool", "--json").stdout))
			for _, r := range []cliResult{dshShow, clash} {
				if r.stderr != "" {
					t.Errorf("show did not shut down cleanly:\n%s", r.stderr)
				}
			}

			var rl PluginReloadResult
			if err := json.Unmarshal([]byte(must("plugin", "reload", "--json").stdout), &rl); err != nil {
				t.Fatal(err)
			}
			states := map[string]string{}
			for _, p := range rl.Plugins {
				states[p.ID] = p.State
			}
			for _, w := range happy {
				if states[w.id] != w.state {
					t.Errorf("reload: %s is %q, want %q", w.id, states[w.id], w.state)
				}
			}
			if states["fixture-faults"] != ownerNotStarted || len(rl.Plugins) != 9 || rl.Error != "" {
				t.Errorf("reload: %+v", rl)
			}
			checkGolden(t, "plugin-reload-live.golden", norm(must("plugin", "reload").stdout))
			for _, w := range happy {
				must("plugin", "disable", w.id)
			}

			// Failures, one plugin enabled at a time.
			for _, w := range []liveWant{
				{id: "fixture-crash-activation", state: "failed", reason: "host crashed during activation", problem: "activation_failed"},
				{id: "fixture-never-settles", state: "failed", reason: "activation exceeded", problem: "activation_failed"},
			} {
				must("plugin", "enable", w.id)
				w.check(t, showJSON(w.id))
				must("plugin", "disable", w.id)
			}

			// A fault in one process (a timer callback throws) stays in the ring for show.
			must("plugin", "enable", "fixture-faults")
			r := e2eCWX(t, bin, home, "/call timer_throw {}\n/call withdraw_twice {}\n", "repl", "--approve", "auto")
			// The fault lands while withdraw_twice runs (its call ends "extension faulted: …") or,
			// on a loaded machine, before it starts (it is refused: "… which faulted: …").
			if !strings.Contains(r.stderr, "faulted: Error: thrown in a timer callback") {
				t.Fatalf("repl: the plugin did not fault:\n%s%s", r.stdout, r.stderr)
			}
			sh := showJSON("fixture-faults")
			faulted := false
			for _, d := range sh.Diagnostics {
				faulted = faulted || d.Kind == "faulted" && strings.Contains(d.Message, "thrown in a timer callback")
			}
			if !faulted || sh.Live.State != "active" || len(sh.Live.Tools) != 6 {
				t.Fatalf("show after a fault: diagnostics %+v, live %+v", sh.Diagnostics, sh.Live)
			}
			if out := must("plugin", "show", "fixture-faults").stdout; !strings.Contains(out, "faulted: Error: thrown in a timer callback\n") {
				t.Fatalf("show does not say the plugin faulted:\n%s", out)
			}
			must("plugin", "disable", "fixture-faults")

			// Staged bytes changed after review: re-hashed before activation, not run.
			must("plugin", "enable", "fixture-tool")
			sh = showJSON("fixture-tool")
			entry := filepath.Join(sh.StageDir, "index.mjs")
			for _, c := range []struct {
				p    string
				mode os.FileMode
			}{{sh.StageDir, 0o755}, {entry, 0o644}} {
				if err := os.Chmod(c.p, c.mode); err != nil {
					t.Fatal(err)
				}
			}
			if err := os.WriteFile(entry, []byte("export function apply() {}\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			sh = showJSON("fixture-tool")
			changed := len(sh.Live.Problems) == 1 && sh.Live.Problems[0].Kind == "receipt" && strings.Contains(sh.Live.Problems[0].Message, "content changed, review again")
			if !changed || sh.Live.State != ownerNotActivated || len(sh.Live.Tools) != 0 {
				t.Fatalf("show of changed bytes: %+v", sh.Live)
			}
		})
	}
}
