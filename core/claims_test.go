package core

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/cwx-dev/cwx/core/owners"
	"github.com/cwx-dev/cwx/core/protocol"
	"github.com/cwx-dev/cwx/core/registry"
	"github.com/cwx-dev/cwx/core/supervisor"
)

// failingTier never starts: Reconcile then fails before any host exists.
type failingTier struct{}

func (failingTier) Ensure(context.Context) (owners.Host, error) {
	return nil, errors.New("no runtime in this test")
}
func (failingTier) ReportDirtyTeardown()          {}
func (failingTier) Retry()                        {}
func (failingTier) Status() supervisor.TierStatus { return supervisor.TierStatus{} }
func (failingTier) Stop() supervisor.StopReport   { return supervisor.StopReport{} }

// TestClaimsKnownBeforeHostStarts: the claims persisted with a plugin's record reach the
// registry before any host starts, so a name is known to be the plugin's even when no host
// ever ran, and a call to it says whose it is.
func TestClaimsKnownBeforeHostStarts(t *testing.T) {
	m, _, e := newFake(t, nil, "tool", "command")
	if err := e.store.SetClaims("fixture-tool", []string{"hello_greet"}, nil); err != nil {
		t.Fatal(err)
	}
	setTier(m, func(protocol.HostKey) (owners.Tier, error) { return failingTier{}, nil })
	if err := m.Reconcile(context.Background()); err == nil {
		t.Fatal("reconcile started a tier that cannot start")
	}
	if got := m.reg.Claimant(protocol.KindTool, "Hello-Greet"); got != "fixture-tool" {
		t.Fatalf("claimant = %q, want fixture-tool", got)
	}
	_, err := m.CallTool(context.Background(), "hello_greet", nil, CallOptions{})
	nl, ok := errors.AsType[*NotLiveError](err)
	if !ok || !errors.Is(err, ErrNotAvailable) || nl.Plugin != "fixture-tool" || nl.Why != "which has not been activated" {
		t.Fatalf("call error %v (%+v)", err, nl)
	}
	if _, err := m.CallTool(context.Background(), "unclaimed", nil, CallOptions{}); err == nil || strings.Contains(err.Error(), "belongs to") {
		t.Fatalf("an unclaimed name: %v", err)
	}
}

// TestClaimsDecideTheWinnerInEveryOrder: with fixture-tool's claims persisted, the newcomer
// (trusted later) never takes `hello_greet` or `echo_text`, whichever activation registers
// first, and fixture-tool is never failed because of it.
func TestClaimsDecideTheWinnerInEveryOrder(t *testing.T) {
	tools := map[string][]string{
		"fixture-tool":    {"hello_greet", "echo_text"},
		"fixture-command": {"hello_greet", "Echo_Text"},
	}
	for _, order := range []string{"newcomer first", "established first", "together"} {
		t.Run(order, func(t *testing.T) {
			m, ft, e := newFake(t, tools, "tool", "command") // fixture-tool is trusted first
			if err := e.store.SetClaims("fixture-tool", []string{"echo_text", "hello_greet"}, nil); err != nil {
				t.Fatal(err)
			}
			var hold, release string
			switch order {
			case "newcomer first":
				hold, release = "fixture-tool", "fixture-command"
			case "established first":
				hold, release = "fixture-command", "fixture-tool"
			}
			if hold != "" {
				gate := make(chan struct{})
				ft.activateGate[hold] = gate
				go func() {
					defer close(gate)
					waitFor(t, release+" settled", func() bool {
						o, ok := m.reg.Owner(release)
						return ok && (!o.State.Live() || o.State == registry.Active)
					})
				}()
			}
			reconcile(t, m)
			for _, n := range []string{"hello_greet", "echo_text"} {
				if tg, ok := m.reg.LookupTool(n); !ok || tg.Owner.PluginID != "fixture-tool" {
					t.Fatalf("%s = %+v, %v; want fixture-tool's", n, tg, ok)
				}
			}
			if o := ownerOf(t, m, "fixture-tool"); o.State != registry.Active {
				t.Fatalf("established %+v", o)
			}
			if nc := ownerOf(t, m, "fixture-command"); nc.State != registry.Failed {
				t.Fatalf("newcomer %+v", nc)
			}
			d := strings.Join(diagnostics(t, e, m, "fixture-command"), "\n")
			if !strings.Contains(d, "refused: `hello_greet` belongs to plugin `fixture-tool`") && !strings.Contains(d, "refused: `Echo_Text` belongs to plugin `fixture-tool`") {
				t.Fatalf("newcomer's diagnostics:\n%s", d)
			}
		})
	}
}

// TestActivationPersistsClaims: a successful activation writes what the plugin registered
// into its record; a failed one leaves the claims of the last success.
func TestActivationPersistsClaims(t *testing.T) {
	m, ft, e := newFake(t, map[string][]string{"fixture-tool": {"zeta", "alpha"}}, "tool")
	reconcile(t, m)
	r, err := e.store.Get("fixture-tool")
	if err != nil {
		t.Fatal(err)
	}
	if r.Claims == nil || !slices.Equal(r.Claims.Tools, []string{"alpha", "zeta"}) || len(r.Claims.Commands) != 0 {
		t.Fatalf("claims = %+v", r.Claims)
	}
	ft.mu.Lock()
	ft.activateFail["fixture-tool"] = "told to fail"
	ft.tools["fixture-tool"] = nil
	ft.mu.Unlock()
	e.writeConfig("[plugins.\"fixture-tool\".config]\nround = 2\n") // a new config: activated again
	if failed, err := PluginErrors(m.Reconcile(context.Background())); err != nil || len(failed) != 1 || failed[0].Plugin != "fixture-tool" {
		t.Fatalf("reconcile: %v, failed %+v", err, failed)
	}
	_, err = m.CallTool(context.Background(), "alpha", nil, CallOptions{})
	if nl, ok := errors.AsType[*NotLiveError](err); !ok || nl.Plugin != "fixture-tool" || !strings.HasPrefix(nl.Why, "whose activation failed: ") || !nl.Failed ||
		!strings.Contains(err.Error(), "it belongs to plugin `fixture-tool`, whose activation failed: ") {
		t.Fatalf("call error %v", err)
	}
	if r, _ := e.store.Get("fixture-tool"); r.Claims == nil || !slices.Equal(r.Claims.Tools, []string{"alpha", "zeta"}) {
		t.Fatalf("a failed activation changed the claims: %+v", r.Claims)
	}
}
