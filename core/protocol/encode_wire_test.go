package protocol

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
)

// stdJSON is what the wire encoder must reproduce: encoding/json without HTML escaping.
func stdJSON(t testing.TB, v any) ([]byte, error) {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

var trickyStrings = []string{
	"", "plain", `quote " and \ backslash`, "<html> & 'x'", "\x00\x01\x1f\x7f",
	"\b\f\n\r\t", "caf\xe9", "\xe2\x82", "\u2028 \u2029", "é ü 日本 🎉",
	strings.Repeat("x", 40) + "\n" + strings.Repeat("y", 40), strings.Repeat(`"\`, 20),
}

func TestWireEncoderMatchesEncodingJSON(t *testing.T) {
	u := uint64(3)
	hint := "<args>"
	values := []any{
		&ToolCallParams{Handle: 1, CallID: "c", Input: json.RawMessage(" { \"a\" : [ 1 , \"b c\" , {\"d\":null} ] } "), DeadlineMS: 5},
		&ToolCallParams{Input: nil},
		&ToolResult{Content: []ContentBlock{}, Structured: json.RawMessage(`{"k":"v"}`)},
		&ToolResult{},
		&ActivateResult{Status: ActivateOK, Tools: []string{}},
		&ActivateResult{Status: ActivateOK},
		&DeactivateResult{Disposed: true},
		&RegisterResult{Handle: &u},
		&RegisterParams{Kind: KindCommand, Spec: RegisterSpec{Name: "n", ArgumentHint: &hint}},
		&RPCError{Code: -32000, Message: "boom", Data: json.RawMessage(`[1, 2]`)},
		&HelloParams{MemoryLimitMiB: &u, BuiltinModules: []ModuleDigest{{ID: "a"}}},
		HookVerdict{Kind: HookRevise, Input: json.RawMessage(`{"x":"\u00e9\ud83c\udf89"}`)},
		json.RawMessage("\t[ true , false , null , -1.5e3 ]\n"),
	}
	for _, s := range trickyStrings {
		values = append(values, &LogParams{Level: s, Msg: s, PluginID: s}, &ContentBlock{Type: ContentType(s), Text: s})
	}
	for _, v := range values {
		want, err := stdJSON(t, v)
		if err != nil {
			t.Fatal(err)
		}
		rv := reflect.ValueOf(v)
		if !isWire(rv.Type()) {
			t.Fatalf("%T is not a wire type", v)
		}
		got, err := appendWire(nil, rv, 2)
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%T:\n got %s (%v)\nwant %s", v, got, err, want)
		}
	}
}

func TestWireEncoderRefusesWhatTheHostWould(t *testing.T) {
	tests := []struct {
		name  string
		input string
		kind  error
	}{
		{"syntax", `{"a":}`, ErrSyntax},
		{"trailing", `{} {}`, ErrSyntax},
		{"empty", ``, ErrSyntax},
		{"duplicate key", `{"a":1,"a":2}`, ErrDuplicateKey},
		{"invalid UTF-8", "\"caf\xe9\"", ErrInvalidUTF8},
		{"lone surrogate", `"\ud800"`, ErrInvalidUTF8},
		// The envelope is level 1, params 2, input 3: an input nesting 62 levels fits, 63 do not.
		{"too deep", strings.Repeat("[", MaxDepth-1) + strings.Repeat("]", MaxDepth-1), ErrTooDeep},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := NewRequest(1, MethodToolCall, &ToolCallParams{Input: json.RawMessage(tt.input)})
			if !errors.Is(err, tt.kind) {
				t.Fatalf("err = %v, want %v", err, tt.kind)
			}
		})
	}
	deepest := strings.Repeat("[", MaxDepth-2) + strings.Repeat("]", MaxDepth-2)
	b, err := NewRequest(1, MethodToolCall, &ToolCallParams{CallID: "c", Input: json.RawMessage(deepest)})
	if err != nil {
		t.Fatalf("input at the depth limit: %v", err)
	}
	if _, err := ParseCoreMessage(b, TierPlugin, nil); err != nil {
		t.Fatalf("the host would refuse what the encoder accepted: %v", err)
	}
}

// FuzzWireEncoder: whenever both succeed, the wire encoder writes what encoding/json
// writes; it refuses only what the protocol's scanner refuses.
func FuzzWireEncoder(f *testing.F) {
	for _, s := range trickyStrings {
		f.Add(s, []byte(`{"a": [1, "`+s+`"]}`))
	}
	f.Add("x", []byte(" null "))
	f.Fuzz(func(t *testing.T, text string, raw []byte) {
		v := &ToolCallParams{CallID: text, Workspace: text, Input: raw}
		want, stdErr := stdJSON(t, v)
		got, err := appendWire(nil, reflect.ValueOf(v), 2)
		switch {
		case err == nil && stdErr != nil:
			t.Fatalf("accepted %q, which encoding/json refuses: %v", raw, stdErr)
		case err != nil && !errors.Is(err, ErrInvalidMessage):
			t.Fatalf("refusal is not a protocol violation: %v", err)
		case err == nil && !bytes.Equal(got, want):
			t.Fatalf("got  %s\nwant %s", got, want)
		}
	})
}

// Values that are not wire types go through encoding/json; nil and null become {}.
func TestEncodeOtherValues(t *testing.T) {
	type custom struct {
		A string `json:"a"`
		M map[string]int
	}
	var nilResult *ToolResult
	tests := []struct {
		value any
		want  string
	}{
		{map[string]any{"b": 1, "a": "<x>"}, `{"jsonrpc":"2.0","id":3,"result":{"a":"<x>","b":1}}`},
		{custom{A: "\u2028", M: map[string]int{"k": 1}}, `{"jsonrpc":"2.0","id":3,"result":{"a":"\u2028","M":{"k":1}}}`},
		{struct{}{}, `{"jsonrpc":"2.0","id":3,"result":{}}`},
		{nil, `{"jsonrpc":"2.0","id":3,"result":{}}`},
		{nilResult, `{"jsonrpc":"2.0","id":3,"result":{}}`},
		{json.RawMessage(" null "), `{"jsonrpc":"2.0","id":3,"result":{}}`},
		{&Empty{}, `{"jsonrpc":"2.0","id":3,"result":{}}`},
	}
	for _, tt := range tests {
		got, err := NewResult(3, tt.value)
		if err != nil || string(got) != tt.want {
			t.Errorf("NewResult(%#v) = %s (%v), want %s", tt.value, got, err, tt.want)
		}
	}
}
