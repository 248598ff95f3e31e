package bundle

import (
	"fmt"
	"slices"
	"strings"
)

// ModuleDigest names one builtin module and the sha256 of its bytes, as host/hello reports
// it in builtin_modules.
type ModuleDigest struct {
	ID     string `json:"id"`
	SHA256 string `json:"sha256"`
}

// pinnedBuiltinModules is the table a host's hello must match exactly. v1 ships no builtin
// modules, so it is empty; a module added to the JS host gets its row here in the same change.
var pinnedBuiltinModules = []ModuleDigest{}

// BuiltinModules returns a copy of the pinned builtin-module table.
func BuiltinModules() []ModuleDigest { return slices.Clone(pinnedBuiltinModules) }

// CheckBuiltinModules compares what a hello reported with the pinned table as multisets:
// order does not matter; a missing, extra, changed or duplicated row is an error naming it.
func CheckBuiltinModules(got []ModuleDigest) error {
	return checkModules(pinnedBuiltinModules, got)
}

func checkModules(want, got []ModuleDigest) error {
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
