package cli

import (
	"bytes"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/cwx-dev/cwx/core"
	"github.com/cwx-dev/cwx/core/protocol"
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

// ownedFake adds owners to a fake core, as core.Manager reports them.
type ownedFake struct {
	*fakeCore
	owners map[string]core.OwnerInfo
}

func (f ownedFake) Owner(id string) (core.OwnerInfo, bool) { o, ok := f.owners[id]; return o, ok }

func TestReplHostStatusShowsActivationTimes(t *testing.T) {
	f := replFake(t)
	recs, err := f.store.List()
	if err != nil || len(recs) != 1 {
		t.Fatalf("installed: %v %v", recs, err)
	}
	id := recs[0].ID
	cases := []struct {
		name  string
		owner *core.OwnerInfo
		want  string
	}{
		{"active", &core.OwnerInfo{Tier: protocol.TierPlugin, Generation: 3, State: "active", Activation: 12345 * time.Microsecond},
			"PLUGIN  TIER    GENERATION  STATE   ACTIVATION\n" + id + "   plugin  3           active  12.3 ms\n"},
		{"failed", &core.OwnerInfo{Tier: protocol.TierPlugin, Generation: 1, State: "failed"},
			"PLUGIN  TIER    GENERATION  STATE   ACTIVATION\n" + id + "   plugin  1           failed  -\n"},
		{"no owner", nil, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			owners := map[string]core.OwnerInfo{}
			if c.owner != nil {
				owners[id] = *c.owner
			}
			var out bytes.Buffer
			s := newReplSession(ownedFake{f, owners}, strings.NewReader(""), &out, &out, "")
			s.writeOwnerTimes()
			if out.String() != c.want {
				t.Fatalf("got\n%q\nwant\n%q", out.String(), c.want)
			}
		})
	}
}
