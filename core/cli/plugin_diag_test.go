package cli

import (
	"context"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/cwx-dev/cwx/core/plugins"
)

const schemaRefusal = "input schema of tool `read` is not a valid JSON Schema: jsonschema mem:///input_schema.json compilation failed: " +
	"'/properties/path/type' does not validate with https://json-schema.org/draft/2020-12/schema#/allOf/1/$ref/properties/properties/" +
	"additionalProperties/$dynamicRef/allOf/3/$ref/properties/type/anyOf/0/$ref/enum: value must be one of \"array\", \"string\""

func TestShortDiag(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{schemaRefusal, "input schema of tool `read` is not a valid JSON Schema: `/properties/path/type`: value must be one of \"array\", \"string\""},
		{"tool `x` needs an input_schema", "tool `x` needs an input_schema"},
		{schemaRefusal + "; '/required' does not validate with https://json-schema.org/draft/2020-12/schema#/allOf/3/$ref/properties/required/$ref/type: expected array, but got string",
			"input schema of tool `read` is not a valid JSON Schema: `/properties/path/type`: value must be one of \"array\", \"string\"; `/required`: expected array, but got string"},
	} {
		if got := shortDiag(c.in); got != c.want {
			t.Errorf("shortDiag(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// TestFailureLineUsefulPart: a listing's line for a refused schema starts with the tool and
// keeps every violation's location and reason, without the host's error class, a second
// naming of the tool or the metaschema path.
func TestFailureLineUsefulPart(t *testing.T) {
	in := "ActivationError: tool `read` refused: " + schemaRefusal +
		"; '/properties/b/minLength' does not validate with https://json-schema.org/draft/2020-12/schema#/allOf/1/$ref/properties/properties/additionalProperties/$dynamicRef/allOf/3/$ref/properties/minLength/$ref/$ref/minimum: must be >= 0 but found -1" +
		"; '/required' does not validate with https://json-schema.org/draft/2020-12/schema#/allOf/3/$ref/properties/required/$ref/type: expected array, but got string"
	want := "input schema of tool `read` is not a valid JSON Schema: `/properties/path/type`: value must be one of \"array\", \"string\"; " +
		"`/properties/b/minLength`: must be >= 0 but found -1; `/required`: expected array, but got string"
	if got := failureLine(in); got != want {
		t.Errorf("failureLine() = %q\nwant %q", got, want)
	}
}

func TestDiagSetFresh(t *testing.T) {
	ds := newDiagSet(false)
	steps := []struct {
		msg  string
		want bool
	}{
		{"refused: " + schemaRefusal, true},
		{"refused: " + schemaRefusal, false},
		{schemaRefusal, true},
		{"ActivationError: tool `read` refused: " + schemaRefusal, false}, // only repeats the refusal
		{"ActivationError: tool `read` refused: " + schemaRefusal + "; tool `b` refused: new", true},
		{"index.mjs:1:2: SyntaxError: x\n  y\n  ^", true},
	}
	for i, s := range steps {
		if got := ds.fresh(s.msg); got != s.want {
			t.Errorf("step %d: fresh(%q) = %v, want %v", i, s.msg, got, s.want)
		}
	}
}

// TestPluginShowPrintsEachDiagnosticOnce: a schema refusal recorded as a refusal, again in
// the activation failure, again as the live reason and again among this activation's
// problems is printed once, shortened; --verbose prints the metaschema path; a syntax error
// keeps its source line and caret.
func TestPluginShowPrintsEachDiagnosticOnce(t *testing.T) {
	home := pluginHome(t)
	src := basicFixture(t)
	mustCLI(t, "plugin", "install", src)
	mustCLI(t, "plugin", "trust", "hello", "--token", reviewToken(t, "hello"))
	mustCLI(t, "plugin", "enable", "hello")
	s, _, err := openPlugins()
	if err != nil {
		t.Fatal(err)
	}
	failure := "ActivationError: tool `read` refused: " + schemaRefusal
	for i, d := range []plugins.Diagnostic{
		{Kind: "activation_failed", Message: "index.mjs:7:13: SyntaxError: Unexpected token ';'\n  const x = ;\n            ^"},
		{Kind: "refused", Message: schemaRefusal},
		{Kind: "activation_failed", Message: failure},
	} {
		d.Time = testNow.Add(time.Duration(i) * time.Second)
		if err := s.AppendDiagnostic("hello", d); err != nil {
			t.Fatal(err)
		}
	}
	old := showLive
	t.Cleanup(func() { showLive = old })
	showLive = func(context.Context, io.Writer, *plugins.Store, *plugins.Record, string) (PluginLive, error) {
		live := newLive("failed")
		live.Started, live.Reason = true, failure
		live.Problems = []PluginProblem{{Kind: "refused", Message: schemaRefusal}, {Kind: "activation_failed", Message: failure}}
		return live, nil
	}
	norm := func(s string) []byte { return []byte(normalize(s, home, "$CWX_HOME", src, "$SRC")) }
	out := mustCLI(t, "plugin", "show", "hello")
	if n := strings.Count(out, "value must be one of"); n != 1 {
		t.Fatalf("the refusal is printed %d times:\n%s", n, out)
	}
	checkGolden(t, "plugin-show-once.golden", norm(out))
	checkGolden(t, "plugin-show-once-verbose.golden", norm(mustCLI(t, "plugin", "show", "hello", "--verbose")))
}
