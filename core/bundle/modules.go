package bundle

import (
	"fmt"
	"slices"
	"strings"
)

// ModuleDigest names one builtin module and the sha256 of its bytes, as host/hello reports it
// in builtin_modules.
type ModuleDigest struct {
	ID     string `json:"id"`
	SHA256 string `json:"sha256"`
}

// Approval is what the pinned table says a builtin module's tool needs. It is the only source
// of a builtin tool's approval: nothing the module or its input says changes it.
type Approval string

// Approvals. A tool the table does not list is ApprovalRequired.
const (
	ApprovalRequired Approval = "required" // through the gate like any extension tool
	ApprovalAuto     Approval = "auto"     // approved without a card in every posture
)

// ModuleTool is one tool a builtin module registers under a fixed name, with its approval.
type ModuleTool struct {
	Name     string
	Approval Approval
}

// BuiltinModule is one row of the pinned table: the module's id (its owner is host:<id>), the
// sha256 of nodeshim/jshost/dist/builtin/<id>.mjs and the approval of its fixed-name tools.
// A module whose tools are named by the user (script-tools) lists none: each is Required.
type BuiltinModule struct {
	ID     string
	SHA256 string
	Tools  []ModuleTool
}

// pinnedBuiltinModules is the table a host's hello must match exactly and the digest a module
// file must have to be activated, sorted by id. A module added to, changed in or removed from
// the JS host changes its row here in the same change; TestPinnedTableMatchesTheHost fails
// until it does and prints the rows to paste (ARCHITECTURE.md, “Builtin modules”).
var pinnedBuiltinModules = []BuiltinModule{
	{ID: "hooks", SHA256: "91d67fd78a0937b65caa137475f0f791bcfbabdb9f7351b9c5c6a952b34a82df"},
	{ID: "script-tools", SHA256: "6524d674b97b195f40a4eada512c7f536c69793298ff0040f3f4407a9faf891d"},
}

// Pinned returns a copy of the pinned table, sorted by id.
func Pinned() []BuiltinModule {
	out := slices.Clone(pinnedBuiltinModules)
	for i := range out {
		out[i].Tools = slices.Clone(out[i].Tools)
	}
	return out
}

// PinnedModule returns the pinned row of module id.
func PinnedModule(id string) (BuiltinModule, bool) {
	i := slices.IndexFunc(pinnedBuiltinModules, func(m BuiltinModule) bool { return m.ID == id })
	if i < 0 {
		return BuiltinModule{}, false
	}
	m := pinnedBuiltinModules[i]
	m.Tools = slices.Clone(m.Tools)
	return m, true
}

// ToolApproval is the approval of tool name of module id: the table's, and ApprovalRequired
// for anything the table does not list (an unknown module included).
func ToolApproval(id, name string) Approval {
	m, ok := PinnedModule(id)
	if !ok {
		return ApprovalRequired
	}
	for _, t := range m.Tools {
		if t.Name == name && t.Approval == ApprovalAuto {
			return ApprovalAuto
		}
	}
	return ApprovalRequired
}

// BuiltinModules returns the pinned table as the digests host/hello must report.
func BuiltinModules() []ModuleDigest { return digestsOf(pinnedBuiltinModules) }

func digestsOf(mods []BuiltinModule) []ModuleDigest {
	out := make([]ModuleDigest, len(mods))
	for i, m := range mods {
		out[i] = ModuleDigest{ID: m.ID, SHA256: m.SHA256}
	}
	return out
}

// CheckModules compares got with want as multisets; the error names every missing, extra
// (unexpected), changed and duplicated row.
func CheckModules(want, got []ModuleDigest) error {
	count := map[ModuleDigest]int{}
	for _, m := range want {
		count[m]++
	}
	for _, m := range got {
		count[m]--
	}
	var problems []string
	for _, m := range want {
		if n := count[m]; n > 0 {
			problems = append(problems, fmt.Sprintf("missing %s (%s)", m.ID, m.SHA256))
			count[m] = 0
		}
	}
	for _, m := range got {
		if n := count[m]; n < 0 {
			what := "unexpected"
			if slices.Contains(want, m) {
				what = "duplicated"
			} else if slices.ContainsFunc(want, func(w ModuleDigest) bool { return w.ID == m.ID }) {
				what = "changed"
			}
			problems = append(problems, fmt.Sprintf("%s %s (%s)", what, m.ID, m.SHA256))
			count[m] = 0
		}
	}
	if len(problems) > 0 {
		return fmt.Errorf("builtin_modules differ from the pinned table: %s", strings.Join(problems, ", "))
	}
	return nil
}
