package natives

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"testing"

	"github.com/cwx-dev/cwx/core/errdefs"
)

type fakeTool struct{ spec Spec }

func (f fakeTool) Spec() Spec { return f.spec }
func (f fakeTool) Run(context.Context, Call) (Result, error) {
	return Result{Text: f.spec.Name}, nil
}

func fake(name string, auto, forced bool) Tool {
	return fakeTool{Spec{Name: name, InputSchema: json.RawMessage(`{"type":"object"}`), AutoEligible: auto, Forced: forced}}
}

// TestSetAdmission: a Set refuses folded duplicates, a Spec both auto-eligible and forced,
// bad names, no schema and nil tools, all as ErrBadSpec (a case of ErrRefused).
func TestSetAdmission(t *testing.T) {
	tests := []struct {
		name  string
		tools []Tool
		ok    bool
	}{
		{"distinct", []Tool{fake("deploy", false, false), fake("lookup", true, false)}, true},
		{"same name", []Tool{fake("deploy", false, false), fake("deploy", true, false)}, false},
		{"names folded", []Tool{fake("Deploy", false, false), fake("deploy", false, false)}, false},
		// the registry folds `-` to `_` too (registry.Fold): one name to it, so one to the set
		{"dash and underscore folded", []Tool{fake("my-tool", false, false), fake("my_tool", false, false)}, false},
		{"builtin with a dash", []Tool{fake("read-file", true, false)}, false},
		{"auto and forced", []Tool{fake("deploy", true, true)}, false},
		{"bad name", []Tool{fake("1deploy", false, false)}, false},
		{"space in name", []Tool{fake("de ploy", false, false)}, false},
		{"no schema", []Tool{fakeTool{Spec{Name: "deploy"}}}, false},
		{"nil tool", []Tool{nil}, false},
		{"clashes with a builtin", []Tool{fake("READ_FILE", true, false)}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := BuiltinWith(WriteOptions{}).With(tc.tools...)
			if tc.ok != (err == nil) {
				t.Fatalf("With: err %v, want ok=%v", err, tc.ok)
			}
			if err != nil && (!errors.Is(err, ErrBadSpec) || !errors.Is(err, errdefs.ErrRefused)) {
				t.Errorf("error %v is not ErrBadSpec/ErrRefused", err)
			}
		})
	}
}

// TestBuiltin pins the built-in table: names, eligibility, and that With leaves the
// original Set as it was.
func TestBuiltin(t *testing.T) {
	b := BuiltinWith(WriteOptions{})
	want := []string{"edit_file", "file_search", "grep_files", "list_dir", "read_file", "shell", "write_file"}
	if got := b.Names(); !slices.Equal(got, want) {
		t.Fatalf("Names = %v, want %v", got, want)
	}
	for _, sp := range b.Specs() {
		shell := sp.Name == "shell"
		writes := sp.Name == "write_file" || sp.Name == "edit_file"
		if sp.AutoEligible == (shell || writes) || sp.Forced != shell || sp.ReadOnly == (shell || writes) || sp.Writes != writes {
			t.Errorf("%s: auto %v forced %v read-only %v writes %v", sp.Name, sp.AutoEligible, sp.Forced, sp.ReadOnly, sp.Writes)
		}
		var schema map[string]any
		if err := json.Unmarshal(sp.InputSchema, &schema); err != nil || schema["type"] != "object" {
			t.Errorf("%s: schema %s: %v", sp.Name, sp.InputSchema, err)
		}
	}
	more, err := b.With(fake("deploy", false, false))
	if err != nil {
		t.Fatal(err)
	}
	if b.Len() != 7 || more.Len() != 8 {
		t.Errorf("Len: builtin %d, extended %d", b.Len(), more.Len())
	}
	if _, _, ok := more.Lookup("Deploy"); ok {
		t.Error("Lookup is by exact name")
	}
	if tool, sp, ok := more.Lookup("deploy"); !ok || sp.Name != "deploy" || tool == nil {
		t.Error("Lookup(deploy) failed")
	}
	var none *Set
	if none.Len() != 0 || none.Names() != nil {
		t.Error("a nil Set is not empty")
	}
	if _, _, ok := none.Lookup("shell"); ok {
		t.Error("a nil Set found a tool")
	}
}
