package protocol

import (
	"encoding"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// sameAsEncodingJSON checks a typed Value against encoding/json decoding the same raw
// params or result. It only holds for host→core messages: everything there is strict,
// so every key is an exact field name and encoding/json's case-insensitive matching
// has nothing to find.
func sameAsEncodingJSON(t *testing.T, m *Message) {
	t.Helper()
	if m.Value == nil {
		return
	}
	raw := m.Params
	if m.Kind == KindResponse {
		raw = m.Result
	}
	want := reflect.New(reflect.TypeOf(m.Value).Elem()).Interface()
	if err := json.Unmarshal(raw, want); err != nil {
		t.Fatalf("encoding/json cannot decode accepted %s: %v", raw, err)
	}
	if !reflect.DeepEqual(m.Value, want) {
		t.Fatalf("decoded %#v\nencoding/json decodes %#v\nfrom %s", m.Value, want, raw)
	}
}

func TestCorpusDecodesAsEncodingJSON(t *testing.T) {
	for _, f := range loadCorpus(t) {
		if !f.c.Valid || f.c.Direction != HostToCore {
			continue
		}
		t.Run(f.name, func(t *testing.T) {
			for _, tier := range f.c.Tiers() {
				if v := f.c.Check(tier); v.Message != nil {
					sameAsEncodingJSON(t, v.Message)
				}
			}
		})
	}
}

// TestLargeValues covers the trusted re-reads: large strings with escaped quotes and
// backslashes right before their end, large values inside fields of type any, several
// large items, all decoded as encoding/json decodes them.
func TestLargeValues(t *testing.T) {
	big := strings.Repeat(`ab\"c\\d\n`, bigValue/8)
	structured := `{"rows":[` + strings.Repeat(`{"k":"`+strings.Repeat("v", 64)+`","n":[1,2,3]},`, bigValue/64) + `{}],"tail":"` + big + `\\"}`
	result := `{"content":[` +
		`{"type":"text","text":"` + big + `\\\\"},` +
		`{"type":"text","text":"` + strings.Repeat("x", 3*bigValue) + `"},` +
		`{"type":"text","text":"\"` + big + `"}],` +
		`"is_error":false,"structured":` + structured + `}`
	payload := []byte(`{"jsonrpc":"2.0","id":9,"result":` + result + `}`)
	m, err := ParseHostMessage(payload, TierPlugin, answering(MethodToolCall))
	if err != nil {
		t.Fatal(err)
	}
	sameAsEncodingJSON(t, m)
	if got := m.Value.(*ToolResult); string(got.Structured) != structured || len(got.Content) != 3 {
		t.Fatalf("structured or content changed: %d blocks", len(got.Content))
	}
	// A large request whose method comes after its params.
	req := []byte(`{"params":{"owner":` + owner + `,"ticket":"t","name":"n","input":` + structured +
		`},"id":4,"method":"core/call","jsonrpc":"2.0"}`)
	m, err = ParseHostMessage(req, TierPlugin, nil)
	if err != nil {
		t.Fatal(err)
	}
	sameAsEncodingJSON(t, m)
	// A shape error after a large value still names its path.
	bad := []byte(`{"jsonrpc":"2.0","id":9,"result":{"content":[{"type":"text","text":"` + big +
		`"},{"type":"text","text":1}],"is_error":false}}`)
	if _, err := ParseHostMessage(bad, TierPlugin, answering(MethodToolCall)); err == nil ||
		!strings.Contains(err.Error(), "result.content[1].text") {
		t.Fatalf("err = %v, want the path result.content[1].text", err)
	}
}

// TestShapeFieldsAreStructFields: the checker stores field i of a shape into field i of
// its struct, so the two lists must agree for every wire type; and the wire encoder
// writes fields itself, so no wire type may have its own marshaling method.
func TestShapeFieldsAreStructFields(t *testing.T) {
	marshaler := reflect.TypeFor[json.Marshaler]()
	text := reflect.TypeFor[encoding.TextMarshaler]()
	for t2, plan := range wirePlans() {
		if t2.Implements(marshaler) || reflect.PointerTo(t2).Implements(marshaler) ||
			t2.Implements(text) || reflect.PointerTo(t2).Implements(text) {
			t.Errorf("%s marshals itself; the wire encoder would not call it", t2)
		}
		sh := Shapes()[t2.Name()]
		if sh == nil {
			t.Errorf("%s has no shape", t2)
			continue
		}
		if len(sh.Fields) != t2.NumField() || len(plan) != t2.NumField() {
			t.Errorf("%s: %d shape fields, %d plan fields, %d struct fields", t2, len(sh.Fields), len(plan), t2.NumField())
			continue
		}
		for i, f := range sh.Fields {
			if name, _, _ := strings.Cut(t2.Field(i).Tag.Get("json"), ","); name != f.Name || plan[i].index != i {
				t.Errorf("%s field %d: shape says %q, struct says %q", t2, i, f.Name, name)
			}
		}
	}
}
