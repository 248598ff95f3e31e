package registry

import (
	"errors"
	"strings"
	"testing"

	"github.com/cwx-dev/cwx/core/errdefs"
	"github.com/cwx-dev/cwx/core/protocol"
)

// schemaSeeds are admitted schemas of several shapes and the refusals admission names: not an
// object, no top-level "type": "object", an external $ref, an invalid keyword value, a
// recursive local $ref.
var schemaSeeds = []struct{ schema, input string }{
	{objSchema, `{"q":"x"}`},
	{`{"type":"object"}`, `{}`},
	{`{"type":"object","properties":{"n":{"type":"integer","minimum":0,"maximum":10}},"required":["n"]}`, `{"n":11}`},
	{`{"type":"object","properties":{"a":{"type":"array","items":{"enum":["x","y"]},"maxItems":2}}}`, `{"a":["x","z","y"]}`},
	{`{"type":"object","properties":{"s":{"type":"string","pattern":"^[a-z]+$","maxLength":4}}}`, `{"s":"ABCDE"}`},
	{`{"type":"object","$defs":{"n":{"type":"object","properties":{"next":{"$ref":"#/$defs/n"}}}},"properties":{"root":{"$ref":"#/$defs/n"}}}`, `{"root":{"next":{"next":{}}}}`},
	{`{"type":"object","oneOf":[{"required":["a"]},{"required":["b"]}]}`, `{"a":1,"b":2}`},
	{`{"type":"object","properties":{"x":{"$ref":"https://example.invalid/s.json"}}}`, `{}`},
	{`{"type":"object","properties":{"x":{"type":"nope"}}}`, `{}`},
	{`{"type":"string"}`, `"x"`},
	{`[]`, `[]`},
	{`{"type":"object","type":"object"}`, `{"a":1}{}`},
	{``, `not json`},
}

// FuzzAdmitSchema registers a tool with an arbitrary input schema and validates an arbitrary
// input against it when admitted. Whatever the bytes: no panic; a refusal is a one-line
// *Refusal matching ErrRefused and ErrInvalidSpec that names the tool, and
// CompileInputSchema (the natives' path) refuses the same bytes; an admitted schema is found
// by LookupTool, and validation answers nil or an *InputError (ErrInvalidInput) with at most
// MaxViolations violations, the same answer twice.
func FuzzAdmitSchema(f *testing.F) {
	for _, s := range schemaSeeds {
		f.Add([]byte(s.schema), []byte(s.input))
	}
	f.Fuzz(func(t *testing.T, schema, input []byte) {
		r := New(Options{})
		ref := active(t, r, "fz")
		p := &protocol.RegisterParams{Owner: ref, Kind: protocol.KindTool, Spec: protocol.RegisterSpec{
			Name: "fz_tool", Description: "fuzzed", InputSchema: schema}}
		_, err := r.Register(pluginHost, p)
		_, cerr := CompileInputSchema("fz_tool", schema)
		if err != nil {
			checkSchemaRefusal(t, err)
			if !errors.Is(cerr, errdefs.ErrRefused) {
				t.Fatalf("admission refused (%v) but CompileInputSchema answered %v", err, cerr)
			}
			return
		}
		if cerr != nil {
			t.Fatalf("admitted, but CompileInputSchema refused: %v", cerr)
		}
		target, ok := r.LookupTool("fz_tool")
		if !ok {
			t.Fatal("an admitted tool is not found")
		}
		first := checkValidation(t, target.ValidateInput(input))
		if again := checkValidation(t, target.ValidateInput(input)); again != first {
			t.Fatalf("validation is not deterministic: %q then %q", first, again)
		}
	})
}

func checkSchemaRefusal(t *testing.T, err error) {
	t.Helper()
	var ref *Refusal
	if !errors.As(err, &ref) || !errors.Is(err, ErrRefused) || !errors.Is(err, ErrInvalidSpec) {
		t.Fatalf("refusal %v (%T) is not a *Refusal matching ErrRefused and ErrInvalidSpec", err, err)
	}
	if msg := err.Error(); strings.ContainsAny(msg, "\n\r") || !strings.Contains(msg, "`fz_tool`") {
		t.Fatalf("refusal %q is not one line naming the tool", msg)
	}
}

// checkValidation returns err's text after checking its type and bounds.
func checkValidation(t *testing.T, err error) string {
	t.Helper()
	if err == nil {
		return ""
	}
	var ie *InputError
	if !errors.As(err, &ie) || !errors.Is(err, ErrInvalidInput) {
		t.Fatalf("validation answered %v (%T), want an *InputError", err, err)
	}
	if len(ie.Violations) == 0 || len(ie.Violations) > MaxViolations {
		t.Fatalf("%d violations listed, want 1..%d", len(ie.Violations), MaxViolations)
	}
	return err.Error()
}

// TestSchemaSeeds pins which seeds of FuzzAdmitSchema are admitted and which inputs pass.
func TestSchemaSeeds(t *testing.T) {
	tests := []struct{ admitted, valid bool }{
		{true, true}, {true, true}, {true, false}, {true, false}, {true, false}, {true, true}, {true, false},
		{false, false}, {false, false}, {false, false}, {false, false}, {true, false}, {false, false},
	}
	if len(tests) != len(schemaSeeds) {
		t.Fatalf("%d seeds, %d expectations", len(schemaSeeds), len(tests))
	}
	for i, s := range schemaSeeds {
		r := New(Options{})
		p := &protocol.RegisterParams{Owner: active(t, r, "fz"), Kind: protocol.KindTool, Spec: protocol.RegisterSpec{
			Name: "fz_tool", Description: "fuzzed", InputSchema: []byte(s.schema)}}
		_, err := r.Register(pluginHost, p)
		if (err == nil) != tests[i].admitted {
			t.Errorf("seed %d: admitted=%v (%v), want %v", i, err == nil, err, tests[i].admitted)
			continue
		}
		if err != nil {
			checkSchemaRefusal(t, err)
			continue
		}
		target, _ := r.LookupTool("fz_tool")
		if verr := target.ValidateInput([]byte(s.input)); (verr == nil) != tests[i].valid {
			t.Errorf("seed %d: input %s valid=%v (%v), want %v", i, s.input, verr == nil, verr, tests[i].valid)
		}
	}
}
