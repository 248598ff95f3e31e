package core

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/cwx-dev/cwx/core/catalog"
	"github.com/cwx-dev/cwx/core/registry"
	"github.com/cwx-dev/cwx/core/supervisor"
)

// TestHookHolderPerCatalogDenies: a plugin whose catalog entry (its last successful
// activation with these bytes and config, possibly in another process) lists a pre-execute
// hook holds one; while its activation is failed every gated call is denied, eager or lazy,
// naming it, its state and the fix; the Manager remembers what it logged, to warn only on a change.
func TestHookHolderPerCatalogDenies(t *testing.T) {
	for _, mode := range []struct {
		name string
		mod  func(*Options)
	}{{"eager", nil}, {"lazy", lazy}} {
		t.Run(mode.name, func(t *testing.T) {
			_, _, e := newFake(t, nil, "hook-guard")
			desired, _, _, err := e.store.Desired(nil)
			if err != nil || len(desired) != 1 {
				t.Fatalf("desired %+v, %v", desired, err)
			}
			m, ft, _ := fakeOn(t, e, nil, mode.mod)
			entry := catalog.Entry{Key: catalogKey(desired[0]), Tools: []catalog.Tool{}, Commands: []catalog.Command{},
				Hooks: []catalog.Hook{{Event: registry.HookEvent}}, Sections: []catalog.Section{}}
			if err := m.Catalog().Put(entry); err != nil {
				t.Fatal(err)
			}
			ft.mu.Lock()
			ft.activateFail["fixture-guard"] = "apply threw: TypeError: x is undefined"
			ft.mu.Unlock()
			if _, err := PluginErrors(m.Reconcile(context.Background())); err != nil {
				t.Fatal(err)
			}
			for range 3 {
				_, err := m.CallTool(context.Background(), "list_dir", input(`{"path":"."}`), CallOptions{Workspace: t.TempDir()})
				var down *HooksDownError
				if !errors.Is(err, ErrDenied) || !errors.As(err, &down) || len(down.Holders) != 1 {
					t.Fatalf("list_dir: %v", err)
				}
				for _, want := range []string{"plugin `fixture-guard` holds a pre-execute hook and is not live (failed: apply threw: TypeError: x is undefined)",
					"fix it and run `cwx plugin reload`, or run `cwx plugin disable fixture-guard` to go on without its hooks"} {
					if !strings.Contains(err.Error(), want) {
						t.Errorf("%q lacks %q", err, want)
					}
				}
			}
			m.pre.down.mu.Lock()
			last := m.pre.down.last
			m.pre.down.mu.Unlock()
			if !strings.Contains(last, "fixture-guard") {
				t.Errorf("last said %q", last)
			}
		})
	}
}

// TestNoHookHolderNoDenial: a plugin whose entry lists no hook, failed, denies nothing.
func TestNoHookHolderNoDenial(t *testing.T) {
	m, ft, _ := newFake(t, nil, "hook-guard")
	ft.mu.Lock()
	ft.activateFail["fixture-guard"] = "apply threw"
	ft.mu.Unlock()
	if _, err := PluginErrors(m.Reconcile(context.Background())); err != nil {
		t.Fatal(err)
	}
	if _, err := m.CallTool(context.Background(), "list_dir", input(`{"path":"."}`), CallOptions{Workspace: t.TempDir()}); err != nil {
		t.Fatalf("list_dir: %v", err)
	}
}

// TestHookHolderLiveInThisProcess: a plugin seen Active with a hook in this process holds
// one even when its catalog entry could not be written; while its tier restarts every gated
// call is denied naming it and the tier's state, and once it is live again calls run.
func TestHookHolderLiveInThisProcess(t *testing.T) {
	m, ft, _ := newFake(t, nil, "hook-guard")
	ft.mu.Lock()
	ft.hooks = map[string]bool{"fixture-guard": true}
	ft.mu.Unlock()
	reconcile(t, m)
	if len(m.reg.Hooks()) != 1 {
		t.Fatalf("hooks %+v", m.reg.Hooks())
	}
	ws := t.TempDir()
	if _, err := m.CallTool(context.Background(), "list_dir", input(`{"path":"."}`), CallOptions{Workspace: ws}); err != nil {
		t.Fatalf("list_dir, the guard live: %v", err)
	}
	// as if the entry had never been written
	if err := m.Catalog().Remove("fixture-guard"); err != nil {
		t.Fatal(err)
	}
	reconcile(t, m) // reads the catalog again: no entry for the guard now
	ft.mu.Lock()
	ft.state = supervisor.StateRestarting
	ft.mu.Unlock()
	ft.kill(nil)
	_, err := m.CallTool(context.Background(), "list_dir", input(`{"path":"."}`), CallOptions{Workspace: ws})
	if !errors.Is(err, ErrDenied) || !strings.Contains(err.Error(), "plugin `fixture-guard` holds a pre-execute hook and is not live (the plugin tier is restarting): run `cwx plugin disable fixture-guard`") {
		t.Fatalf("list_dir, the tier restarting: %v", err)
	}
	ft.mu.Lock()
	ft.state = ""
	ft.mu.Unlock()
	reconcile(t, m) // the next incarnation replays the guard
	if _, err := m.CallTool(context.Background(), "list_dir", input(`{"path":"."}`), CallOptions{Workspace: ws}); err != nil {
		t.Fatalf("list_dir, the guard live again: %v", err)
	}
}
