package dshbundle

import (
	"fmt"
	"math"
)

// Warning is a patch DSH skips with a warning: it matched nothing, or targets what it
// cannot change. The composition goes on without it.
type Warning struct {
	Bundle int    `json:"bundle"` // index into Composition.Bundles
	Layer  int    `json:"layer"`  // index into that bundle's patch files
	Patch  int    `json:"patch"`  // 1-based position of the patch in its file
	Text   string `json:"text"`   // what DSH's loader would warn
}

// layerPatch is one patch with where it came from.
type layerPatch struct {
	bundle, layer, index int
	p                    map[string]any
}

// compose applies the patches, in order, to an empty entry list: DSH's include semantics
// (vendor/include applyEntryPatches, as its profile composer calls it). Rows with an id
// are indexed, groups' children included; an insert appends its rows to the top level, or
// with an id to that group's children, and indexes them so a later patch can target
// them; any other patch needs an id and replaces each of its keys but id and name on the
// row with that id, skipped when it names another plugin. A replaced group config is not
// indexed again, as in DSH. It fails only on what DSH's loader could not mount at all
// (an insert that is not a list of mappings, an id that is not a string).
func compose(patches []layerPatch) ([]any, []Warning, error) {
	var data []any
	var warns []Warning
	index := map[string]map[string]any{}
	var build func(rows []any)
	build = func(rows []any) {
		for _, r := range rows {
			m, _ := r.(map[string]any)
			if id, _ := m["id"].(string); id != "" {
				index[id] = m
			}
			if truthy(m["group"]) {
				if children, ok := m["config"].([]any); ok {
					build(children)
				}
			}
		}
	}
	for _, lp := range patches {
		p := deepCopy(lp.p).(map[string]any)
		warn := func(format string, args ...any) {
			warns = append(warns, Warning{Bundle: lp.bundle, Layer: lp.layer, Patch: lp.index, Text: fmt.Sprintf(format, args...)})
		}
		id, err := patchString(p, "id", lp)
		if err != nil {
			return nil, nil, err
		}
		name, err := patchString(p, "name", lp)
		if err != nil {
			return nil, nil, err
		}
		if ins := p["insert"]; truthy(ins) {
			rows, ok := ins.([]any)
			if !ok {
				return nil, nil, fmt.Errorf("patch %d: insert must be a list of entries", lp.index)
			}
			for i, r := range rows {
				m, ok := r.(map[string]any)
				if !ok {
					return nil, nil, fmt.Errorf("patch %d: insert row %d must be a mapping (an entry)", lp.index, i+1)
				}
				if err := checkRowIDs(m, lp.index); err != nil {
					return nil, nil, err
				}
			}
			if id != "" {
				target := index[id]
				switch {
				case target == nil:
					warn("patch insert: entry %q not found", id)
					continue
				case !truthy(target["group"]):
					warn("patch insert: entry %q is not a group", id)
					continue
				}
				children, _ := target["config"].([]any)
				target["config"] = append(children, rows...)
			} else {
				data = append(data, rows...)
			}
			build(rows)
			continue
		}
		if id == "" {
			warn("patch: id is required for non-insert patches")
			continue
		}
		target := index[id]
		if target == nil {
			warn("patch: entry %q not found", id)
			continue
		}
		if name != "" && name != target["name"] {
			warn("patch: name mismatch for %q (expected %q, got %q), skipping", id, fmt.Sprint(target["name"]), name)
			continue
		}
		for k, v := range p {
			if k == "id" || k == "name" || k == "insert" {
				continue
			}
			target[k] = v
		}
	}
	return data, warns, nil
}

// patchString reads a patch's id or name: absent, null or empty is "", a string is itself,
// anything else is refused (DSH compares them as strings).
func patchString(p map[string]any, key string, lp layerPatch) (string, error) {
	switch v := p[key].(type) {
	case nil:
		return "", nil
	case string:
		return v, nil
	default:
		if !truthy(v) {
			return "", nil
		}
		return "", fmt.Errorf("patch %d: %s must be a string", lp.index, key)
	}
}

// checkRowIDs refuses a row, or a row of its group, whose id is neither absent nor a string.
func checkRowIDs(m map[string]any, patch int) error {
	switch m["id"].(type) {
	case nil, string:
	default:
		return fmt.Errorf("patch %d: an entry's id must be a string", patch)
	}
	if children, ok := m["config"].([]any); ok && truthy(m["group"]) {
		for _, c := range children {
			if cm, ok := c.(map[string]any); ok {
				if err := checkRowIDs(cm, patch); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// truthy is JavaScript's truthiness of a parsed value; a !!js expression is an object, so
// true (DSH evaluates it only for disabled, at activation).
func truthy(v any) bool {
	switch x := v.(type) {
	case nil:
		return false
	case bool:
		return x
	case float64:
		return x != 0 && !math.IsNaN(x)
	case string:
		return x != ""
	}
	return true
}

// MapTree is a copy of the parsed value v, its objects and arrays copied and every other
// value replaced by leaf's answer for it (leaf nil keeps it): the one walk over a
// configuration tree.
func MapTree(v any, leaf func(any) any) any {
	switch x := v.(type) {
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = MapTree(e, leaf)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = MapTree(e, leaf)
		}
		return out
	}
	if leaf != nil {
		return leaf(v)
	}
	return v
}

func deepCopy(v any) any { return MapTree(v, nil) }
