package services

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/cwx-dev/cwx/core/natives"
	"github.com/cwx-dev/cwx/core/protocol"
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

// TestGitCheckedBeforeTheGate: git_review_scope refuses, in Check (before the gate), an
// argument list gitscope does not admit and a call without a workspace, and admits a query;
// the other services leave every check to Run.
func TestGitCheckedBeforeTheGate(t *testing.T) {
	git, _ := Lookup(NameGitReviewScope)
	ws := Call{Workspace: "/w"}
	for _, tc := range []struct {
		name   string
		c      Call
		input  string
		refuse string
	}{
		{"a query", ws, `{"args":["--no-optional-locks","merge-base","main","HEAD"]}`, ""},
		{"another subcommand", ws, `{"args":["push","origin"]}`, "not a bounded git metadata query: `git \"push\"`"},
		{"a query not admitted", ws, `{"args":["rev-parse","--show-toplevel"]}`, "only `rev-parse --abbrev-ref HEAD` is admitted"},
		{"no workspace", Call{}, `{"args":["merge-base","main","HEAD"]}`, "the call has no workspace"},
		{"an unknown field", ws, `{"args":[],"cwd":"/"}`, "unknown field"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := git.Check(tc.c, json.RawMessage(tc.input))
			if tc.refuse == "" {
				if err != nil {
					t.Fatalf("Check = %v", err)
				}
				return
			}
			var re *protocol.RPCError
			if !errors.As(err, &re) || !strings.Contains(re.Message, tc.refuse) {
				t.Fatalf("Check = %v; want an RPC error containing %q", err, tc.refuse)
			}
		})
	}
	for name, svc := range table {
		if name != NameGitReviewScope && svc.Check(Call{}, json.RawMessage(`{"x":1}`)) != nil {
			t.Errorf("%s checks before the gate", name)
		}
	}
}
