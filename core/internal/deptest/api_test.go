package deptest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCoreAPIGolden holds core's exported API (the facade an embedder uses) in a golden:
// a change to it shows in review as a diff of testdata/core-api.golden. Re-record with
// CWX_UPDATE_GOLDEN=1.
func TestCoreAPIGolden(t *testing.T) {
	lines, err := API("../../..", "./core")
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(lines, "\n") + "\n"
	path := filepath.Join("testdata", "core-api.golden")
	if os.Getenv("CWX_UPDATE_GOLDEN") != "" {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Errorf("core's exported API changed; if that is meant, re-record with CWX_UPDATE_GOLDEN=1 and say so in CHANGELOG.md:\n%s", lineDiff(string(want), got))
	}
}

// lineDiff lists the lines only in want (-) and only in got (+).
func lineDiff(want, got string) string {
	in := func(s string) map[string]bool {
		m := map[string]bool{}
		for _, l := range strings.Split(s, "\n") {
			m[l] = true
		}
		return m
	}
	w, g := in(want), in(got)
	var b strings.Builder
	for _, l := range strings.Split(want, "\n") {
		if !g[l] {
			b.WriteString("- " + l + "\n")
		}
	}
	for _, l := range strings.Split(got, "\n") {
		if !w[l] {
			b.WriteString("+ " + l + "\n")
		}
	}
	return b.String()
}
