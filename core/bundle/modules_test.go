package bundle

import (
	"flag"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/cwx-dev/cwx/nodeshim/jshost"
)

var printTable = flag.Bool("print-table", false, "print the Go rows of pinnedBuiltinModules for nodeshim/jshost/dist/builtin-modules.json")

// TestPinnedTableMatchesTheHost keeps the Go table and the host's dist/builtin-modules.json in
// step, both ways: a module built into the host and not pinned, pinned and not built, or
// pinned with another digest fails. `make builtin-table` prints the rows to paste; nothing
// writes the table by itself.
func TestPinnedTableMatchesTheHost(t *testing.T) {
	host, err := jshost.BuiltinModules()
	if err != nil {
		t.Fatal(err)
	}
	got := make([]ModuleDigest, len(host))
	for i, m := range host {
		got[i] = ModuleDigest{ID: m.ID, SHA256: m.SHA256}
	}
	if *printTable {
		t.Logf("rows of pinnedBuiltinModules (core/bundle/modules.go):\n%s", tableRows(got))
	}
	if err := CheckModules(BuiltinModules(), got); err != nil {
		t.Errorf("%v\nthe JS host's dist/builtin-modules.json and core/bundle/modules.go disagree; print the rows with `make builtin-table`", err)
	}
	if !slices.IsSortedFunc(pinnedBuiltinModules, func(a, b BuiltinModule) int { return strings.Compare(a.ID, b.ID) }) {
		t.Error("pinnedBuiltinModules is not sorted by id")
	}
	for _, m := range pinnedBuiltinModules {
		for _, tool := range m.Tools {
			if tool.Approval != ApprovalAuto && tool.Approval != ApprovalRequired {
				t.Errorf("module %s, tool %s: approval %q", m.ID, tool.Name, tool.Approval)
			}
		}
	}
}

func TestToolApprovalComesFromTheTable(t *testing.T) {
	saved := pinnedBuiltinModules
	t.Cleanup(func() { pinnedBuiltinModules = saved })
	pinnedBuiltinModules = []BuiltinModule{{ID: "m", SHA256: "11", Tools: []ModuleTool{{"quick", ApprovalAuto}, {"slow", ApprovalRequired}}}}
	for _, tc := range []struct {
		id, tool string
		want     Approval
	}{
		{"m", "quick", ApprovalAuto},
		{"m", "slow", ApprovalRequired},
		{"m", "unlisted", ApprovalRequired},
		{"other", "quick", ApprovalRequired},
	} {
		if got := ToolApproval(tc.id, tc.tool); got != tc.want {
			t.Errorf("ToolApproval(%s, %s) = %s, want %s", tc.id, tc.tool, got, tc.want)
		}
	}
	rows := tableRows([]ModuleDigest{{"m", "22"}, {"n", "33"}})
	want := "\t{ID: \"m\", SHA256: \"22\", Tools: []ModuleTool{{Name: \"quick\", Approval: \"auto\"}, {Name: \"slow\", Approval: \"required\"}}},\n\t{ID: \"n\", SHA256: \"33\"},\n"
	if rows != want {
		t.Errorf("tableRows =\n%s\nwant\n%s", rows, want)
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
			err := CheckModules(want, tc.got)
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

// tableRows renders digests as the Go rows of pinnedBuiltinModules, to paste after a change
// of the JS host's modules (tools are kept from the current table by id).
func tableRows(mods []ModuleDigest) string {
	var b strings.Builder
	for _, m := range mods {
		fmt.Fprintf(&b, "\t{ID: %q, SHA256: %q", m.ID, m.SHA256)
		if old, ok := PinnedModule(m.ID); ok && len(old.Tools) > 0 {
			b.WriteString(", Tools: []ModuleTool{")
			for i, t := range old.Tools {
				if i > 0 {
					b.WriteString(", ")
				}
				fmt.Fprintf(&b, "{Name: %q, Approval: %q}", t.Name, t.Approval)
			}
			b.WriteString("}")
		}
		b.WriteString("},\n")
	}
	return b.String()
}
