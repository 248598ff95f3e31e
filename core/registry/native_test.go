package registry

import (
	"errors"
	"testing"
)

// TestNativeTarget: a native tool's schema compiles under the registration rules and its
// Target validates like a live tool's.
func TestNativeTarget(t *testing.T) {
	tg, err := NativeTarget("read_file", []byte(`{"type":"object","properties":{"file_path":{"type":"string"}},"required":["file_path"]}`))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		input string
		ok    bool
	}{
		{`{"file_path":"a"}`, true},
		{`{"file_path":1}`, false},
		{`{}`, false},
		{`{"file_path":"a"} {}`, false},
	}
	for _, tc := range tests {
		if err := tg.ValidateInput([]byte(tc.input)); (err == nil) != tc.ok || err != nil && !errors.Is(err, ErrInvalidInput) {
			t.Errorf("ValidateInput(%s) = %v, want ok=%v", tc.input, err, tc.ok)
		}
	}
	for _, bad := range []string{``, `[]`, `{"type":"string"}`, `{"type":"object","$ref":"https://example.invalid/s.json"}`} {
		if _, err := NativeTarget("x", []byte(bad)); !errors.Is(err, ErrInvalidSpec) || !errors.Is(err, ErrRefused) {
			t.Errorf("NativeTarget(%q) = %v, want ErrInvalidSpec", bad, err)
		}
	}
}
