package services

import (
	"errors"
	"slices"
	"testing"

	"github.com/cwx-dev/cwx/core/natives"
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
// core/call of one never reaches a native tool, and none is provided by an empty Provided.
func TestServicesNamedApart(t *testing.T) {
	nat := natives.BuiltinWith(natives.WriteOptions{})
	if len(table) != 6 {
		t.Errorf("%d services, want the six", len(table))
	}
	for name := range table {
		if _, _, ok := nat.Lookup(name); ok {
			t.Errorf("agent service %s is also a native tool", name)
		}
		svc, _ := Lookup(name)
		if svc.In(Provided{}) {
			t.Errorf("agent service %s is provided by zero Options", name)
		}
		if svc.Owner == "" {
			t.Errorf("agent service %s names no Options field", name)
		}
	}
}

// TestChildrenCapAndClose: a tool call reserves at most MaxChildren, and once its children
// are taken (its end) no child is added, so a start that settles late is disposed by its
// caller.
func TestChildrenCapAndClose(t *testing.T) {
	kids := NewChildren(nil)
	for i := range MaxChildren {
		if !kids.reserve() {
			t.Fatalf("reserve %d refused under the cap", i)
		}
	}
	if kids.reserve() {
		t.Fatal("reserve over MaxChildren accepted")
	}
	if !kids.add("b") || !kids.add("a") || !kids.has("a") {
		t.Fatal("a started child is not recorded")
	}
	kids.drop("b")
	if got := kids.takeAll(); !slices.Equal(got, []string{"a"}) {
		t.Fatalf("takeAll = %v, want [a]", got)
	}
	if kids.add("c") || kids.has("a") {
		t.Fatal("the set accepts or keeps a child after its tool call ended")
	}
}
