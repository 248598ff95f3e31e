package registry

import (
	"errors"
	"testing"

	"github.com/cwx-dev/cwx/core/protocol"
)

// TestLookupTarget: one look-up gives the handle, owner, tier, the other Active owners and
// the compiled schema; the snapshot validates like ValidateInput; an owner that is not
// Active, an inexact name and a retired owner give no target.
func TestLookupTarget(t *testing.T) {
	r := New(Options{})
	a := active(t, r, "alpha")
	b := active(t, r, "beta")
	pending := begin(t, r, "gamma", pluginHost)
	ht := mustRegister(t, r, tool(a, "probe"))
	hc := mustRegister(t, r, command(b, "export"))
	mustRegister(t, r, tool(pending, "early"))

	cases := []struct {
		name, lookup string
		command      bool
		want         Target
		ok           bool
	}{
		{"tool", "probe", false, Target{Name: "probe", Kind: protocol.KindTool, Handle: ht, Owner: a, Tier: protocol.TierPlugin, Host: pluginHost, Others: 1}, true},
		{"command", "export", true, Target{Name: "export", Kind: protocol.KindCommand, Handle: hc, Owner: b, Tier: protocol.TierPlugin, Host: pluginHost, Others: 1}, true},
		{"tool name is exact", "Probe", false, Target{}, false},
		{"activating owner", "early", false, Target{}, false},
		{"unknown command", "probe", true, Target{}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, ok := r.LookupTool(c.lookup)
			if c.command {
				got, ok = r.LookupCommand(c.lookup)
			}
			got.schema = nil
			if ok != c.ok || got != c.want {
				t.Fatalf("lookup %q = %+v, %t; want %+v, %t", c.lookup, got, ok, c.want, c.ok)
			}
		})
	}

	tg, _ := r.LookupTool("probe")
	if err := tg.ValidateInput([]byte(`{"q":"x"}`)); err != nil {
		t.Fatalf("valid input: %v", err)
	}
	if err := tg.ValidateInput([]byte(`{"q":1}`)); !errors.Is(err, ErrInvalidInput) {
		t.Fatalf("invalid input: %v", err)
	}
	cg, _ := r.LookupCommand("export")
	if err := cg.ValidateInput([]byte(`{}`)); !errors.Is(err, ErrUnknownTool) {
		t.Fatalf("command target: %v", err)
	}
	if err := r.Revoke(b, pluginHost, "disabled"); err != nil {
		t.Fatal(err)
	}
	if tg, _ := r.LookupTool("probe"); tg.Others != 0 {
		t.Fatalf("others after revoking beta: %d, want 0", tg.Others)
	}
}

// TestOwnerState: the state of exactly one ref, Revoked once a newer owner replaced it, and
// the Active count per tier follows every transition.
func TestOwnerState(t *testing.T) {
	r := New(Options{})
	a := begin(t, r, "alpha", pluginHost)
	forged := a
	forged.OwnerToken = "00"
	steps := []struct {
		name   string
		do     func() error
		ref    protocol.OwnerRef
		want   State
		active int
	}{
		{"begun", func() error { return nil }, a, Activating, 0},
		{"forged token", func() error { return nil }, forged, Revoked, 0},
		{"activated", func() error { return r.Activate(a, pluginHost) }, a, Active, 1},
		{"faulted", func() error { return r.Fault(a, pluginHost, "boom") }, a, Faulted, 0},
		{"replaced", func() error { _, err := r.BeginOwner("alpha", pluginHost); return err }, a, Revoked, 0},
	}
	for _, s := range steps {
		if err := s.do(); err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		if got := r.State(s.ref); got != s.want {
			t.Errorf("%s: state %s, want %s", s.name, got, s.want)
		}
		if got := r.ActiveOwners(pluginHost); got != s.active {
			t.Errorf("%s: %d active, want %d", s.name, got, s.active)
		}
	}
	if got := r.ActiveOwners(builtinHost); got != 0 {
		t.Errorf("builtin tier: %d active", got)
	}
}
