package deptest

import (
	"fmt"
	"go/types"
	"slices"
	"strings"

	"golang.org/x/tools/go/packages"
)

// API lists the exported API of the package pattern names in dir, one line per exported
// name: each constant, variable, function and type with its type (an alias as `= target`),
// and each exported method of an exported type, sorted. A golden of it shows a package's
// API growing or shrinking in review.
func API(dir, pattern string) ([]string, error) {
	cfg := &packages.Config{Dir: dir, Mode: packages.NeedName | packages.NeedTypes}
	pkgs, err := packages.Load(cfg, pattern)
	if err != nil {
		return nil, fmt.Errorf("load %s: %w", pattern, err)
	}
	if len(pkgs) != 1 || len(pkgs[0].Errors) > 0 {
		return nil, fmt.Errorf("load %s: %v", pattern, pkgs)
	}
	pkg := pkgs[0].Types
	q := types.RelativeTo(pkg)
	var out []string
	scope := pkg.Scope()
	for _, name := range scope.Names() {
		obj := scope.Lookup(name)
		if !obj.Exported() {
			continue
		}
		switch o := obj.(type) {
		case *types.Const:
			out = append(out, fmt.Sprintf("const %s %s", name, types.TypeString(o.Type(), q)))
		case *types.Var:
			out = append(out, fmt.Sprintf("var %s %s", name, types.TypeString(o.Type(), q)))
		case *types.Func:
			out = append(out, fmt.Sprintf("func %s%s", name, types.TypeString(o.Signature(), q)[len("func"):]))
		case *types.TypeName:
			if o.IsAlias() {
				out = append(out, fmt.Sprintf("type %s = %s", name, types.TypeString(types.Unalias(o.Type()), q)))
			} else {
				out = append(out, fmt.Sprintf("type %s %s", name, underlying(o.Type().Underlying(), q)))
			}
			if o.IsAlias() {
				continue // its methods are the target's, listed with its own package
			}
			for _, t := range []types.Type{o.Type(), types.NewPointer(o.Type())} {
				ms := types.NewMethodSet(t)
				for i := range ms.Len() {
					m := ms.At(i).Obj()
					if !m.Exported() || ms.At(i).Indirect() && t == o.Type() {
						continue
					}
					if fn, ok := m.(*types.Func); ok && fn.Pkg() == pkg && len(ms.At(i).Index()) == 1 {
						recv := name
						if _, ptr := t.(*types.Pointer); ptr {
							recv = "*" + name
						}
						line := fmt.Sprintf("method (%s) %s%s", recv, m.Name(), types.TypeString(fn.Signature(), q)[len("func"):])
						if !slices.Contains(out, line) {
							out = append(out, line)
						}
					}
				}
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}

// underlying renders t, a struct with its exported fields only (an unexported field is the
// package's own business, not its API).
func underlying(t types.Type, q types.Qualifier) string {
	st, ok := t.(*types.Struct)
	if !ok {
		return types.TypeString(t, q)
	}
	var fields []string
	hidden := false
	for i := range st.NumFields() {
		f := st.Field(i)
		if !f.Exported() {
			hidden = true
			continue
		}
		fields = append(fields, f.Name()+" "+types.TypeString(f.Type(), q))
	}
	if hidden {
		fields = append(fields, "...")
	}
	return "struct{" + strings.Join(fields, "; ") + "}"
}
