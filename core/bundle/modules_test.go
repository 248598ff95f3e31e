package bundle

import "testing"

func TestBuiltinModulesIsEmptyInV1(t *testing.T) {
	if got := BuiltinModules(); len(got) != 0 {
		t.Errorf("BuiltinModules() = %v, want the empty v1 table", got)
	}
	if err := CheckBuiltinModules([]ModuleDigest{}); err != nil {
		t.Errorf("an empty hello table: %v", err)
	}
	if err := CheckBuiltinModules([]ModuleDigest{{ID: "mcp", SHA256: "aa"}}); err == nil {
		t.Error("an extra module was accepted")
	}
}

func TestCheckModules(t *testing.T) {
	h, m := ModuleDigest{"harness", "11"}, ModuleDigest{"mcp", "22"}
	want := []ModuleDigest{h, m}
	tests := []struct {
		name string
		got  []ModuleDigest
		err  string
	}{
		{"same", []ModuleDigest{h, m}, ""},
		{"any order", []ModuleDigest{m, h}, ""},
		{"missing", []ModuleDigest{h}, "builtin_modules differ from the pinned table: missing mcp (22)"},
		{"extra", []ModuleDigest{h, m, {"x", "33"}}, "builtin_modules differ from the pinned table: unexpected x (33)"},
		{"changed", []ModuleDigest{h, {"mcp", "23"}}, "builtin_modules differ from the pinned table: missing mcp (22), changed mcp (23)"},
		{"duplicated", []ModuleDigest{h, m, m}, "builtin_modules differ from the pinned table: duplicated mcp (22)"},
		{"nil", nil, "builtin_modules differ from the pinned table: missing harness (11), missing mcp (22)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := checkModules(want, tc.got)
			got := ""
			if err != nil {
				got = err.Error()
			}
			if got != tc.err {
				t.Errorf("error = %q, want %q", got, tc.err)
			}
		})
	}
}
