package core

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cwx-dev/cwx/core/bundle"
	"github.com/cwx-dev/cwx/core/catalog"
	"github.com/cwx-dev/cwx/core/owners"
	"github.com/cwx-dev/cwx/core/plugins"
	"github.com/cwx-dev/cwx/core/protocol"
	"github.com/cwx-dev/cwx/core/registry"
	"github.com/cwx-dev/cwx/shared/testenv"
)

// fakeOn opens another Manager on e's home whose plugin tier is a fakeTier registering
// tools, and counts the tiers it creates.
func fakeOn(t *testing.T, e *env, tools map[string][]string, mod func(*Options)) (*Manager, *fakeTier, *atomic.Int32) {
	t.Helper()
	m := e.open(func(o *Options) {
		o.PollInterval = -1
		if mod != nil {
			mod(o)
		}
	})
	ft := &fakeTier{m: m, t: protocol.SharedHost(protocol.TierPlugin), tools: tools, activateFail: map[string]string{}, activateGate: map[string]chan struct{}{},
		deactivate: protocol.DeactivateResult{Disposed: true, Leaked: []string{}}}
	var created atomic.Int32
	setTier(m, func(protocol.HostKey) (owners.Tier, error) { created.Add(1); return ft, nil })
	return m, ft, &created
}

func lazy(o *Options) { o.Lazy = true }

// warmFake installs the fixtures and activates them once, eagerly, on a fake tier, so that
// the catalog holds an entry for each.
func warmFake(t *testing.T, tools map[string][]string, fixtures ...string) *env {
	t.Helper()
	m, _, e := newFake(t, tools, fixtures...)
	reconcile(t, m)
	for id, names := range tools {
		for _, n := range names {
			if !hasTool(m, n) {
				t.Fatalf("warm-up: %s of %s not live", n, id)
			}
		}
	}
	if err := m.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	return e
}

func toolInfo(m *Manager, name string) (ToolInfo, bool) {
	for _, t := range m.Tools() {
		if t.Name == name {
			return t, true
		}
	}
	return ToolInfo{}, false
}

var twoTools = map[string][]string{"fixture-tool": {"echo_text"}, "fixture-command": {"greet_tool"}}

// TestCatalogWrittenAfterActivation: every successful activation leaves the plugin's
// registrations in the catalog under the key of its bytes, config and bundle, mode 0600.
func TestCatalogWrittenAfterActivation(t *testing.T) {
	e := warmFake(t, twoTools, "tool", "command")
	m, _, _ := fakeOn(t, e, nil, nil)
	desired, _, _, err := e.store.Desired(nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range desired {
		got, ok := m.Catalog().Lookup(catalogKey(d))
		if !ok || len(got.Tools) != 1 || got.Tools[0].Name != twoTools[d.ID][0] {
			t.Errorf("%s: catalog entry %+v, %v", d.ID, got, ok)
		}
		if fi, err := os.Stat(m.Catalog().Path(d.ID)); err != nil || fi.Mode().Perm() != 0o600 {
			t.Errorf("%s: entry file %v, %v", d.ID, fi, err)
		}
	}
	if got := m.Catalog().Dir(); got != filepath.Join(e.home, "catalog") {
		t.Errorf("catalog folder %s, want $CWX_HOME/catalog", got)
	}
}

// TestWarmListingStartsNoTier: with every enabled plugin cached, Advertise creates no tier
// (no shim, no runtime) and Tools lists the cached tools marked Cached; a call then
// activates only the plugin that owns the tool.
func TestWarmListingStartsNoTier(t *testing.T) {
	e := warmFake(t, twoTools, "tool", "command")
	m, ft, created := fakeOn(t, e, twoTools, lazy)
	if err := m.Advertise(context.Background()); err != nil {
		t.Fatal(err)
	}
	if n := created.Load(); n != 0 {
		t.Fatalf("a warm listing created %d tiers", n)
	}
	for _, name := range []string{"echo_text", "greet_tool"} {
		if ti, ok := toolInfo(m, name); !ok || !ti.Cached || ti.Origin != "extension:"+ti.PluginID {
			t.Errorf("%s: %+v, %v; want it listed from the catalog", name, ti, ok)
		}
	}
	if st := m.Host(protocol.TierPlugin).State; st != "idle" {
		t.Errorf("plugin tier %s, want idle", st)
	}
	if _, err := m.CallTool(context.Background(), "echo_text", input(`{}`), CallOptions{}); err != nil {
		t.Fatal(err)
	}
	if ft.activations("fixture-tool") != 1 || ft.activations("fixture-command") != 0 {
		t.Errorf("activations: tool %d, command %d; want only the owner of the tool", ft.activations("fixture-tool"), ft.activations("fixture-command"))
	}
	if ti, ok := toolInfo(m, "echo_text"); !ok || ti.Cached {
		t.Errorf("after the call echo_text is %+v, want live", ti)
	}
	if ti, ok := toolInfo(m, "greet_tool"); !ok || !ti.Cached {
		t.Errorf("greet_tool is %+v, want still cached", ti)
	}
}

// TestStaleEntryNeverUsed: once the plugin's config, its bytes or the host bundle changed,
// its entry is not used: the plugin is activated as if there were none.
func TestStaleEntryNeverUsed(t *testing.T) {
	other := bundle.Embedded()
	other.Bytes = append(slices.Clone(other.Bytes), []byte("\n// another bundle\n")...)
	for _, tc := range []struct {
		name   string
		change func(e *env)
		mod    func(*Options)
	}{
		{name: "config", change: func(e *env) { e.writeConfig("[plugins.\"fixture-tool\".config]\nround = 2\n") }},
		{name: "bundle", mod: func(o *Options) { o.Bundle = other }},
		{name: "bytes", change: func(e *env) {
			d := t.TempDir()
			for _, f := range []string{"plugin.json", "index.mjs"} {
				b, err := os.ReadFile(filepath.Join(fixture(t, "tool"), f))
				if err != nil {
					t.Fatal(err)
				}
				if f == "index.mjs" {
					b = append(b, []byte("\n// new bytes\n")...)
				}
				if err := os.WriteFile(filepath.Join(d, f), b, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			res, err := e.store.Install(d)
			if err != nil {
				t.Fatal(err)
			}
			rev, err := e.store.Review(res.ID)
			if err != nil {
				t.Fatal(err)
			}
			if err := e.store.Trust(res.ID, rev.Token); err != nil {
				t.Fatal(err)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := warmFake(t, twoTools, "tool", "command")
			if tc.change != nil {
				tc.change(e)
			}
			m, ft, _ := fakeOn(t, e, twoTools, func(o *Options) {
				o.Lazy = true
				if tc.mod != nil {
					tc.mod(o)
				}
			})
			if err := m.Advertise(context.Background()); err != nil {
				t.Fatal(err)
			}
			if ft.activations("fixture-tool") != 1 {
				t.Fatalf("fixture-tool activated %d times, want once: its stale entry stood in for it", ft.activations("fixture-tool"))
			}
			if ti, ok := toolInfo(m, "echo_text"); !ok || ti.Cached {
				t.Errorf("echo_text %+v, want live", ti)
			}
			wantCommand := 0
			if tc.name == "bundle" {
				wantCommand = 1 // the bundle is every plugin's
			}
			if n := ft.activations("fixture-command"); n != wantCommand {
				t.Errorf("fixture-command activated %d times, want %d", n, wantCommand)
			}
		})
	}
}

// TestCorruptCatalogRebuilt: a corrupt entry is not used (the plugin is activated), and the
// activation writes it afresh.
func TestCorruptCatalogRebuilt(t *testing.T) {
	e := warmFake(t, twoTools, "tool", "command")
	m, ft, _ := fakeOn(t, e, twoTools, lazy)
	path := m.Catalog().Path("fixture-tool")
	if err := os.WriteFile(path, []byte(`{"version":1,"key":{"plugin":"fixture-tool"`), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := m.Advertise(context.Background()); err != nil {
		t.Fatal(err)
	}
	if ft.activations("fixture-tool") != 1 || ft.activations("fixture-command") != 0 {
		t.Fatalf("activations tool %d, command %d: want the corrupt one activated, the other cached",
			ft.activations("fixture-tool"), ft.activations("fixture-command"))
	}
	desired, _, _, err := e.store.Desired(nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range desired {
		if d.ID == "fixture-tool" {
			if got, ok := m.Catalog().Lookup(catalogKey(d)); !ok || !got.HasTool("echo_text") {
				t.Errorf("entry not rebuilt: %+v, %v", got, ok)
			}
		}
	}
}

// forge rewrites a plugin's entry in the catalog with f.
func forge(t *testing.T, m *Manager, e *env, id string, f func(*catalog.Entry)) {
	t.Helper()
	desired, _, _, err := e.store.Desired(nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range desired {
		if d.ID != id {
			continue
		}
		got, ok := m.Catalog().Lookup(catalogKey(d))
		if !ok {
			t.Fatalf("no entry for %s", id)
		}
		f(&got)
		if err := m.Catalog().Put(got); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Fatalf("%s not desired", id)
}

// TestMovedToolReResolved: an entry that lists a tool its plugin no longer registers is
// replaced by the activation the call caused, and the call goes on to the plugin whose
// entry lists it too (the tool moved there).
func TestMovedToolReResolved(t *testing.T) {
	e := warmFake(t, twoTools, "tool", "command")
	m, ft, _ := fakeOn(t, e, twoTools, lazy)
	// fixture-command's entry claims echo_text as well; fixture-command sorts first
	forge(t, m, e, "fixture-command", func(c *catalog.Entry) {
		c.Tools = append(c.Tools, catalog.Tool{Name: "echo_text", Description: "moved away", InputSchema: []byte(`{"type":"object"}`)})
	})
	if err := m.Reconcile(context.Background()); err != nil {
		t.Fatal(err)
	}
	res, err := m.CallTool(context.Background(), "echo_text", input(`{}`), CallOptions{})
	if err != nil {
		t.Fatalf("the moved tool's call: %v", err)
	}
	if res.Text() != "ok" {
		t.Errorf("result %q", res.Text())
	}
	if ft.activations("fixture-command") != 1 || ft.activations("fixture-tool") != 1 {
		t.Errorf("activations command %d, tool %d; want both once", ft.activations("fixture-command"), ft.activations("fixture-tool"))
	}
	if ti, _ := toolInfo(m, "echo_text"); ti.PluginID != "fixture-tool" || ti.Cached {
		t.Errorf("echo_text %+v, want live from fixture-tool", ti)
	}
	if entry, _ := entryOf(t, e, m, "fixture-command"); entry.HasTool("echo_text") {
		t.Error("fixture-command's entry was not replaced")
	}
}

// TestVanishedToolSaysSo: a call to a tool only an out-of-date entry lists activates that
// plugin, replaces its entry, and fails naming the plugin and what happened.
func TestVanishedToolSaysSo(t *testing.T) {
	e := warmFake(t, twoTools, "tool", "command")
	m, ft, _ := fakeOn(t, e, twoTools, lazy)
	forge(t, m, e, "fixture-command", func(c *catalog.Entry) {
		c.Tools = append(c.Tools, catalog.Tool{Name: "ghost_tool", Description: "gone", InputSchema: []byte(`{"type":"object"}`)})
	})
	if err := m.Reconcile(context.Background()); err != nil {
		t.Fatal(err)
	}
	if ti, ok := toolInfo(m, "ghost_tool"); !ok || !ti.Cached {
		t.Fatalf("ghost_tool %+v, %v; want listed from the forged entry", ti, ok)
	}
	_, err := m.CallTool(context.Background(), "ghost_tool", input(`{}`), CallOptions{})
	nl, ok := errors.AsType[*NotLiveError](err)
	if !ok || !errors.Is(err, ErrNotAvailable) || nl.Plugin != "fixture-command" || !strings.Contains(err.Error(), "no longer registers it") {
		t.Fatalf("call of a vanished tool: %v", err)
	}
	if ft.activations("fixture-command") != 1 || ft.activations("fixture-tool") != 0 {
		t.Errorf("activations command %d, tool %d", ft.activations("fixture-command"), ft.activations("fixture-tool"))
	}
	if _, ok := toolInfo(m, "ghost_tool"); ok {
		t.Error("ghost_tool is still listed")
	}
}

// TestEagerActivatesEverything: the default (eager) Reconcile activates every desired
// plugin, cached or not, and lists nothing from the catalog.
func TestEagerActivatesEverything(t *testing.T) {
	e := warmFake(t, twoTools, "tool", "command")
	m, ft, _ := fakeOn(t, e, twoTools, nil)
	reconcile(t, m)
	if ft.activations("fixture-tool") != 1 || ft.activations("fixture-command") != 1 {
		t.Fatalf("activations tool %d, command %d; want both", ft.activations("fixture-tool"), ft.activations("fixture-command"))
	}
	for _, ti := range m.Tools() {
		if ti.Cached {
			t.Errorf("%s listed from the catalog by an eager Manager", ti.Name)
		}
	}
}

// TestLazyHookHolderDenies runs on Node and Bun: with a warm catalog a lazy Reconcile
// activates the plugin holding a pre-execute hook and leaves the tool's plugin to the
// call; the hook still sees the call and denies it. After a listing (Advertise, which
// defers the hook holder too) the call still activates the hook holder first.
func TestLazyHookHolderDenies(t *testing.T) {
	eachRuntime(t, func(t *testing.T, rt testenv.Runtime) {
		e := newEnv(t, rt)
		e.install("tool", "hooks")
		// cold, as `cwx tool call` runs: Reconcile in the background, the call as soon as
		// its tool is live; nothing is cached, so the call waits for every plugin that may
		// hold a hook
		cold := e.open(lazy)
		done := make(chan error, 1)
		go func() { done <- cold.Reconcile(context.Background()) }()
		eventually(t, 30*time.Second, "echo_text live", func() bool { return hasTool(cold, "echo_text") })
		_, err := cold.CallTool(context.Background(), "echo_text", input(`{"text":"deny"}`), CallOptions{})
		if !errors.Is(err, ErrDenied) {
			t.Fatalf("cold: %v, want the hook's deny", err)
		}
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		if err := cold.Close(context.Background()); err != nil {
			t.Fatal(err)
		}
		for _, listFirst := range []bool{false, true} {
			m := e.open(lazy)
			if listFirst {
				err = m.Advertise(context.Background())
			} else {
				err = m.Reconcile(context.Background())
			}
			if err != nil {
				t.Fatal(err)
			}
			_, toolOwner := m.reg.Owner("fixture-tool")
			hookOwner, hooked := m.reg.Owner("fixture-hooks")
			if toolOwner || (!listFirst && (!hooked || hookOwner.State != registry.Active)) || (listFirst && hooked) {
				t.Fatalf("listFirst %v: tool owner %v, hook owner %+v %v", listFirst, toolOwner, hookOwner, hooked)
			}
			_, err = m.CallTool(context.Background(), "echo_text", input(`{"text":"deny"}`), CallOptions{})
			if !errors.Is(err, ErrDenied) || !strings.Contains(err.Error(), "pre-execute hook of plugin `fixture-hooks` denied the call") {
				t.Fatalf("listFirst %v: %v, want the hook's deny", listFirst, err)
			}
			res, err := m.CallTool(context.Background(), "echo_text", input(`{"text":"hello"}`), CallOptions{})
			if err != nil || !strings.Contains(string(res.Structured), `"echoed":"hello"`) {
				t.Fatalf("listFirst %v: %s, %v", listFirst, res.Structured, err)
			}
			if err := m.Close(context.Background()); err != nil {
				t.Fatal(err)
			}
		}
	})
}

// TestLazyWarmListingReal runs on Node and Bun: after one eager activation, a lazy
// Manager lists the fixture's tool and command from the catalog without creating a tier,
// and a call then runs on a tier it starts.
func TestLazyWarmListingReal(t *testing.T) {
	eachRuntime(t, func(t *testing.T, rt testenv.Runtime) {
		e := newEnv(t, rt)
		e.install("tool", "command")
		warm := e.open(nil)
		reconcile(t, warm)
		if err := warm.Close(context.Background()); err != nil {
			t.Fatal(err)
		}
		m := e.open(lazy)
		var created atomic.Int32
		setTierAround(m, func(t protocol.HostKey, real func(protocol.HostKey) (owners.Tier, error)) (owners.Tier, error) {
			created.Add(1)
			return real(t)
		})
		if err := m.Advertise(context.Background()); err != nil {
			t.Fatal(err)
		}
		if n := created.Load(); n != 0 {
			t.Fatalf("a warm listing created %d tiers", n)
		}
		if ti, ok := toolInfo(m, "echo_text"); !ok || !ti.Cached || len(ti.InputSchema) == 0 {
			t.Fatalf("echo_text %+v, %v", ti, ok)
		}
		var cmd CommandInfo
		for _, c := range m.Commands() {
			if c.Name == "greet" {
				cmd = c
			}
		}
		if !cmd.Cached || cmd.PluginID != "fixture-command" {
			t.Fatalf("greet %+v, want cached", cmd)
		}
		res, err := m.RunCommand(context.Background(), "greet", "", CallOptions{})
		if err != nil || res.Kind == "" {
			t.Fatalf("greet: %+v, %v", res, err)
		}
		if created.Load() != 1 {
			t.Errorf("tiers created %d, want 1", created.Load())
		}
		if _, ok := m.reg.Owner("fixture-tool"); ok {
			t.Error("the command's call activated the tool's plugin too")
		}
	})
}

// catalogKey is the catalog key of d under the embedded host bundle, as the owner layer
// writes it.
func catalogKey(d plugins.Desired) catalog.Key {
	return catalog.Key{PluginID: d.ID, Closure: d.Closure, Config: d.Config.Digest, Bundle: bundle.Embedded().SHA256()}
}

// entryOf reads plugin id's catalog entry for its current bytes and config.
func entryOf(t *testing.T, e *env, m *Manager, id string) (catalog.Entry, bool) {
	t.Helper()
	desired, _, _, err := e.store.Desired(nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range desired {
		if d.ID == id {
			return m.Catalog().Lookup(catalogKey(d))
		}
	}
	t.Fatalf("%s is not desired", id)
	return catalog.Entry{}, false
}
