package deptest

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestMatch(t *testing.T) {
	tests := []struct {
		pattern, path string
		want          bool
	}{
		{"a/b", "a/b", true},
		{"a/b", "a/bc", false},
		{"a/b", "a/b/c", false},
		{"a/b/...", "a/b", true},
		{"a/b/...", "a/b/c/d", true},
		{"a/b/...", "a/bc", false},
		{"a/b/...", "a", false},
	}
	for _, tt := range tests {
		if got := match(tt.pattern, tt.path); got != tt.want {
			t.Errorf("match(%q, %q) = %v, want %v", tt.pattern, tt.path, got, tt.want)
		}
	}
}

// short renders a violation with the module prefix cut, for readable wants.
func short(v Violation) string {
	cut := func(p string) string { return strings.TrimPrefix(p, module+"/") }
	var c []string
	for _, p := range v.Chain {
		c = append(c, cut(p))
	}
	return v.Rule + ": " + strings.Join(c, " > ")
}

func shortAll(vs []Violation) []string {
	var out []string
	for _, v := range vs {
		out = append(out, short(v))
	}
	return out
}

func TestCheckFakeGraphs(t *testing.T) {
	r := Rule{Name: "r", From: []string{"a/..."}, Except: []string{"a/data"}, Deny: []string{"b/..."}, Allow: []string{"b/ok"}}
	tests := []struct {
		name string
		g    Graph
		want []string
	}{
		{"clean", Graph{"a": {"c"}, "c": nil}, nil},
		{"direct", Graph{"a": {"b/x"}, "b/x": nil}, []string{"r: a > b/x"}},
		{"transitive, shortest chain", Graph{"a": {"c", "d"}, "c": {"d"}, "d": {"b"}, "b": nil}, []string{"r: a > d > b"}},
		{"allowed import", Graph{"a": {"b/ok"}, "b/ok": nil}, nil},
		{"allowed import reaching a denied one", Graph{"a": {"b/ok"}, "b/ok": {"b/x"}, "b/x": nil}, []string{"r: a > b/ok > b/x"}},
		{"excepted package", Graph{"a/data": {"b"}, "b": nil}, nil},
		{"every matched package", Graph{"a": {"b"}, "a/x": {"b"}, "b": nil}, []string{"r: a > b", "r: a/x > b"}},
		{"cycle", Graph{"a": {"c"}, "c": {"a", "b"}, "b": nil}, []string{"r: a > c > b"}},
	}
	direct := r
	direct.Direct = true
	for _, tt := range []struct {
		name string
		g    Graph
		want []string
	}{
		{"direct rule, own import", Graph{"a": {"b/x"}, "b/x": nil}, []string{"r: a > b/x"}},
		{"direct rule, through another package", Graph{"a": {"c"}, "c": {"b"}, "b": nil}, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := shortAll(Check(tt.g, []Rule{direct})); !slices.Equal(got, tt.want) {
				t.Errorf("violations\n got %q\nwant %q", got, tt.want)
			}
		})
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := shortAll(Check(tt.g, []Rule{r})); !slices.Equal(got, tt.want) {
				t.Errorf("violations\n got %q\nwant %q", got, tt.want)
			}
		})
	}
}

// TestBadModuleBreaksEveryRule runs the module's own rules over testdata/badmod, whose
// packages carry the module's import paths and each break a rule on purpose.
// Violations come sorted by rule, then package, then the refused import's path.
func TestBadModuleBreaksEveryRule(t *testing.T) {
	g, err := Load(filepath.Join("testdata", "badmod"), "./...")
	if err != nil {
		t.Fatal(err)
	}
	const (
		shim    = "the shim links no core: "
		core    = "the core links nothing of the shim but the host bundle's data: "
		shared  = "shared is the core-shim contract only: "
		process = "protocol, registry and gate run no process: "
	)
	want := []string{
		shim + "nodeshim > core/registry",
		shim + "nodeshim > core/registry > core/supervisor",
		core + "core/gate > nodeshim",
		shared + "shared > core/gate",
		shared + "shared > core/gate > nodeshim > core/registry",
		shared + "shared > core/gate > nodeshim > core/registry > core/supervisor",
		shared + "shared > core/gate > nodeshim",
		shared + "shared > core/gate > nodeshim > core/registry > core/supervisor > nodeshim/jshost",
		"the host bundle package is data only: nodeshim/jshost/gen > shared/frame",
		process + "core/gate > nodeshim > core/registry > core/supervisor",
		process + "core/gate > nodeshim",
		process + "core/gate > nodeshim > core/registry > core/supervisor > os/exec",
		process + "core/registry > core/supervisor",
		process + "core/registry > core/supervisor > os/exec",
		"the owner layer does not link the core's facade: core/owners > core",
		"the CLI goes through the core's facade: core/cli > core/owners",
		"shipped packages link no test support: core/cli > shared/testenv",
	}
	got := shortAll(Check(g, rules))
	if !slices.Equal(got, want) {
		t.Errorf("violations in testdata/badmod\n got %s\nwant %s", strings.Join(got, "\n     "), strings.Join(want, "\n     "))
	}
}
