package registry

import (
	"strings"
	"testing"
)

// TestCompileErrorListsEveryViolation: a schema the metaschema refuses in three places is
// refused with all three, one per location in location order, the same every time (the
// library's own text names the first only, and its order follows map iteration).
func TestCompileErrorListsEveryViolation(t *testing.T) {
	raw := []byte(`{"type":"object","properties":{"a":{"type":"strin"},"b":{"minLength":-1}},"required":"a"}`)
	var first string
	for i := range 20 {
		_, reason := compileSchema("bad", raw)
		if i == 0 {
			first = reason
		} else if reason != first {
			t.Fatalf("refusal changed between compiles:\n%s\n%s", first, reason)
		}
	}
	const prefix = "input schema of tool `bad` is not a valid JSON Schema: jsonschema mem:///input_schema.json compilation failed: "
	if !strings.HasPrefix(first, prefix) {
		t.Fatalf("refusal = %q", first)
	}
	parts := strings.Split(strings.TrimPrefix(first, prefix), "; ")
	wants := []string{"'/properties/a/type' does not validate with ", "'/properties/b/minLength' does not validate with ", "'/required' does not validate with "}
	reasons := []string{`: value must be one of "array", "boolean"`, ": must be >= 0 but found -1", ": expected array, but got string"}
	if len(parts) != len(wants) {
		t.Fatalf("%d violations, want %d: %q", len(parts), len(wants), parts)
	}
	for i, p := range parts {
		if !strings.HasPrefix(p, wants[i]) || !strings.Contains(p, reasons[i]) {
			t.Errorf("violation %d = %q; want %q…%q", i, p, wants[i], reasons[i])
		}
	}
}
