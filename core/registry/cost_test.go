package registry

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v5"

	"github.com/cwx-dev/cwx/core/protocol"
)

// cyclicSchema is an allOf of two $refs to an array whose items point back: each nesting
// level doubles the work (on the validator as it was, an input nested 22 deep took 9–12 s
// and one nested 40 deep, 80 bytes, hours).
const cyclicSchema = `{"type":"object","properties":{"x":{"$ref":"#/$defs/a"}},"$defs":{` +
	`"a":{"allOf":[{"$ref":"#/$defs/b"},{"$ref":"#/$defs/b"}]},` +
	`"b":{"type":"array","items":{"$ref":"#/$defs/a"}}}}`

// dagSchema is a 30-level DAG of allOf with two $refs each: 2^30 evaluations of any input,
// without a cycle.
func dagSchema(levels int) string {
	var b strings.Builder
	b.WriteString(`{"type":"object","$ref":"#/$defs/d0","$defs":{`)
	for i := range levels {
		fmt.Fprintf(&b, `"d%d":{"allOf":[{"$ref":"#/$defs/d%d"},{"$ref":"#/$defs/d%d"}]},`, i, i+1, i+1)
	}
	fmt.Fprintf(&b, `"d%d":{"type":"object"}}}`, levels)
	return b.String()
}

// register registers schema as tool t on a fresh registry.
func register(t *testing.T, schema string) (*Registry, error) {
	t.Helper()
	r := New(Options{})
	p := &protocol.RegisterParams{Owner: active(t, r, "cost"), Kind: protocol.KindTool, Spec: protocol.RegisterSpec{
		Name: "t", Description: "d", InputSchema: []byte(schema)}}
	_, err := r.Register(pluginHost, p)
	return r, err
}

// TestSchemaCostRefusesBlowUps: the schemas whose validation multiplies per nesting level or
// per DAG level are refused at admission, by registration and by CompileInputSchema alike,
// naming the schema where the work multiplies and saying what to do.
func TestSchemaCostRefusesBlowUps(t *testing.T) {
	tests := []struct {
		name, schema, pointer string
	}{
		{"cyclic allOf through items", cyclicSchema, "#/$defs/a"},
		{"30-level DAG of allOf", dagSchema(30), "#/$defs/d0"},
		{"anyOf fan-out through properties", `{"type":"object","properties":{"n":{"$ref":"#/$defs/n"}},"$defs":{"n":{"anyOf":[` +
			`{"properties":{"c":{"$ref":"#/$defs/n"}}},{"properties":{"c":{"$ref":"#/$defs/n"}}},{"properties":{"c":{"$ref":"#/$defs/n"}}}]}}}`, "#/$defs/n"},
		{"oneOf and not through additionalProperties", `{"type":"object","additionalProperties":{"$ref":"#/$defs/v"},"$defs":{"v":{"oneOf":[` +
			`{"additionalProperties":{"$ref":"#/$defs/v"}},{"not":{"additionalProperties":{"$ref":"#/$defs/v"}}}]}}}`, "#/$defs/v"},
		{"if then else through prefixItems", `{"type":"object","properties":{"p":{"$ref":"#/$defs/p"}},"$defs":{"p":{"if":{"prefixItems":[{"$ref":"#/$defs/p"}]},` +
			`"then":{"prefixItems":[{"$ref":"#/$defs/p"}]},"else":{"items":{"$ref":"#/$defs/p"}}}}}`, "#/$defs/p"},
		{"dependentSchemas", `{"type":"object","properties":{"p":{"$ref":"#/$defs/p"}},"$defs":{"p":{"items":{"$ref":"#/$defs/p"},` +
			`"dependentSchemas":{"a":{"items":{"$ref":"#/$defs/p"}}}}}}`, "#/$defs/p"},
		{"dynamicRef", `{"type":"object","$dynamicAnchor":"node","properties":{"kids":{"type":"array","items":{"allOf":[{"$dynamicRef":"#node"},{"$dynamicRef":"#node"}]}}}}`, "#/properties/kids/items"},
		{"draft-07 items and dependencies", `{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"p":{"$ref":"#/definitions/p"}},"definitions":{"p":{"items":[{"$ref":"#/definitions/p"}],` +
			`"additionalItems":{"$ref":"#/definitions/p"},"dependencies":{"a":{"items":[{"$ref":"#/definitions/p"}]}}}}}`, "#/definitions/p"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := register(t, tt.schema)
			var ref *Refusal
			if !errors.As(err, &ref) || !errors.Is(err, ErrInvalidSpec) {
				t.Fatalf("registration answered %v, want a refusal", err)
			}
			msg := err.Error()
			for _, want := range []string{"input schema of tool `t`", "the schema at " + tt.pointer + " ", fmt.Sprintf("the limit is %d per value", MaxSchemaCost), "Apply each definition once per value"} {
				if !strings.Contains(msg, want) {
					t.Errorf("refusal %q does not say %q", msg, want)
				}
			}
			if strings.ContainsAny(msg, "\r\n") {
				t.Errorf("refusal %q is not one line", msg)
			}
			if _, cerr := CompileInputSchema("t", []byte(tt.schema)); cerr == nil || cerr.Error() != msg {
				t.Errorf("CompileInputSchema answered %v, want the same refusal", cerr)
			}
		})
	}
}

// realisticSchemas are recursive and non-recursive schemas of the shapes tools publish; each
// must be admitted, with the cost bound given.
var realisticSchemas = []struct {
	name, schema string
	cost         uint64
}{
	{"flat", objSchema, 1},
	{"JSON value tree", `{"type":"object","properties":{"doc":{"$ref":"#/$defs/v"}},"$defs":{"v":{"anyOf":[{"type":"string"},{"type":"number"},{"type":"boolean"},{"type":"null"},` +
		`{"type":"array","items":{"$ref":"#/$defs/v"}},{"type":"object","additionalProperties":{"$ref":"#/$defs/v"}}]}}}`, 8},
	{"expression AST", `{"type":"object","properties":{"expr":{"$ref":"#/$defs/e"}},"required":["expr"],"$defs":{` +
		`"e":{"oneOf":[{"$ref":"#/$defs/bin"},{"$ref":"#/$defs/un"},{"$ref":"#/$defs/lit"}]},` +
		`"bin":{"type":"object","properties":{"op":{"enum":["+","-","*"]},"left":{"$ref":"#/$defs/e"},"right":{"$ref":"#/$defs/e"}},"required":["op","left","right"]},` +
		`"un":{"type":"object","properties":{"op":{"const":"-"},"arg":{"$ref":"#/$defs/e"}},"required":["op","arg"]},` +
		`"lit":{"type":"object","properties":{"value":{"type":"number"}},"required":["value"]}}}`, 8},
	{"file tree", `{"type":"object","properties":{"root":{"$ref":"#/$defs/node"}},"$defs":{"node":{"type":"object","properties":{"name":{"type":"string"},` +
		`"children":{"type":"array","items":{"$ref":"#/$defs/node"}}},"required":["name"],"additionalProperties":false}}}`, 2},
	{"edit list", `{"type":"object","properties":{"path":{"type":"string"},"edits":{"type":"array","items":{"type":"object","properties":{"old":{"type":"string"},"new":{"type":"string"}},` +
		`"required":["old","new"]},"minItems":1}},"required":["path","edits"],"allOf":[{"if":{"required":["path"]},"then":{"properties":{"path":{"minLength":1}}}}]}`, 4},
	{"dynamic ref tree", `{"type":"object","$dynamicAnchor":"node","properties":{"kids":{"type":"array","items":{"$dynamicRef":"#node"}}}}`, 2},
}

// TestSchemaCostAdmitsRealisticSchemas pins the bound of schemas of the usual shapes.
func TestSchemaCostAdmitsRealisticSchemas(t *testing.T) {
	for _, tt := range realisticSchemas {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := register(t, tt.schema); err != nil {
				t.Fatalf("refused: %v", err)
			}
			s, why := compileOnly(tt.schema)
			if why != nil {
				t.Fatal(why)
			}
			cost, ce := schemaCost(s)
			if ce != nil || cost != tt.cost {
				t.Errorf("cost %d (%v), want %d", cost, ce, tt.cost)
			}
		})
	}
}

// TestSchemaCostBoundary: a DAG whose cost is under the limit is admitted, one level more
// is refused; the bound is the number of evaluations the validator makes.
func TestSchemaCostBoundary(t *testing.T) {
	// d(i) = 1 + 2 × (1 + d(i+1)): each allOf entry is a schema too. The root adds itself.
	for _, tt := range []struct {
		levels int
		cost   uint64
	}{{7, 510}, {8, 1022}} {
		s, err := compileOnly(dagSchema(tt.levels))
		if err != nil {
			t.Fatal(err)
		}
		if cost, _ := schemaCost(s); cost != tt.cost {
			t.Errorf("%d levels: bound %d, want %d", tt.levels, cost, tt.cost)
		}
		var counter evalCounter
		s, err = compileCounting(dagSchema(tt.levels), &counter)
		if err != nil {
			t.Fatal(err)
		}
		counter.n = map[uintptr]uint64{}
		_ = s.Validate(map[string]any{})
		if got := counter.max(); got != tt.cost {
			t.Errorf("%d levels: the validator made %d evaluations, the bound says %d", tt.levels, got, tt.cost)
		}
		_, err = register(t, dagSchema(tt.levels))
		if admitted := err == nil; admitted != (tt.cost <= MaxSchemaCost) {
			t.Errorf("%d levels (bound %d): admitted=%v (%v)", tt.levels, tt.cost, admitted, err)
		}
	}
}

// TestSelfApplicationRefused: a schema that applies itself to the same value never ends.
func TestSelfApplicationRefused(t *testing.T) {
	_, err := register(t, `{"type":"object","$defs":{"a":{"allOf":[{"$ref":"#/$defs/b"}]},"b":{"anyOf":[{"$ref":"#/$defs/a"}]}},"properties":{"x":{"$ref":"#/$defs/a"}}}`)
	if err == nil || !errors.Is(err, ErrInvalidSpec) {
		t.Fatalf("answered %v, want a refusal", err)
	}
}

// TestInputDepthCapped: an input nested deeper than MaxInputDepth is refused before it is
// validated, with a message that says the limit; one at the limit is validated.
func TestInputDepthCapped(t *testing.T) {
	r, err := register(t, `{"type":"object","properties":{"x":{"$ref":"#/$defs/v"}},"$defs":{"v":{"type":"array","items":{"$ref":"#/$defs/v"}}}}`)
	if err != nil {
		t.Fatal(err)
	}
	target, _ := r.LookupTool("t")
	nested := func(n int) []byte { // {"x": […]} nested n deep, the object counted
		return []byte(`{"x":` + strings.Repeat("[", n-1) + strings.Repeat("]", n-1) + `}`)
	}
	if err := target.ValidateInput(nested(MaxInputDepth)); err != nil {
		t.Errorf("an input nested %d deep: %v", MaxInputDepth, err)
	}
	err = target.ValidateInput(nested(MaxInputDepth + 1))
	want := fmt.Sprintf("input nests objects and arrays more than %d deep, the limit; send a flatter value", MaxInputDepth)
	if !errors.Is(err, ErrInvalidInput) || !strings.Contains(err.Error(), want) {
		t.Errorf("an input nested %d deep: %v, want %q", MaxInputDepth+1, err, want)
	}
}

// compileOnly compiles schema as admission does, without the cost analysis, with a counting
// extension on every object schema (the oracle of FuzzSchemaCost).
func compileOnly(schema string) (*jsonschema.Schema, error) {
	return compileCounting(schema, nil)
}

// evalCounter counts the evaluations of each container value (by identity).
type evalCounter struct {
	mu sync.Mutex
	n  map[uintptr]uint64
}

func (c *evalCounter) Compile(jsonschema.CompilerContext, map[string]any) (jsonschema.ExtSchema, error) {
	return c, nil
}

func (c *evalCounter) Validate(_ jsonschema.ValidationContext, v any) error {
	var id uintptr
	switch v := v.(type) {
	case map[string]any:
		id = reflect.ValueOf(v).Pointer()
	case []any:
		if len(v) == 0 {
			return nil
		}
		id = reflect.ValueOf(v).Pointer()
	default:
		return nil
	}
	c.mu.Lock()
	c.n[id]++
	c.mu.Unlock()
	return nil
}

func (c *evalCounter) max() uint64 {
	var m uint64
	for _, n := range c.n {
		m = max(m, n)
	}
	return m
}

func compileCounting(schema string, counter *evalCounter) (*jsonschema.Schema, error) {
	c := jsonschema.NewCompiler()
	c.Draft = jsonschema.Draft2020
	c.LoadURL = func(u string) (io.ReadCloser, error) { return nil, fmt.Errorf("%w %s", errExternalRef, u) }
	if counter != nil {
		c.RegisterExtension("count", jsonschema.MustCompileString("mem:///count.json", `{}`), counter)
	}
	const url = "mem:///input_schema.json"
	if err := c.AddResource(url, bytes.NewReader([]byte(schema))); err != nil {
		return nil, err
	}
	return c.Compile(url)
}

// FuzzSchemaCost computes the bound of an arbitrary schema and checks it against the
// validator: whatever the bytes, no panic and the same answer twice; a refusal names a JSON
// pointer on one line; an admitted schema's bound is 1..MaxSchemaCost and no container
// value of an arbitrary input is evaluated more often than the bound says (an evaluation
// counter on every object schema is the oracle).
func FuzzSchemaCost(f *testing.F) {
	for _, s := range schemaSeeds {
		f.Add([]byte(s.schema), []byte(s.input))
	}
	for _, s := range realisticSchemas {
		f.Add([]byte(s.schema), []byte(`{"doc":[[{"a":[1]}]],"expr":{"op":"+","left":{"value":1},"right":{"op":"-","arg":{"value":2}}},"root":{"name":"a","children":[{"name":"b"}]},"kids":[{"kids":[{}]}]}`))
	}
	f.Add([]byte(cyclicSchema), []byte(`{"x":[[[[]]]]}`))
	f.Add([]byte(dagSchema(8)), []byte(`{}`))
	f.Fuzz(func(t *testing.T, schema, input []byte) {
		if len(schema) > MaxSchemaBytes {
			return
		}
		var counter evalCounter
		s, err := compileCounting(string(schema), &counter)
		if err != nil {
			return
		}
		cost, ce := schemaCost(s)
		cost2, ce2 := schemaCost(s)
		if cost != cost2 || (ce == nil) != (ce2 == nil) || (ce != nil && *ce != *ce2) {
			t.Fatalf("not deterministic: %d %v, then %d %v", cost, ce, cost2, ce2)
		}
		if ce != nil {
			if !strings.HasPrefix(ce.pointer, "#") || strings.ContainsAny(ce.pointer+ce.reason, "\r\n") {
				t.Fatalf("refusal %q %q does not name a pointer on one line", ce.pointer, ce.reason)
			}
			return
		}
		if cost < 1 || cost > MaxSchemaCost {
			t.Fatalf("admitted with bound %d", cost)
		}
		v, err := decodeInput(input)
		if err != nil {
			return
		}
		counter.n = map[uintptr]uint64{}
		_ = s.Validate(v)
		if got := counter.max(); got > cost {
			t.Fatalf("a value was evaluated %d times, the bound is %d", got, cost)
		}
	})
}
