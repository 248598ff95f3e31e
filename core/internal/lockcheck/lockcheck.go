package lockcheck

import (
	"go/ast"
	"strings"

	"golang.org/x/tools/go/analysis"
	"gvisor.dev/gvisor/tools/checklocks"
)

// LockedNames reports functions and methods named …Locked that carry no annotation saying
// which lock their caller must hold.
var LockedNames = &analysis.Analyzer{
	Name: "lockednames",
	Doc:  "report …Locked functions whose doc comment has no +checklocks: or +checklocksread: annotation",
	Run:  runLockedNames,
}

// Analyzers returns checklocks, with lock inference turned off, and LockedNames.
func Analyzers() []*analysis.Analyzer {
	if err := checklocks.Analyzer.Flags.Set("inferred", "false"); err != nil {
		panic(err) // the flag is checklocks' own; its absence is a build-time mismatch
	}
	return []*analysis.Analyzer{checklocks.Analyzer, LockedNames}
}

func runLockedNames(pass *analysis.Pass) (any, error) {
	for _, f := range pass.Files {
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || !lockedName(fn.Name.Name) || annotated(fn.Doc) {
				continue
			}
			pass.Reportf(fn.Name.Pos(), "%s is named …Locked but its doc comment does not say which lock it needs (// +checklocks:<param>.<mutex>)", fn.Name.Name)
		}
	}
	return nil, nil
}

// lockedName reports whether name says its caller holds a lock: it ends in "Locked" after
// at least one other character, so a function named just Locked is left alone.
func lockedName(name string) bool {
	return len(name) > len("Locked") && strings.HasSuffix(name, "Locked")
}

func annotated(doc *ast.CommentGroup) bool {
	if doc == nil {
		return false
	}
	for _, c := range doc.List {
		text := strings.TrimSpace(strings.TrimPrefix(c.Text, "//"))
		if strings.HasPrefix(text, "+checklocks:") || strings.HasPrefix(text, "+checklocksread:") {
			return true
		}
	}
	return false
}
