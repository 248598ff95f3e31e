package lockcheck

import (
	"testing"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/analysistest"
	"gvisor.dev/gvisor/tools/checklocks"
)

// TestAnalyzers runs each analyzer over its testdata package, which holds code that keeps
// the discipline (no findings allowed) and code that breaks it on purpose (a // want per
// finding), so a check that stops firing fails as surely as a false positive.
func TestAnalyzers(t *testing.T) {
	Analyzers() // configures checklocks as cmd/lockcheck runs it
	tests := []struct {
		pkg string
		a   *analysis.Analyzer
	}{
		{"guarded", checklocks.Analyzer},
		{"lockednames", LockedNames},
	}
	for _, tt := range tests {
		t.Run(tt.pkg, func(t *testing.T) {
			analysistest.Run(ignoreFacts{t}, analysistest.TestData(), tt.a, tt.pkg)
		})
	}
}

func TestLockedName(t *testing.T) {
	tests := []struct {
		name string
		want bool
	}{{"dropLocked", true}, {"DropLocked", true}, {"Locked", false}, {"drop", false}, {"lockedDrop", false}}
	for _, tt := range tests {
		if got := lockedName(tt.name); got != tt.want {
			t.Errorf("lockedName(%q) = %v, want %v", tt.name, got, tt.want)
		}
	}
}

// ignoreFacts passes analysistest's complaints on to t except "unexpected fact": checklocks
// exports a fact for every field and function it has read annotations from, and the
// testdata states the findings, not checklocks' internal bookkeeping.
type ignoreFacts struct{ t *testing.T }

func (i ignoreFacts) Errorf(format string, args ...any) {
	i.t.Helper()
	if format == "%v: unexpected %s: %v" && len(args) == 3 && args[1] == "fact" {
		return
	}
	i.t.Errorf(format, args...)
}
