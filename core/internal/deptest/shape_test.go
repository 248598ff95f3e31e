package deptest

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The shape core's root package is held to (ARCHITECTURE.md, “Package map”): the facade and
// the call path, in few files, with a Manager whose methods are its API and the call path's
// steps, and no function that reaches into a Manager from outside it.
const (
	maxCoreFiles   = 15
	maxManagerFunc = 40
)

// TestCoreShape counts core's non-test files and the methods of *Manager, and refuses a
// package-level function that takes a *Manager (a function that needs the Manager's state
// is its method; one that does not takes the smaller type it uses). It logs the methods per
// file and the file graph's references, so `go test -v -run TestCoreShape` is the measure.
func TestCoreShape(t *testing.T) {
	dir := filepath.Join("..", "..")
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	var files []string
	perFile := map[string]int{}
	methods := 0
	for _, e := range ents {
		n := e.Name()
		if e.IsDir() || !strings.HasSuffix(n, ".go") || strings.HasSuffix(n, "_test.go") {
			continue
		}
		files = append(files, n)
		f, err := parser.ParseFile(fset, filepath.Join(dir, n), nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok {
				continue
			}
			if fd.Recv != nil {
				if isManager(fd.Recv.List[0].Type) {
					perFile[n]++
					methods++
				}
				continue
			}
			for _, p := range fd.Type.Params.List {
				if isManager(p.Type) {
					t.Errorf("%s: func %s takes a *Manager: make it a method, or let it take the smaller type it uses", n, fd.Name.Name)
				}
			}
		}
	}
	for _, n := range slices.Sorted(mapKeys(perFile)) {
		t.Logf("%-20s %2d methods of *Manager", n, perFile[n])
	}
	g, err := LoadFiles("../../..", "./core")
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("core: %d files, %d methods of *Manager, %d file-to-file references, %d of them back up", len(files), methods, g.Edges(), g.BackEdges())
	if len(files) > maxCoreFiles {
		t.Errorf("core has %d non-test files, over %d: move a cohesive group into a package of its own %v", len(files), maxCoreFiles, files)
	}
	if methods > maxManagerFunc {
		t.Errorf("*Manager has %d methods, over %d: a method that needs only part of the Manager belongs to the smaller type it uses", methods, maxManagerFunc)
	}
}

func isManager(e ast.Expr) bool {
	s, ok := e.(*ast.StarExpr)
	if !ok {
		return false
	}
	id, ok := s.X.(*ast.Ident)
	return ok && id.Name == "Manager"
}

func mapKeys[V any](m map[string]V) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}
