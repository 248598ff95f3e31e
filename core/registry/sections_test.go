package registry

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/cwx-dev/cwx/core/protocol"
)

func section(ref protocol.OwnerRef, id, text string) *protocol.RegisterParams {
	return &protocol.RegisterParams{Owner: ref, Kind: protocol.KindPromptSection, Spec: protocol.RegisterSpec{Name: id, Description: text}}
}

func TestSectionRules(t *testing.T) {
	r := New(Options{})
	a := active(t, r, "alpha")
	for _, c := range []struct {
		name, id, text string
		cause          error
		want           string
	}{
		{"upper-case id", "Style", "x", ErrInvalidSpec, `prompt section id "Style" must match`},
		{"empty text", "style", " \n\t", ErrInvalidSpec, "needs non-empty text"},
		{"control", "style", "a\x1b[2Jb", ErrInvalidSpec, "without control characters"},
		{"bidi", "style", "a\u202eb", ErrInvalidSpec, "bidi controls"},
		{"bad utf-8", "style", "a\xffb", ErrInvalidSpec, "valid UTF-8"},
		{"too long", "style", strings.Repeat("x", MaxSectionText+1), ErrInvalidSpec, "is 8193 bytes; the limit is 8192"},
		{"newline and tab", "style", "line one\n\tline two", nil, ""},
		{"at the limit", "big", strings.Repeat("x", MaxSectionText), nil, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := r.Register(pluginHost, section(a, c.id, c.text))
			if c.cause == nil {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if !errors.Is(err, c.cause) || !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want %v containing %q", err, c.cause, c.want)
			}
		})
	}
}

func TestSectionCaps(t *testing.T) {
	r := New(Options{})
	a, b := active(t, r, "alpha"), active(t, r, "beta")
	for i := range MaxSectionsPerOwner {
		mustRegister(t, r, section(a, fmt.Sprintf("s%d", i), "x"))
	}
	if _, err := r.Register(pluginHost, section(a, "extra", "x")); !errors.Is(err, ErrLimit) || !strings.Contains(err.Error(), "16 prompt sections, the limit per plugin") {
		t.Fatalf("per owner: %v", err)
	}
	mustRegister(t, r, section(a, "s0", "replaced")) // the same id replaces, under the cap
	mustRegister(t, r, section(b, "s0", "another owner's id never clashes"))
	big := strings.Repeat("y", MaxSectionText)
	for i := range 7 {
		mustRegister(t, r, section(b, fmt.Sprintf("big%d", i), big))
	}
	_, err := r.Register(pluginHost, section(b, "big7", big))
	if !errors.Is(err, ErrLimit) || !strings.Contains(err.Error(), "the limit for the whole block is 65536") {
		t.Fatalf("block: %v", err)
	}
	mustRegister(t, r, section(b, "big0", "small now")) // replacing frees its bytes
	mustRegister(t, r, section(b, "big7", big))
}

func TestSectionsListedSortedAndWithdrawn(t *testing.T) {
	r := New(Options{})
	z, a := active(t, r, "zeta"), active(t, r, "alpha")
	pending := begin(t, r, "pending", pluginHost)
	mustRegister(t, r, section(z, "one", "z1"))
	mustRegister(t, r, section(a, "two", "a2"))
	h := mustRegister(t, r, section(a, "one", "a1"))
	mustRegister(t, r, section(pending, "one", "not yet"))
	mustRegister(t, r, tool(a, "alpha_tool"))
	mustRegister(t, r, command(a, "alpha-cmd"))
	got := func() string {
		var s []string
		for _, x := range r.PromptSections() {
			s = append(s, x.PluginID+"/"+x.ID+"="+x.Text)
		}
		return strings.Join(s, " ")
	}
	if g := got(); g != "alpha/one=a1 alpha/two=a2 zeta/one=z1" {
		t.Fatalf("sections %q", g)
	}
	if len(r.Tools()) != 1 || len(r.Commands()) != 1 {
		t.Fatalf("tools %v commands %v", r.Tools(), r.Commands())
	}
	if tools, cmds, _ := r.Claims("alpha"); len(tools) != 0 || len(cmds) != 0 {
		t.Fatalf("a section is no claim: %v %v", tools, cmds) // claims were recorded at activation, before
	}
	if !r.Unregister(pluginHost, &protocol.UnregisterParams{Owner: a, Handle: h}) {
		t.Fatal("unregister")
	}
	if err := r.Revoke(z, pluginHost, "gone"); err != nil {
		t.Fatal(err)
	}
	if g := got(); g != "alpha/two=a2" {
		t.Fatalf("after withdrawal %q", g)
	}
	if err := r.Activate(pending, pluginHost); err != nil {
		t.Fatal(err)
	}
	if tools, cmds, _ := r.Claims("pending"); len(tools) != 0 || len(cmds) != 0 {
		t.Fatalf("a section is no claim: %v %v", tools, cmds)
	}
	if g := got(); g != "alpha/two=a2 pending/one=not yet" {
		t.Fatalf("after activation %q", g)
	}
}
