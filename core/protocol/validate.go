package protocol

import (
	"bytes"
	"fmt"
	"reflect"
	"strconv"
	"strings"
)

// checker validates a scanned value against a FieldType and stores it into dst, a
// settable value of the Go type the FieldType was derived from. Only members the shape
// knows are stored and keys match exactly, so nothing reaches a field whose key was not
// checked. Strings are the scanner's decoded values; a field of type any (json.RawMessage)
// is a slice of the payload, not a copy. An invalid dst (reflect.Value{}) only validates.
type checker struct {
	data      []byte
	big       []span // large values of data (see scanJSON)
	allStrict bool   // host→core: unknown fields refused at every depth
	method    string
	// path is where the value being checked sits, as a stack of segments rendered
	// ("result.content[0].text") only when a check fails.
	path  [MaxDepth + 2]pathSeg
	depth int
}

func (c *checker) fail(format string, args ...any) error {
	return violation(ErrShape, c.method, c.where(), format, args...)
}

// enter pushes a path segment for a child check; leave pops it.
func (c *checker) enter(seg pathSeg) { c.path[c.depth] = seg; c.depth++ }
func (c *checker) leave()            { c.depth-- }

// raw stores the value's bytes as written, without copying them.
func (c *checker) raw(v *jvalue, dst reflect.Value) {
	if dst.IsValid() {
		dst.SetBytes(c.data[v.start:v.end:v.end])
	}
}

// alloc follows (and allocates) pointers down to the value dst finally stores into.
func alloc(dst reflect.Value) reflect.Value {
	for dst.IsValid() && dst.Kind() == reflect.Pointer {
		if dst.IsNil() {
			dst.Set(reflect.New(dst.Type().Elem()))
		}
		dst = dst.Elem()
	}
	return dst
}

func (c *checker) check(ft FieldType, v *jvalue, dst reflect.Value) error {
	switch ft.T {
	case "any":
		c.raw(v, alloc(dst))
		return nil
	case "object_any":
		if v.kind != jObject {
			return c.fail("must be an object (got %s)", v.kind)
		}
		c.raw(v, alloc(dst))
		return nil
	case "string":
		if v.kind != jString {
			return c.fail("must be a string (got %s)", v.kind)
		}
		if dst = alloc(dst); dst.IsValid() {
			dst.SetString(v.str)
		}
		return nil
	case "bool":
		if v.kind != jBool {
			return c.fail("must be a boolean (got %s)", v.kind)
		}
		if dst = alloc(dst); dst.IsValid() {
			dst.SetBool(c.data[v.start] == 't')
		}
		return nil
	case "uint", "int":
		return c.integer(ft, v, alloc(dst))
	case "enum":
		if v.kind != jString {
			return c.fail("must be one of %s (got %s)", quoteList(ft.Values), v.kind)
		}
		for _, val := range ft.Values {
			if v.str == val {
				if dst = alloc(dst); dst.IsValid() {
					dst.SetString(val)
				}
				return nil
			}
		}
		return c.fail("%q is not one of %s", v.str, quoteList(ft.Values))
	case "array":
		return c.array(ft, v, alloc(dst))
	case "map":
		return c.mapping(ft, v, alloc(dst))
	case "shape":
		return c.shape(Shapes()[ft.Shape], v, alloc(dst))
	}
	return c.fail("internal: unknown field type %q", ft.T)
}

func (c *checker) integer(ft FieldType, v *jvalue, dst reflect.Value) error {
	if err := checkInteger(v, c.data, ft.T == "int"); err != "" {
		return c.fail("%s", err)
	}
	if !dst.IsValid() {
		return nil
	}
	n := integerValue(c.data[v.start:v.end]) // checked above: |n| <= MaxUint
	if dst.CanUint() {
		dst.SetUint(uint64(n))
		return nil
	}
	dst.SetInt(n)
	return nil
}

func (c *checker) array(ft FieldType, v *jvalue, dst reflect.Value) error {
	if v.kind != jArray {
		return c.fail("must be an array (got %s)", v.kind)
	}
	v.expand(c.data, c.big)
	if dst.IsValid() {
		dst.Set(reflect.MakeSlice(dst.Type(), len(v.items), len(v.items)))
	}
	for i := range v.items {
		var elem reflect.Value
		if dst.IsValid() {
			elem = dst.Index(i)
		}
		c.enter(pathSeg{index: i, kind: pathIndex})
		if err := c.check(*ft.Of, &v.items[i], elem); err != nil {
			return err
		}
		c.leave()
	}
	return nil
}

func (c *checker) mapping(ft FieldType, v *jvalue, dst reflect.Value) error {
	if v.kind != jObject {
		return c.fail("must be an object (got %s)", v.kind)
	}
	v.expand(c.data, c.big)
	if dst.IsValid() {
		dst.Set(reflect.MakeMapWithSize(dst.Type(), len(v.members)))
	}
	for i := range v.members {
		m := &v.members[i]
		var elem reflect.Value
		if dst.IsValid() {
			elem = reflect.New(dst.Type().Elem()).Elem()
		}
		c.enter(pathSeg{name: m.key, kind: pathMapKey})
		if err := c.check(*ft.Of, &m.val, elem); err != nil {
			return err
		}
		c.leave()
		if dst.IsValid() {
			dst.SetMapIndex(reflect.ValueOf(m.key).Convert(dst.Type().Key()), elem)
		}
	}
	return nil
}

func (c *checker) shape(sh *Shape, v *jvalue, dst reflect.Value) error {
	if v.kind != jObject {
		return c.fail("must be an object (got %s)", v.kind)
	}
	v.expand(c.data, c.big)
	strict := c.allStrict || sh.Strict
	for i := range v.members {
		m := &v.members[i]
		fi := sh.field(m.key)
		if fi < 0 {
			if strict {
				return c.fail("unknown field %q", m.key)
			}
			continue
		}
		f := &sh.Fields[fi]
		if m.val.kind == jNull && f.Type.T != "any" {
			if f.Required {
				return c.fail("missing field %q (null)", m.key)
			}
			continue // null means absent
		}
		var fv reflect.Value
		if dst.IsValid() {
			fv = dst.Field(fi) // Shape fields are the struct's fields, in order
		}
		c.enter(pathSeg{name: m.key})
		if err := c.check(f.Type, &m.val, fv); err != nil {
			return err
		}
		c.leave()
	}
	for _, f := range sh.Fields {
		if f.Required && v.get(f.Name) == nil {
			return c.fail("missing field %q", f.Name)
		}
	}
	if rule := shapeRules[sh.Name]; rule != nil {
		if reason, where := rule(v); reason != "" {
			c.enter(pathSeg{name: where})
			return c.fail("%s", reason)
		}
	}
	return nil
}

// field returns the index of the field named name (exact match), or -1.
func (sh *Shape) field(name string) int {
	for i := range sh.Fields {
		if sh.Fields[i].Name == name {
			return i
		}
	}
	return -1
}

// pathSeg is one step of a checker's path.
type pathSeg struct {
	name  string // a member name (pathMember, pathMapKey) or the root's name
	index int    // pathIndex
	kind  pathKind
}

type pathKind uint8

const (
	pathMember pathKind = iota // parent.name, or name alone at the root; "" adds nothing
	pathIndex                  // parent[index]
	pathMapKey                 // parent.name, always with the dot
)

// where renders the current path.
func (c *checker) where() string {
	var b strings.Builder
	for _, seg := range c.path[:c.depth] {
		switch {
		case seg.kind == pathIndex:
			b.WriteString("[" + strconv.Itoa(seg.index) + "]")
		case seg.kind == pathMapKey || (seg.name != "" && b.Len() > 0):
			b.WriteString("." + seg.name)
		default:
			b.WriteString(seg.name)
		}
	}
	return b.String()
}

// checkInteger returns a reason when v is not an integer literal within ±MaxUint
// (unsigned unless signed). Fractions and exponents are refused even when integral.
func checkInteger(v *jvalue, data []byte, signed bool) string {
	what := "an unsigned integer"
	if signed {
		what = "an integer"
	}
	if v.kind != jNumber {
		return fmt.Sprintf("must be %s (got %s)", what, v.kind)
	}
	lit := data[v.start:v.end]
	if signed && lit[0] == '-' {
		lit = lit[1:]
	}
	if bytes.ContainsAny(lit, "-.eE") {
		return fmt.Sprintf("must be %s (got %s)", what, v.literal(data))
	}
	if _, ok := magnitude(lit); !ok {
		return fmt.Sprintf("must be %s (%s exceeds 2^53-1)", what, v.literal(data))
	}
	return ""
}

// magnitude reads the digits of a validated integer literal, reporting whether the
// value is at most MaxUint.
func magnitude(digits []byte) (uint64, bool) {
	var n uint64
	for _, d := range digits {
		if n = n*10 + uint64(d-'0'); n > MaxUint {
			return 0, false
		}
	}
	return n, true
}

// integerValue returns the value of a literal checkInteger accepted.
func integerValue(lit []byte) int64 {
	if lit[0] == '-' {
		n, _ := magnitude(lit[1:])
		return -int64(n)
	}
	n, _ := magnitude(lit)
	return int64(n)
}

func quoteList(vals []string) string {
	q := make([]string, len(vals))
	for i, v := range vals {
		q[i] = strconv.Quote(v)
	}
	return strings.Join(q, ", ")
}
