package core

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestMakeFuzzListsEveryTarget keeps `make fuzz` complete: every `func FuzzX` of the module's
// tests appears in the Makefile's FUZZ_TARGETS as <package dir>:FuzzX, and every entry there
// names a target that exists.
func TestMakeFuzzListsEveryTarget(t *testing.T) {
	mk, err := os.ReadFile(filepath.Join("..", "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	listed := makeFuzzTargets(t, string(mk))
	fuzzRE := regexp.MustCompile(`(?m)^func (Fuzz\w+)\(f \*testing\.F\)`)
	var found []string
	err = filepath.WalkDir("..", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (strings.HasPrefix(d.Name(), ".") && p != ".." || d.Name() == "node_modules" || d.Name() == "testdata") {
			return fs.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(p, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		dir, _ := filepath.Rel("..", filepath.Dir(p))
		for _, m := range fuzzRE.FindAllStringSubmatch(string(src), -1) {
			found = append(found, "./"+filepath.ToSlash(dir)+":"+m[1])
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(found)
	slices.Sort(listed)
	for _, f := range found {
		if !slices.Contains(listed, f) {
			t.Errorf("%s is not in the Makefile's FUZZ_TARGETS", f)
		}
	}
	for _, l := range listed {
		if !slices.Contains(found, l) {
			t.Errorf("FUZZ_TARGETS lists %s, which does not exist", l)
		}
	}
	if len(found) == 0 {
		t.Fatal("no fuzz target found")
	}
}

// makeFuzzTargets returns the words of the FUZZ_TARGETS assignment (its continued lines).
func makeFuzzTargets(t *testing.T, mk string) []string {
	i := strings.Index(mk, "FUZZ_TARGETS :=")
	if i < 0 {
		t.Fatal("the Makefile has no FUZZ_TARGETS")
	}
	var out []string
	for _, line := range strings.Split(mk[i+len("FUZZ_TARGETS :="):], "\n") {
		cont := strings.HasSuffix(strings.TrimSpace(line), "\\")
		out = append(out, strings.Fields(strings.TrimSuffix(strings.TrimSpace(line), "\\"))...)
		if !cont {
			break
		}
	}
	return out
}
