package core

import (
	"context"
	"errors"
	"testing"

	"github.com/cwx-dev/cwx/core/config"
)

// TestReconcileReturnsPluginFailures: Reconcile joins one *PluginError per enabled plugin
// that is not active (its kind says whose fault), again on the next Reconcile while it is
// held back, and Owners lists every owner with its state, reason and activation time.
func TestReconcileReturnsPluginFailures(t *testing.T) {
	m, ft, e := newFake(t, map[string][]string{"fixture-tool": {"alpha"}, "fixture-command": {"beta"}, "fixture-faults": {"gamma"}},
		"tool", "command", "faults")
	ft.activateFail["fixture-tool"] = "Error: apply threw"
	e.writeConfig("[plugins.\"fixture-faults\".config]\nwhen = 2026-01-01T00:00:00Z\n") // refused before any host is asked
	for round := range 2 {
		err := m.Reconcile(context.Background())
		failed, rest := PluginErrors(err)
		if rest != nil || len(failed) != 2 {
			t.Fatalf("round %d: rest %v, failed %+v", round, rest, failed)
		}
		tool, faults := failed[1], failed[0]
		if tool.Plugin != "fixture-tool" || tool.State != "failed" || tool.Reason != "Error: apply threw" || !errors.Is(tool, ErrExecutionFailed) {
			t.Fatalf("round %d: %+v", round, tool)
		}
		if faults.Plugin != "fixture-faults" || !errors.Is(faults, ErrInvalidInput) || faults.Reason == "" {
			t.Fatalf("round %d: %+v", round, faults)
		}
		if pe, ok := errors.AsType[*PluginError](err); !ok || pe.Plugin == "" || !errors.Is(err, ErrExecutionFailed) {
			t.Fatalf("round %d: the joined error does not match: %v", round, err)
		}
	}
	if ft.activations("fixture-tool") != 1 {
		t.Fatal("the failed plugin was retried")
	}
	owners := m.Owners()
	if len(owners) != 3 {
		t.Fatalf("owners: %+v", owners)
	}
	byID := map[string]OwnerInfo{}
	for _, o := range owners {
		byID[o.PluginID] = o
	}
	if o := byID["fixture-command"]; o.State != "active" || o.Activation <= 0 || o.Reason != "" {
		t.Fatalf("active owner: %+v", o)
	}
	if o := byID["fixture-tool"]; o.State != "failed" || o.Reason != "Error: apply threw" {
		t.Fatalf("failed owner: %+v", o)
	}
	if owners[0].PluginID > owners[1].PluginID || owners[1].PluginID > owners[2].PluginID {
		t.Fatalf("not sorted: %+v", owners)
	}
}

// TestPluginErrorsSplit: a joined error is split into its plugin failures and the rest.
func TestPluginErrorsSplit(t *testing.T) {
	tier := errors.New("start the plugin tier: no runtime")
	pe := &PluginError{Plugin: "a", State: "failed", Reason: "x", Kind: ErrExecutionFailed}
	failed, rest := PluginErrors(errors.Join(tier, pe))
	if len(failed) != 1 || failed[0] != pe || !errors.Is(rest, tier) || errors.Is(rest, ErrExecutionFailed) {
		t.Fatalf("failed %+v rest %v", failed, rest)
	}
	if failed, rest := PluginErrors(errors.Join(pe)); len(failed) != 1 || rest != nil {
		t.Fatalf("only failures: %+v %v", failed, rest)
	}
	if _, rest := PluginErrors(&config.Error{}); rest == nil {
		t.Fatal("a config error was dropped")
	}
}
