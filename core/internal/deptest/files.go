package deptest

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/tools/go/packages"
)

// FileGraph maps each non-test file of one package (its base name) to the files of the same
// package whose package-level names it uses: a type, function, variable or constant, and a
// method or field of a type the package declares.
type FileGraph map[string][]string

// LoadFiles type-checks the package pattern names in dir (one package, its non-test files)
// and returns its file graph.
func LoadFiles(dir, pattern string) (FileGraph, error) {
	cfg := &packages.Config{Dir: dir, Mode: packages.NeedName | packages.NeedFiles | packages.NeedSyntax |
		packages.NeedTypes | packages.NeedTypesInfo}
	pkgs, err := packages.Load(cfg, pattern)
	if err != nil {
		return nil, fmt.Errorf("load %s: %w", pattern, err)
	}
	if len(pkgs) != 1 {
		return nil, fmt.Errorf("load %s: %d packages, want one", pattern, len(pkgs))
	}
	p := pkgs[0]
	if len(p.Errors) > 0 {
		return nil, fmt.Errorf("load %s: %v", pattern, p.Errors[0])
	}
	return fileGraph(p.Fset, p.Types, p.TypesInfo, p.Syntax), nil
}

func fileGraph(fset *token.FileSet, pkg *types.Package, info *types.Info, files []*ast.File) FileGraph {
	g := FileGraph{}
	for _, f := range files {
		from := filepath.Base(fset.Position(f.Pos()).Filename)
		uses := map[string]bool{}
		ast.Inspect(f, func(n ast.Node) bool {
			id, ok := n.(*ast.Ident)
			if !ok {
				return true
			}
			obj := info.Uses[id]
			if obj == nil || obj.Pkg() != pkg || !packageLevel(obj) {
				return true
			}
			if to := filepath.Base(fset.Position(obj.Pos()).Filename); to != from {
				uses[to] = true
			}
			return true
		})
		g[from] = slices.Sorted(func(yield func(string) bool) {
			for k := range uses {
				if !yield(k) {
					return
				}
			}
		})
	}
	return g
}

// packageLevel reports whether obj is declared at package level, or is a method or field
// (which belong to a package-level type).
func packageLevel(obj types.Object) bool {
	switch o := obj.(type) {
	case *types.Func:
		return o.Parent() == o.Pkg().Scope() || o.Signature().Recv() != nil
	case *types.Var:
		return o.IsField() || o.Parent() == o.Pkg().Scope()
	default:
		return obj.Parent() == obj.Pkg().Scope()
	}
}

// Edges counts the file-to-file references of g.
func (g FileGraph) Edges() int {
	n := 0
	for _, to := range g {
		n += len(to)
	}
	return n
}

// Cycles returns the groups of files that reach each other (the strongly connected
// components of more than one file), each sorted, the groups sorted by their first file. A
// package readable top-down has none.
func (g FileGraph) Cycles() [][]string {
	index, low := map[string]int{}, map[string]int{}
	onStack := map[string]bool{}
	var stack []string
	var out [][]string
	next := 0
	var visit func(v string)
	visit = func(v string) {
		index[v], low[v] = next, next
		next++
		stack = append(stack, v)
		onStack[v] = true
		for _, w := range g[v] {
			if _, seen := index[w]; !seen {
				visit(w)
				low[v] = min(low[v], low[w])
			} else if onStack[w] {
				low[v] = min(low[v], index[w])
			}
		}
		if low[v] != index[v] {
			return
		}
		var comp []string
		for {
			w := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			onStack[w] = false
			comp = append(comp, w)
			if w == v {
				break
			}
		}
		if len(comp) > 1 {
			slices.Sort(comp)
			out = append(out, comp)
		}
	}
	for _, v := range slices.Sorted(func(yield func(string) bool) {
		for k := range g {
			if !yield(k) {
				return
			}
		}
	}) {
		if _, seen := index[v]; !seen {
			visit(v)
		}
	}
	slices.SortFunc(out, func(a, b []string) int { return strings.Compare(a[0], b[0]) })
	return out
}

// BackEdges counts the references a→b where b also reaches a: the references that run back
// up a file order.
func (g FileGraph) BackEdges() int {
	comp := map[string]int{}
	for i, c := range g.Cycles() {
		for _, f := range c {
			comp[f] = i + 1
		}
	}
	n := 0
	for from, to := range g {
		for _, t := range to {
			if comp[from] != 0 && comp[from] == comp[t] {
				n++
			}
		}
	}
	return n
}
