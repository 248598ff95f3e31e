package cli

import (
	"sort"
	"strings"
	"testing"

	"github.com/cwx-dev/cwx/core/registry"
)

func TestReplRunsLiveCommandsAndReloads(t *testing.T) {
	replFake(t)
	r := runRepl(t, strings.Join([]string{"/hello Grace", "hello", "/reload", "/nosuch x"}, "\n")+"\n")
	checkGolden(t, "repl-live-command.golden", []byte(r.stdout+"--- stderr\n"+r.stderr))
	if r.code != ExitUsage {
		t.Fatalf("exit %d, want %d (the unknown /nosuch)", r.code, ExitUsage)
	}
}

func TestReloadIsABuiltinCommandName(t *testing.T) {
	found := false
	for _, n := range registry.BuiltinCommandNames {
		found = found || n == "reload"
	}
	if !found {
		t.Fatal("reload is not among registry.BuiltinCommandNames, so a plugin could take it")
	}
}

func TestReplCompletion(t *testing.T) {
	f := replFake(t)
	var allTools []string
	for _, tl := range f.Tools() {
		allTools = append(allTools, tl.Name+" ")
	}
	sort.Strings(allTools)
	cases := []struct {
		line   string
		want   []string
		shared int
	}{
		{"/he", []string{"llo ", "lp "}, 2}, // the live command hello and the built-in help
		{"/hel", []string{"lo ", "p "}, 3},
		{"rel", []string{"oad "}, 3},
		{"/call hel", []string{"lo_greet "}, 3},
		{"/call ", allTools, 0},
		{"/call hello_greet {", nil, 0},
		{"/hello Gr", nil, 0},
	}
	c := replCompleter{f}
	for _, tc := range cases {
		got, shared := c.Do([]rune(tc.line), len([]rune(tc.line)))
		var gs []string
		for _, g := range got {
			gs = append(gs, string(g))
		}
		if strings.Join(gs, "|") != strings.Join(tc.want, "|") || shared != tc.shared {
			t.Errorf("complete %q: %q (%d), want %q (%d)", tc.line, gs, shared, tc.want, tc.shared)
		}
	}
}
