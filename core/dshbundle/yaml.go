package dshbundle

import (
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	yaml "go.yaml.in/yaml/v3"
)

// Bounds of one patch file.
const (
	// MaxPatchBytes is the largest patch file read.
	MaxPatchBytes = 1 << 20
	// MaxPatchFiles is how many files dsh.bundle.patch may list.
	MaxPatchFiles = 16
	// MaxDepth is the deepest nesting of lists and mappings in a patch file.
	MaxDepth = 64
	// MaxNodes is how many values a patch file may hold once its aliases are expanded.
	MaxNodes = 200_000
)

// JSExpr is a `!!js` scalar: an expression DSH evaluates in the row's context when the row
// activates. cwx never evaluates one; it is shown and hashed as written.
type JSExpr struct{ Expr string }

// ParseError is a patch file that is not a list of patch mappings in DSH's dialect.
type ParseError struct {
	File   string
	Line   int // 0 when unknown
	Reason string
}

func (e *ParseError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Reason)
	}
	return fmt.Sprintf("%s: %s", e.File, e.Reason)
}

// ParsePatches reads one patch file: a single YAML document holding a list of mappings.
// Values become nil, bool, float64 (every number, as JavaScript holds it), string, []any,
// map[string]any and [JSExpr]. What DSH's loader would read otherwise, or not at all, is a
// *ParseError: another tag, a merge key, a duplicate key, a key that is not a string, a
// number JSON cannot hold, more than one document, nesting over [MaxDepth] or more than
// [MaxNodes] values.
func ParsePatches(file string, data []byte) ([]map[string]any, error) {
	if len(data) > MaxPatchBytes {
		return nil, &ParseError{File: file, Reason: fmt.Sprintf("is over %d bytes", MaxPatchBytes)}
	}
	dec := yaml.NewDecoder(strings.NewReader(string(data)))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, &ParseError{File: file, Reason: "is empty; a patch file is a top-level YAML list of patch entries"}
		}
		return nil, &ParseError{File: file, Reason: "is not YAML: " + err.Error()}
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		return nil, &ParseError{File: file, Reason: "holds more than one YAML document"}
	}
	c := &converter{file: file}
	v, err := c.value(&doc, 0)
	if err != nil {
		return nil, err
	}
	list, ok := v.([]any)
	if !ok {
		return nil, &ParseError{File: file, Line: doc.Line, Reason: "must be a top-level YAML list of patch entries"}
	}
	out := make([]map[string]any, 0, len(list))
	for i, p := range list {
		m, ok := p.(map[string]any)
		if !ok {
			return nil, &ParseError{File: file, Reason: fmt.Sprintf("entry %d must be a mapping (a patch entry)", i+1)}
		}
		out = append(out, m)
	}
	return out, nil
}

type converter struct {
	file  string
	nodes int
}

func (c *converter) fail(n *yaml.Node, format string, args ...any) error {
	return &ParseError{File: c.file, Line: n.Line, Reason: fmt.Sprintf(format, args...)}
}

func (c *converter) value(n *yaml.Node, depth int) (any, error) {
	if depth > MaxDepth {
		return nil, c.fail(n, "nests deeper than %d levels", MaxDepth)
	}
	c.nodes++
	if c.nodes > MaxNodes {
		return nil, c.fail(n, "holds more than %d values (aliases expanded)", MaxNodes)
	}
	switch n.Kind {
	case yaml.DocumentNode:
		if len(n.Content) != 1 {
			return nil, c.fail(n, "is not one YAML document")
		}
		return c.value(n.Content[0], depth)
	case yaml.AliasNode:
		if n.Alias == nil {
			return nil, c.fail(n, "holds an alias to nothing")
		}
		return c.value(n.Alias, depth+1)
	case yaml.SequenceNode:
		if n.Tag != "" && n.Tag != "!!seq" {
			return nil, c.fail(n, "tag %s is not in DSH's patch dialect", n.Tag)
		}
		out := make([]any, 0, len(n.Content))
		for _, e := range n.Content {
			v, err := c.value(e, depth+1)
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		}
		return out, nil
	case yaml.MappingNode:
		if n.Tag != "" && n.Tag != "!!map" {
			return nil, c.fail(n, "tag %s is not in DSH's patch dialect", n.Tag)
		}
		out := make(map[string]any, len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, vn := n.Content[i], n.Content[i+1]
			if k.Kind != yaml.ScalarNode || k.ShortTag() == "!!merge" {
				return nil, c.fail(k, "a key must be a plain string (merge keys and complex keys are not in DSH's patch dialect)")
			}
			if _, dup := out[k.Value]; dup {
				return nil, c.fail(k, "duplicate key %q", k.Value)
			}
			v, err := c.value(vn, depth+1)
			if err != nil {
				return nil, err
			}
			out[k.Value] = v
		}
		return out, nil
	case yaml.ScalarNode:
		return c.scalar(n)
	}
	return nil, c.fail(n, "holds a YAML node of unknown kind")
}

func (c *converter) scalar(n *yaml.Node) (any, error) {
	tag := n.ShortTag()
	explicit := n.Style&yaml.TaggedStyle != 0
	switch {
	case explicit && (tag == "!!js" || n.Tag == "tag:yaml.org,2002:js"):
		return JSExpr{Expr: n.Value}, nil
	case explicit && tag != "!!str" && tag != "!!int" && tag != "!!float" && tag != "!!bool" && tag != "!!null":
		return nil, c.fail(n, "tag %s is not in DSH's patch dialect", n.Tag)
	case !explicit && n.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle|yaml.LiteralStyle|yaml.FoldedStyle) != 0:
		return n.Value, nil
	}
	switch tag {
	case "!!null":
		return nil, nil
	case "!!bool":
		var b bool
		if err := n.Decode(&b); err != nil {
			return nil, c.fail(n, "%q is not a boolean", n.Value)
		}
		return b, nil
	case "!!int", "!!float":
		var f float64
		if tag == "!!int" {
			var i int64
			if err := n.Decode(&i); err == nil {
				f = float64(i)
			} else if u, perr := strconv.ParseUint(n.Value, 0, 64); perr == nil {
				f = float64(u)
			} else if err := n.Decode(&f); err != nil {
				return nil, c.fail(n, "%q is not a number", n.Value)
			}
		} else if err := n.Decode(&f); err != nil {
			return nil, c.fail(n, "%q is not a number", n.Value)
		}
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return nil, c.fail(n, "%q is not a number JSON can hold", n.Value)
		}
		return f, nil
	}
	// !!str, and a plain scalar that reads as a date: a string, as in the JSON schema DSH
	// parses with
	return n.Value, nil
}
