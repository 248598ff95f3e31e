package core

import (
	"errors"
	"slices"
	"testing"
)

func TestNarrow(t *testing.T) {
	parent := []string{"read", "grep", "edit"}
	for _, tc := range []struct {
		name string
		f    ToolFilter
		want []string
		err  error
	}{
		{"no filter keeps the parent's", ToolFilter{}, []string{"edit", "grep", "read"}, nil},
		{"deny removes", ToolFilter{Deny: []string{"edit"}}, []string{"grep", "read"}, nil},
		{"deny of a tool the parent lacks changes nothing", ToolFilter{Deny: []string{"shell"}}, []string{"edit", "grep", "read"}, nil},
		{"allow keeps", ToolFilter{Allow: []string{"read", "grep"}, Deny: []string{"grep"}}, []string{"read"}, nil},
		{"empty allow keeps nothing", ToolFilter{Allow: []string{}}, []string{}, nil},
		{"allow of a tool the parent lacks widens", ToolFilter{Allow: []string{"read", "shell"}}, nil, ErrWiden},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Narrow(parent, tc.f)
			if !errors.Is(err, tc.err) || (tc.err == nil && !slices.Equal(got, tc.want)) {
				t.Fatalf("Narrow = %q, %v; want %q, %v", got, err, tc.want, tc.err)
			}
		})
	}
}

// TestServicesNamedApart: no agent service shares a name with a builtin native tool, so
// core/call of one never reaches a native tool, and each names the Options field that
// provides it.
func TestServicesNamedApart(t *testing.T) {
	nat, err := openNatives(Options{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for name, svc := range services {
		if _, _, ok := nat.set.Lookup(name); ok {
			t.Errorf("agent service %s is also a native tool", name)
		}
		var o Options
		if svc.ok(&o) {
			t.Errorf("agent service %s is provided by zero Options", name)
		}
	}
}
