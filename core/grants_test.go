package core

import (
	"context"
	"strings"
	"testing"

	"github.com/cwx-dev/cwx/core/owners"
	"github.com/cwx-dev/cwx/core/protocol"
	"github.com/cwx-dev/cwx/shared/testenv"
)

// TestHookNetworkNeedsConfirm: a plugin granted a network origin that registers a
// pre-execute hook is refused the hook (it would see every tool call's arguments and could
// send them away) unless config.toml sets confirm_hook_network = true.
func TestHookNetworkNeedsConfirm(t *testing.T) {
	for _, confirm := range []bool{false, true} {
		e := newEnv(t, testenv.Runtime{Name: "node", Path: "/nonexistent/node"})
		e.install("hook-guard")
		e.writeConfig("\n[plugins.\"fixture-guard\"]\nnetwork = [\"https://api.example.com\"]\n" +
			map[bool]string{true: "confirm_hook_network = true\n"}[confirm])
		m := e.open(func(o *Options) { o.PollInterval = -1 })
		setTier(m, func(k protocol.HostKey) (owners.Tier, error) {
			return &fakeTier{m: m, t: k, tools: map[string][]string{}, hooks: map[string]bool{"fixture-guard": true},
				activateFail: map[string]string{}, activateGate: map[string]chan struct{}{},
				deactivate: protocol.DeactivateResult{Disposed: true, Leaked: []string{}}}, nil
		})
		err := m.Reconcile(context.Background())
		if got := m.HostOf("fixture-guard"); !got.Isolated() {
			t.Fatalf("host %v: a network grant must isolate the plugin", got)
		}
		if !confirm {
			if err := m.FlushDiagnostics(context.Background()); err != nil {
				t.Fatal(err)
			}
			rec, _ := m.Plugins().Get("fixture-guard")
			said := false
			for _, d := range rec.Diagnostics {
				said = said || d.Kind == "refused" && strings.Contains(d.Message, "sees every tool call's arguments") && strings.Contains(d.Message, "set confirm_hook_network = true")
			}
			if err == nil || !said {
				t.Fatalf("reconcile without the confirmation: %v, diagnostics %+v; want the hook refused naming confirm_hook_network", err, rec.Diagnostics)
			}
			if len(m.reg.Hooks()) != 0 {
				t.Fatal("the hook is live without the confirmation")
			}
			continue
		}
		if err != nil || len(m.reg.Hooks()) != 1 {
			t.Fatalf("with the confirmation: %v, hooks %v", err, m.reg.Hooks())
		}
	}
}

// TestContainmentNamesAHookHolder: the containment line of a plugin holding a pre-execute
// hook says it sees every tool call's arguments.
func TestContainmentNamesAHookHolder(t *testing.T) {
	m, ft, _ := newFake(t, map[string][]string{"fixture-tool": {"echo_text"}}, "tool", "hook-guard")
	ft.hooks = map[string]bool{"fixture-guard": true}
	reconcile(t, m)
	if c := m.own.Containment("fixture-guard"); !strings.Contains(c, "holds a pre-execute hook: sees every tool call's arguments") {
		t.Fatalf("containment of the guard: %q", c)
	}
	if c := m.own.Containment("fixture-tool"); strings.Contains(c, "pre-execute hook") {
		t.Fatalf("containment of a plugin without hooks: %q", c)
	}
}
