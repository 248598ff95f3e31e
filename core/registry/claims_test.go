package registry

import (
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cwx-dev/cwx/core/protocol"
)

var (
	earlier = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	later   = earlier.Add(time.Hour)
)

// TestFoldedReservedNames: every spelling that folds to a reserved or approval-relevant
// name is refused, as reserved when no native stands behind it and as a collision when one
// does.
func TestFoldedReservedNames(t *testing.T) {
	cases := []struct {
		name    string
		natives []string
		reason  string
	}{
		{"read-file", nil, "is a reserved name (`read_file`)"},
		{"exec-command", nil, "is a reserved name (`exec_command`)"},
		{"web-search", nil, "is a reserved name (`web_search`)"},
		{"spawn-agent", nil, "is a reserved name (`spawn_agent`)"},
		{"todo-write", nil, "is a reserved name (`todo_write`)"},
		{"Bash-", nil, "names starting with `bash_`"},
		{"ext-x", nil, "reserved prefix `ext_`"},
		{"MCP-thing", nil, "reserved prefix `mcp_`"},
		{"Read-File", []string{"read_file"}, "collides with the built-in tool `read_file`"},
		{"deploy_app", []string{"deploy-app"}, "collides with the built-in tool `deploy-app`"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := New(Options{NativeTools: tc.natives})
			ref := active(t, r, "alpha")
			_, err := r.Register(pluginHost, tool(ref, tc.name))
			if !errors.Is(err, ErrReservedName) || !strings.Contains(err.Error(), tc.reason) {
				t.Fatalf("err = %v, want a reserved name containing %q", err, tc.reason)
			}
		})
	}
}

// TestFoldedClashes: two plugins' names that fold alike clash, for tools and commands, and
// an embedder's command is reserved in every folded spelling.
func TestFoldedClashes(t *testing.T) {
	cases := []struct {
		kind        protocol.RegisterKind
		first, then string
	}{
		{protocol.KindTool, "echo_text", "Echo_Text"},
		{protocol.KindTool, "echo_text", "ECHO-TEXT"},
		{protocol.KindTool, "hello-greet", "hello_greet"},
		{protocol.KindCommand, "deploy-app", "deploy_app"},
	}
	for _, tc := range cases {
		t.Run(string(tc.kind)+" "+tc.then, func(t *testing.T) {
			r := New(Options{})
			a, b := active(t, r, "alpha"), active(t, r, "beta")
			mk := tool
			if tc.kind == protocol.KindCommand {
				mk = command
			}
			mustRegister(t, r, mk(a, tc.first))
			_, err := r.Register(pluginHost, mk(b, tc.then))
			if !errors.Is(err, ErrNameTaken) || err.Error() != "`"+tc.then+"` belongs to plugin `alpha`, which holds it first: rename it in this plugin, or disable `alpha`" {
				t.Fatalf("err = %v", err)
			}
		})
	}
	r := New(Options{BuiltinCommands: []string{"my_model"}})
	ref := active(t, r, "alpha")
	if _, err := r.Register(pluginHost, command(ref, "my-model")); !errors.Is(err, ErrReservedName) {
		t.Fatalf("embedder command folded: %v", err)
	}
}

// TestClaimsDecideBeforeActivation: a name claimed by an established plugin is refused to a
// newcomer that registers it first, whatever the newcomer's trust time, and the
// established plugin then takes it.
func TestClaimsDecideBeforeActivation(t *testing.T) {
	for _, newcomerTrust := range []time.Time{earlier.Add(-time.Hour), later} {
		r := New(Options{})
		r.SetClaims(map[string]Claim{
			"hello-extension": {FirstTrust: earlier, Tools: []string{"hello_greet"}, Commands: []string{"greet"}},
			"newcomer":        {FirstTrust: newcomerTrust},
		})
		established := begin(t, r, "hello-extension", pluginHost)
		newcomer := begin(t, r, "newcomer", pluginHost)
		for _, p := range []*protocol.RegisterParams{tool(newcomer, "Hello-Greet"), command(newcomer, "greet")} {
			_, err := r.Register(pluginHost, p)
			if !errors.Is(err, ErrNameTaken) || !strings.HasSuffix(err.Error(), "belongs to plugin `hello-extension`, which holds it first: rename it in this plugin, or disable `hello-extension`") {
				t.Fatalf("newcomer %s: %v", p.Spec.Name, err)
			}
		}
		mustRegister(t, r, tool(established, "hello_greet"))
		mustRegister(t, r, command(established, "greet"))
		if got := r.Claimant(protocol.KindTool, "HELLO-greet"); got != "hello-extension" {
			t.Fatalf("claimant = %q", got)
		}
	}
}

// TestNoClaimEarlierTrustWins: with no claim, two plugins still activating get the same
// winner in either order: the earlier first trust. The outranked one is failed with the
// reason; an Active holder is never failed for a newcomer.
func TestNoClaimEarlierTrustWins(t *testing.T) {
	claims := map[string]Claim{"zeta": {FirstTrust: earlier}, "alpha": {FirstTrust: later}}
	for _, zetaFirst := range []bool{true, false} {
		r := New(Options{})
		r.SetClaims(claims)
		z, a := begin(t, r, "zeta", pluginHost), begin(t, r, "alpha", pluginHost)
		order := []protocol.OwnerRef{z, a}
		if !zetaFirst {
			order = []protocol.OwnerRef{a, z}
		}
		var evicted []*Owner
		for _, ref := range order {
			_, ev, err := r.Admit(pluginHost, tool(ref, "echo_text"))
			if ref == a && zetaFirst && (err == nil || err.Error() != heldBy("echo_text", "zeta")) {
				t.Fatalf("alpha after zeta: %v", err)
			}
			if ev != nil {
				evicted = append(evicted, ev)
			}
		}
		if err := r.Activate(z, pluginHost); err != nil {
			t.Fatal(err)
		}
		if tg, ok := r.LookupTool("echo_text"); !ok || tg.Owner != z {
			t.Fatalf("zetaFirst=%v: echo_text = %+v, %v; want zeta's", zetaFirst, tg, ok)
		}
		if !zetaFirst {
			if len(evicted) != 1 || evicted[0].Ref != a || evicted[0].State != Failed || evicted[0].Reason != heldBy("echo_text", "zeta") {
				t.Fatalf("evicted = %+v", evicted)
			}
		}
	}

	// An Active holder keeps the name against a plugin that ranks earlier.
	r := New(Options{})
	late := active(t, r, "late")
	mustRegister(t, r, tool(late, "echo_text"))
	r.SetClaims(map[string]Claim{"early": {FirstTrust: earlier}, "late": {FirstTrust: later}})
	early := begin(t, r, "early", pluginHost)
	if _, err := r.Register(pluginHost, tool(early, "echo_text")); err == nil || err.Error() != heldBy("echo_text", "late") {
		t.Fatalf("early against an Active holder: %v", err)
	}
	if o, _ := r.Owner("late"); o.State != Active || o.Tools != 1 {
		t.Fatalf("late = %+v", o)
	}
}

// TestActivateRecordsClaims: a successful activation makes what the owner registered its
// plugin's claims, which SetClaims keeps for a plugin whose owner is Active.
func TestActivateRecordsClaims(t *testing.T) {
	r := New(Options{})
	r.SetClaims(map[string]Claim{"alpha": {FirstTrust: earlier, Tools: []string{"old_tool"}}})
	ref := begin(t, r, "alpha", pluginHost)
	mustRegister(t, r, tool(ref, "probe"))
	mustRegister(t, r, command(ref, "go"))
	if tools, _, _ := r.Claims("alpha"); !slices.Equal(tools, []string{"old_tool"}) {
		t.Fatalf("claims before activation = %v", tools)
	}
	if err := r.Activate(ref, pluginHost); err != nil {
		t.Fatal(err)
	}
	r.SetClaims(map[string]Claim{"alpha": {FirstTrust: earlier, Tools: []string{"stale_copy"}}})
	tools, cmds, ok := r.Claims("alpha")
	if !ok || !slices.Equal(tools, []string{"probe"}) || !slices.Equal(cmds, []string{"go"}) {
		t.Fatalf("claims = %v %v %v", tools, cmds, ok)
	}
	if r.Claimant(protocol.KindTool, "old_tool") != "" {
		t.Fatal("a name no longer registered is still claimed")
	}
}

// TestParallelActivationsDeterministic: however two plugins' registrations and activations
// interleave, the plugin that claims the names ends up with them, every time.
func TestParallelActivationsDeterministic(t *testing.T) {
	names := []string{"hello_greet", "echo_text"}
	spell := map[string][]string{"hello-extension": {"hello_greet", "echo_text"}, "newcomer": {"hello_greet", "Echo_Text"}}
	for run := range 50 {
		r := New(Options{})
		r.SetClaims(map[string]Claim{"hello-extension": {FirstTrust: earlier, Tools: names}, "newcomer": {FirstTrust: later}})
		refs := map[string]protocol.OwnerRef{}
		for id := range spell {
			refs[id] = begin(t, r, id, pluginHost)
		}
		var wg sync.WaitGroup
		for id, ns := range spell {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for _, n := range ns {
					_, _ = r.Register(pluginHost, tool(refs[id], n))
				}
				_ = r.Activate(refs[id], pluginHost)
			}()
		}
		wg.Wait()
		for _, n := range names {
			if tg, ok := r.LookupTool(n); !ok || tg.Owner.PluginID != "hello-extension" {
				t.Fatalf("run %d: %s = %+v, %v", run, n, tg, ok)
			}
		}
	}
}
