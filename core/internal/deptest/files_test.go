package deptest

import (
	"slices"
	"testing"
)

// TestFileCyclesFound runs the file graph on a package whose two files use each other.
func TestFileCyclesFound(t *testing.T) {
	g, err := LoadFiles("testdata/filecycle", ".")
	if err != nil {
		t.Fatal(err)
	}
	want := [][]string{{"a.go", "b.go"}}
	if got := g.Cycles(); !slices.EqualFunc(got, want, slices.Equal) {
		t.Errorf("cycles = %v, want %v", got, want)
	}
	if got := g.BackEdges(); got != 2 {
		t.Errorf("back edges = %d, want 2", got)
	}
	if got := g.Edges(); got != 3 {
		t.Errorf("edges = %d, want 3", got)
	}
}

// topDown are the packages held readable top-down.
var topDown = []string{"core", "core/owners"}

// TestPackagesReadTopDown holds the packages that are readable top-down: no file uses a
// name from a file that uses it back (ARCHITECTURE.md, “Package map”).
func TestPackagesReadTopDown(t *testing.T) {
	for _, p := range topDown {
		t.Run(p, func(t *testing.T) {
			g, err := LoadFiles("../../..", "./"+p)
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range g.Cycles() {
				t.Errorf("%s: these files use each other's names; move the shared names into one file the others use: %v", p, c)
			}
		})
	}
}
