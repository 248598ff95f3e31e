package dshbundle

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/cwx-dev/cwx/core/plugins"
)

// ErrNotBundle is matched by the error of a package.json without dsh.bundle.patch.
var ErrNotBundle = errors.New("not a DSH bundle package")

// The kinds of a row's source.
const (
	// SourceBundled: the plugin's package is inside a bundle (node_modules/<name>); importing
	// installs it, disabled and untrusted.
	SourceBundled = "bundled"
	// SourceInstalled: a cwx plugin with that id is installed and the bundle does not carry
	// it; importing leaves its code alone.
	SourceInstalled = "installed"
	// SourceMissing: neither; importing cannot install it.
	SourceMissing = "missing"
	// SourceUnsupported: the row names a module cwx cannot install as a plugin (a subpath of a
	// package, a file path, a Cordis loader module, a bundle package itself).
	SourceUnsupported = "unsupported"
)

// Source is where a row's plugin code comes from.
type Source struct {
	Kind    string `json:"kind"`
	Package string `json:"package,omitempty"` // the npm package name the row's name imports
	Bundle  string `json:"bundle,omitempty"`  // for SourceBundled, the bundle that carries it
	Dir     string `json:"-"`                 // for SourceBundled, the package folder
	Rel     string `json:"path,omitempty"`    // for SourceBundled, Dir relative to the bundle
	Closure string `json:"closure_sha256,omitempty"`
	Version string `json:"version,omitempty"`
	// Replaces is, for a bundled plugin whose id is installed with other bytes, the
	// installed closure: importing makes it a new version that runs only once reviewed again.
	Replaces string `json:"replaces_closure_sha256,omitempty"`
	Why      string `json:"why,omitempty"` // for SourceMissing and SourceUnsupported

	bundleIndex int // for SourceBundled, the index of Bundle in the composition
}

// Row is one entry of the resolved composition, in tree order (a group before its
// children).
type Row struct {
	Path  []string `json:"path"` // the ids of the enclosing groups, then the row's own
	ID    string   `json:"id"`
	Name  string   `json:"name"`
	Group bool     `json:"group,omitempty"`
	// Config is the row's config (a group's is its children, not repeated here), as plain
	// JSON values with each !!js expression as {"!!js": "<expr>"}.
	Config any `json:"config,omitempty"`
	// Disabled is "" for a row that runs (a group always does), "yes" for a row disabled
	// itself, `by group "<id>"` for one under a disabled group (DSH's disabled ancestry), and
	// "!!js <expr>" when an expression DSH evaluates at activation decides; a literal flag
	// wins over an expression.
	Disabled string `json:"disabled,omitempty"`
	// Other is the row's further keys (inject, intercept, isolate, label, …), as written.
	Other  map[string]any `json:"other,omitempty"`
	Source *Source        `json:"source,omitempty"` // nil for a group
	// Notes say what cwx does differently for this row.
	Notes []string `json:"notes,omitempty"`

	rawConfig any            // Config as parsed, !!js expressions as JSExpr
	rawOther  map[string]any // Other as parsed
}

// Bundle is one bundle package of a composition.
type Bundle struct {
	Name    string   `json:"name"`
	Version string   `json:"version"`
	Patches []string `json:"patches"` // dsh.bundle.patch, in order
}

// Composition is one bundle package, or several layered, resolved: its rows and the hash an import must match.
type Composition struct {
	Bundles  []Bundle  `json:"bundles"` // in the order their patches apply
	Rows     []Row     `json:"rows"`
	Warnings []Warning `json:"warnings,omitempty"`
	// SHA256 is the hash of the resolved composition (hex): every row's path, id, name,
	// group, config, disabled, other keys, source kind and the closure of the code it names.
	SHA256 string `json:"composition_sha256"`
}

// Lookup says which closure and version an installed cwx plugin of that id has; ok is false
// when none is installed.
type Lookup func(id string) (closure, version string, ok bool)

// MaxPackageJSON is the largest package.json read.
const MaxPackageJSON = 1 << 20

// Resolve reads the bundle packages at roots (folders; core/plugins' Store.Unpack gives one
// for a tarball), composes their patch files in order over an empty entry list with DSH's
// semantics (one package is one bundle; several are a DSH profile's bundle layers, as
// dsh.profile.bundles lists them), and resolves each row's source: the package inside the
// first bundle that carries it, else the installed plugin of that id, else missing. Every
// file is read through an [os.Root] on its bundle.
func Resolve(roots []string, installed Lookup, lim plugins.Limits) (*Composition, error) {
	if len(roots) == 0 || len(roots) > MaxBundles {
		return nil, fmt.Errorf("%d bundle packages (1 to %d)", len(roots), MaxBundles)
	}
	c := &Composition{}
	res := &resolver{installed: installed, lim: lim, seen: map[string]bool{}}
	var all []layerPatch
	for bi, root := range roots {
		r, err := os.OpenRoot(root)
		if err != nil {
			return nil, err
		}
		defer r.Close()
		b, patches, err := readBundle(r, bi)
		if err != nil {
			return nil, err
		}
		c.Bundles = append(c.Bundles, *b)
		res.bundles = append(res.bundles, openBundle{name: b.Name, root: root, r: r})
		all = append(all, patches...)
	}
	tree, warns, err := compose(all)
	if err != nil {
		return nil, fmt.Errorf("dsh.bundle.patch: %w", err)
	}
	c.Warnings = warns
	if err := res.rows(c, tree, nil, ""); err != nil {
		return nil, err
	}
	c.SHA256 = hashComposition(c)
	return c, nil
}

// MaxBundles is how many bundle packages one composition may layer.
const MaxBundles = 16

// readBundle reads one bundle's package.json and its patch files.
func readBundle(r *os.Root, bi int) (*Bundle, []layerPatch, error) {
	raw, err := readBounded(r, "package.json", MaxPackageJSON)
	if err != nil {
		return nil, nil, err
	}
	var pkg struct {
		Name    string          `json:"name"`
		Version string          `json:"version"`
		DSH     json.RawMessage `json:"dsh"`
	}
	if err := json.Unmarshal(raw, &pkg); err != nil {
		return nil, nil, fmt.Errorf("package.json: %w", err)
	}
	files, err := patchFiles(pkg.DSH)
	if err != nil {
		return nil, nil, err
	}
	var all []layerPatch
	for li, f := range files {
		data, err := readBounded(r, f, MaxPatchBytes)
		if err != nil {
			return nil, nil, fmt.Errorf("dsh.bundle.patch %q: %w", f, err)
		}
		ps, err := ParsePatches(f, data)
		if err != nil {
			return nil, nil, err
		}
		for i, p := range ps {
			all = append(all, layerPatch{bundle: bi, layer: li, index: i + 1, p: p})
		}
	}
	return &Bundle{Name: pkg.Name, Version: pkg.Version, Patches: files}, all, nil
}

// patchFiles reads dsh.bundle.patch: one path or a list of paths, each relative to the
// package and inside it.
func patchFiles(dsh json.RawMessage) ([]string, error) {
	var sec struct {
		Bundle *struct {
			Patch json.RawMessage `json:"patch"`
		} `json:"bundle"`
	}
	if len(dsh) == 0 || json.Unmarshal(dsh, &sec) != nil || sec.Bundle == nil || len(sec.Bundle.Patch) == 0 || string(sec.Bundle.Patch) == "null" {
		return nil, fmt.Errorf("package.json declares no dsh.bundle.patch: %w", ErrNotBundle)
	}
	var files []string
	var one string
	if err := json.Unmarshal(sec.Bundle.Patch, &one); err == nil {
		files = []string{one}
	} else if err := json.Unmarshal(sec.Bundle.Patch, &files); err != nil {
		return nil, errors.New("package.json: dsh.bundle.patch must be a path or a list of paths")
	}
	if len(files) == 0 || len(files) > MaxPatchFiles {
		return nil, fmt.Errorf("package.json: dsh.bundle.patch lists %d files (1 to %d)", len(files), MaxPatchFiles)
	}
	for i, f := range files {
		clean := path.Clean(strings.TrimPrefix(f, "./"))
		if f == "" || path.IsAbs(f) || strings.Contains(f, "\\") || clean == ".." || strings.HasPrefix(clean, "../") {
			return nil, fmt.Errorf("package.json: dsh.bundle.patch %q must be a path inside the package", f)
		}
		files[i] = clean
	}
	return files, nil
}

func readBounded(r *os.Root, name string, max int64) ([]byte, error) {
	fi, err := r.Lstat(name)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", name)
	}
	f, err := r.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > max {
		return nil, fmt.Errorf("%s is over %d bytes", name, max)
	}
	return data, nil
}

type resolver struct {
	bundles   []openBundle
	installed Lookup
	lim       plugins.Limits
	seen      map[string]bool // packages of earlier rows
	closures  map[string]string
}

type openBundle struct {
	name, root string
	r          *os.Root
}

func (res *resolver) rows(c *Composition, list []any, parent []string, disabledBy string) error {
	for _, e := range list {
		m, ok := e.(map[string]any)
		if !ok {
			return errors.New("dsh.bundle.patch: an entry of the composition is not a mapping")
		}
		row := Row{}
		row.ID, _ = m["id"].(string)
		row.Name, _ = m["name"].(string)
		if n, ok := m["name"]; ok && n != nil {
			if _, isStr := n.(string); !isStr {
				return fmt.Errorf("dsh.bundle.patch: entry %q: name must be a string", row.ID)
			}
		}
		row.Path = append(slices.Clone(parent), row.ID)
		row.Group = truthy(m["group"])
		own := disabledOf(m["disabled"])
		childBy := disabledBy
		if row.Group {
			// a group itself always runs; its disabled flag disables the rows it holds
			if own != "" {
				by := "by group " + strconv.Quote(row.ID)
				if js, ok := m["disabled"].(JSExpr); ok {
					by = "!!js " + js.Expr + " (on group " + strconv.Quote(row.ID) + ")"
				}
				childBy = stronger(disabledBy, by)
				row.Notes = append(row.Notes, "its disabled flag disables the rows it holds")
			}
		} else {
			row.Disabled = stronger(own, disabledBy)
		}
		for k, v := range m {
			switch k {
			case "id", "name", "group", "disabled":
			case "config":
				if !row.Group {
					row.Config, row.rawConfig = plain(v), v
				}
			default:
				if row.Other == nil {
					row.Other, row.rawOther = map[string]any{}, map[string]any{}
				}
				row.Other[k], row.rawOther[k] = plain(v), v
			}
		}
		if row.Group {
			c.Rows = append(c.Rows, row)
			children, _ := m["config"].([]any)
			if err := res.rows(c, children, row.Path, childBy); err != nil {
				return err
			}
			continue
		}
		src, err := res.source(row.Name)
		if err != nil {
			return err
		}
		row.Source = src
		if src.Package != "" && (src.Kind == SourceBundled || src.Kind == SourceInstalled) {
			if res.seen[src.Package] {
				row.Notes = append(row.Notes, "another row names the same plugin; cwx runs one instance of a plugin, with the config of config.toml")
			}
			res.seen[src.Package] = true
		}
		if hasJS(m["config"]) {
			row.Notes = append(row.Notes, "its config holds !!js expressions, which cwx does not evaluate")
		}
		if row.Other != nil {
			row.Notes = append(row.Notes, "cwx does not apply "+strings.Join(sortedKeys(row.Other), ", ")+" to a plugin")
		}
		c.Rows = append(c.Rows, row)
	}
	return nil
}

// stronger is the first of two disabled reasons that is certain, else the first given: a
// literal flag disables whatever an expression would say.
func stronger(a, b string) string {
	for _, r := range []string{a, b} {
		if r != "" && !strings.HasPrefix(r, "!!js ") {
			return r
		}
	}
	if a != "" {
		return a
	}
	return b
}

// disabledOf is a row's own disabled flag as the preview says it.
func disabledOf(v any) string {
	if js, ok := v.(JSExpr); ok {
		return "!!js " + js.Expr
	}
	if truthy(v) {
		return "yes"
	}
	return ""
}

// splitName returns the npm package a module name imports and the subpath after it.
func splitName(name string) (pkg, sub string) {
	parts := strings.Split(name, "/")
	n := 1
	if strings.HasPrefix(name, "@") {
		n = 2
	}
	if len(parts) < n {
		return "", ""
	}
	return strings.Join(parts[:n], "/"), strings.Join(parts[n:], "/")
}

func validPackage(pkg string) bool {
	if pkg == "" || len(pkg) > 214 {
		return false
	}
	for _, part := range strings.Split(strings.TrimPrefix(pkg, "@"), "/") {
		if part == "" || part == "." || part == ".." || strings.HasPrefix(part, ".") {
			return false
		}
		for _, r := range part {
			if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.' || r == '~') {
				return false
			}
		}
	}
	return true
}

func (res *resolver) source(name string) (*Source, error) {
	switch {
	case name == "":
		return &Source{Kind: SourceUnsupported, Why: "the row names no plugin"}, nil
	case strings.HasPrefix(name, ".") || strings.HasPrefix(name, "/") || strings.Contains(name, ":"):
		return &Source{Kind: SourceUnsupported, Why: "names a file or a Cordis loader module, not an npm package; cwx installs packages"}, nil
	}
	pkg, sub := splitName(name)
	if !validPackage(pkg) {
		return &Source{Kind: SourceUnsupported, Why: "is not an npm package name"}, nil
	}
	if sub != "" {
		return &Source{Kind: SourceUnsupported, Package: pkg, Why: "imports a subpath of " + pkg + "; cwx runs a package's own entries"}, nil
	}
	for _, b := range res.bundles {
		if pkg == b.name {
			return &Source{Kind: SourceUnsupported, Package: pkg, Why: "is a bundle package itself; cwx installs the plugins a bundle carries, never a bundle as a plugin"}, nil
		}
	}
	rel := path.Join("node_modules", pkg)
	for bi, b := range res.bundles {
		fi, err := b.r.Lstat(rel)
		if err == nil && fi.Mode()&os.ModeSymlink != 0 {
			return &Source{Kind: SourceMissing, Package: pkg, Bundle: b.name, Why: rel + " is a symlink; a bundle carries its plugins as folders"}, nil
		}
		if err != nil || !fi.IsDir() {
			continue
		}
		dir := filepath.Join(b.root, filepath.FromSlash(rel))
		if res.closures == nil {
			res.closures = map[string]string{}
		}
		clo, ok := res.closures[dir]
		if !ok {
			h, err := plugins.HashTree(dir, res.lim)
			if err != nil {
				return nil, fmt.Errorf("bundled %s: %w", pkg, err)
			}
			clo = h.SHA256
			res.closures[dir] = clo
		}
		s := &Source{Kind: SourceBundled, Package: pkg, Bundle: b.name, Dir: dir, Rel: rel, Closure: clo, bundleIndex: bi}
		if ic, _, ok := res.installed(pkg); ok && ic != clo {
			s.Replaces = ic
		}
		return s, nil
	}
	if clo, ver, ok := res.installed(pkg); ok {
		return &Source{Kind: SourceInstalled, Package: pkg, Closure: clo, Version: ver}, nil
	}
	return &Source{Kind: SourceMissing, Package: pkg, Why: "not in a bundle's node_modules and not installed in cwx"}, nil
}

// plain turns a parsed value into plain JSON values: a !!js expression becomes
// {"!!js": "<expr>"}.
func plain(v any) any {
	return MapTree(v, func(v any) any {
		if x, ok := v.(JSExpr); ok {
			return map[string]any{"!!js": x.Expr}
		}
		return v
	})
}

func hasJS(v any) bool {
	switch x := v.(type) {
	case JSExpr:
		return true
	case []any:
		return slices.ContainsFunc(x, hasJS)
	case map[string]any:
		for _, e := range x {
			if hasJS(e) {
				return true
			}
		}
	}
	return false
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// compositionMagic starts every composition hash; bump it if the framing changes.
const compositionMagic = "cwx-dsh-composition-v1\x00"

// hashComposition is sha256 over compositionMagic, each bundle's name and version, and for
// each row in order its path, id, name, group flag, disabled, config, other keys, source
// kind, package, carrying bundle and closure: each value framed by a type byte and a length, so two
// compositions hash alike only when they are the same. The patch files' bytes are not
// hashed (a comment does not change what is installed); what they resolve to is.
func hashComposition(c *Composition) string {
	h := sha256.New()
	w := &framer{h: h}
	w.str(compositionMagic)
	w.count(len(c.Bundles))
	for _, b := range c.Bundles {
		w.str(b.Name)
		w.str(b.Version)
	}
	w.count(len(c.Rows))
	for _, r := range c.Rows {
		w.count(len(r.Path))
		for _, p := range r.Path {
			w.str(p)
		}
		w.str(r.ID)
		w.str(r.Name)
		w.value(r.Group)
		w.str(r.Disabled)
		w.value(r.rawConfig)
		if r.rawOther == nil {
			w.value(nil)
		} else {
			w.value(r.rawOther)
		}
		if r.Source == nil {
			w.str("")
			continue
		}
		w.str(r.Source.Kind)
		w.str(r.Source.Package)
		w.str(r.Source.Bundle)
		w.str(r.Source.Rel)
		w.str(r.Source.Closure)
	}
	return hex.EncodeToString(h.Sum(nil))
}

type framer struct{ h io.Writer }

func (w *framer) count(n int) {
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], uint64(n))
	_, _ = w.h.Write(b[:])
}

func (w *framer) str(s string) {
	w.count(len(s))
	_, _ = io.WriteString(w.h, s)
}

func (w *framer) value(v any) {
	switch x := v.(type) {
	case nil:
		_, _ = w.h.Write([]byte{'n'})
	case bool:
		if x {
			_, _ = w.h.Write([]byte{'t'})
		} else {
			_, _ = w.h.Write([]byte{'f'})
		}
	case float64:
		_, _ = w.h.Write([]byte{'d'})
		var b [8]byte
		if x == 0 {
			x = 0 // -0 and 0 are one number in JSON
		}
		binary.BigEndian.PutUint64(b[:], math.Float64bits(x))
		_, _ = w.h.Write(b[:])
	case string:
		_, _ = w.h.Write([]byte{'s'})
		w.str(x)
	case JSExpr:
		_, _ = w.h.Write([]byte{'j'})
		w.str(x.Expr)
	case []any:
		_, _ = w.h.Write([]byte{'a'})
		w.count(len(x))
		for _, e := range x {
			w.value(e)
		}
	case map[string]any:
		_, _ = w.h.Write([]byte{'m'})
		w.count(len(x))
		for _, k := range sortedKeys(x) {
			w.str(k)
			w.value(x[k])
		}
	default:
		// the parser yields nothing else; a value of another type is a bug, framed apart
		_, _ = w.h.Write([]byte{'?'})
		w.str(fmt.Sprintf("%T", v))
	}
}
