package protocol

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// checker validates a scanned value against a FieldType and writes its projection: the
// same JSON with exactly the known fields, optional nulls dropped. encoding/json decodes
// the projection, so its case-insensitive key matching never sees a key we did not check.
type checker struct {
	data      []byte
	allStrict bool // host→core: unknown fields refused at every depth
	method    string
	out       bytes.Buffer
}

func (c *checker) fail(path, format string, args ...any) error {
	return violation(ErrShape, c.method, path, format, args...)
}

func (c *checker) raw(v *jvalue) { c.out.Write(c.data[v.start:v.end]) }

// writeKey writes an object key and its colon as JSON (strconv.Quote is not JSON).
func (c *checker) writeKey(key string) {
	b, _ := json.Marshal(key) // a string always encodes
	c.out.Write(b)
	c.out.WriteByte(':')
}

func (c *checker) check(ft FieldType, v *jvalue, path string) error {
	switch ft.T {
	case "any":
		c.raw(v)
		return nil
	case "object_any":
		if v.kind != jObject {
			return c.fail(path, "must be an object (got %s)", v.kind)
		}
		c.raw(v)
		return nil
	case "string":
		if v.kind != jString {
			return c.fail(path, "must be a string (got %s)", v.kind)
		}
		c.raw(v)
		return nil
	case "bool":
		if v.kind != jBool {
			return c.fail(path, "must be a boolean (got %s)", v.kind)
		}
		c.raw(v)
		return nil
	case "uint", "int":
		if err := checkInteger(v, c.data, ft.T == "int"); err != "" {
			return c.fail(path, "%s", err)
		}
		c.raw(v)
		return nil
	case "enum":
		if v.kind != jString {
			return c.fail(path, "must be one of %s (got %s)", quoteList(ft.Values), v.kind)
		}
		for _, val := range ft.Values {
			if v.str == val {
				c.raw(v)
				return nil
			}
		}
		return c.fail(path, "%q is not one of %s", v.str, quoteList(ft.Values))
	case "array":
		return c.array(ft, v, path)
	case "map":
		return c.mapping(ft, v, path)
	case "shape":
		return c.shape(Shapes()[ft.Shape], v, path)
	}
	return c.fail(path, "internal: unknown field type %q", ft.T)
}

func (c *checker) array(ft FieldType, v *jvalue, path string) error {
	if v.kind != jArray {
		return c.fail(path, "must be an array (got %s)", v.kind)
	}
	v.expand(c.data)
	c.out.WriteByte('[')
	for i := range v.items {
		if i > 0 {
			c.out.WriteByte(',')
		}
		if err := c.check(*ft.Of, &v.items[i], fmt.Sprintf("%s[%d]", path, i)); err != nil {
			return err
		}
	}
	c.out.WriteByte(']')
	return nil
}

func (c *checker) mapping(ft FieldType, v *jvalue, path string) error {
	if v.kind != jObject {
		return c.fail(path, "must be an object (got %s)", v.kind)
	}
	v.expand(c.data)
	c.out.WriteByte('{')
	for i := range v.members {
		m := &v.members[i]
		if i > 0 {
			c.out.WriteByte(',')
		}
		c.writeKey(m.key)
		if err := c.check(*ft.Of, &m.val, path+"."+m.key); err != nil {
			return err
		}
	}
	c.out.WriteByte('}')
	return nil
}

func (c *checker) shape(sh *Shape, v *jvalue, path string) error {
	if v.kind != jObject {
		return c.fail(path, "must be an object (got %s)", v.kind)
	}
	v.expand(c.data)
	strict := c.allStrict || sh.Strict
	c.out.WriteByte('{')
	first := true
	for i := range v.members {
		m := &v.members[i]
		f := sh.field(m.key)
		if f == nil {
			if strict {
				return c.fail(path, "unknown field %q", m.key)
			}
			continue
		}
		if m.val.kind == jNull && f.Type.T != "any" {
			if f.Required {
				return c.fail(path, "missing field %q (null)", m.key)
			}
			continue // null means absent
		}
		if !first {
			c.out.WriteByte(',')
		}
		first = false
		c.writeKey(m.key)
		if err := c.check(f.Type, &m.val, join(path, m.key)); err != nil {
			return err
		}
	}
	c.out.WriteByte('}')
	for _, f := range sh.Fields {
		if f.Required && v.get(f.Name) == nil {
			return c.fail(path, "missing field %q", f.Name)
		}
	}
	if rule := shapeRules[sh.Name]; rule != nil {
		if reason, at := rule(v); reason != "" {
			return c.fail(join(path, at), "%s", reason)
		}
	}
	return nil
}

func (sh *Shape) field(name string) *FieldSpec {
	for i := range sh.Fields {
		if sh.Fields[i].Name == name {
			return &sh.Fields[i]
		}
	}
	return nil
}

func join(path, key string) string {
	if key == "" {
		return path
	}
	if path == "" {
		return key
	}
	return path + "." + key
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
	num := v.literal(data)
	lit := num
	if signed {
		lit = strings.TrimPrefix(lit, "-")
	}
	if strings.ContainsAny(lit, "-.eE") {
		return fmt.Sprintf("must be %s (got %s)", what, num)
	}
	n, err := strconv.ParseUint(lit, 10, 64)
	if err != nil || n > MaxUint {
		return fmt.Sprintf("must be %s (%s exceeds 2^53-1)", what, num)
	}
	return ""
}

func quoteList(vals []string) string {
	q := make([]string, len(vals))
	for i, v := range vals {
		q[i] = strconv.Quote(v)
	}
	return strings.Join(q, ", ")
}
