package protocol

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"strconv"
	"strings"
	"sync"

	"github.com/cwx-dev/cwx/core/internal/jsontext"
)

// The wire encoder writes the protocol's own types (every type reachable from the
// method table, and RPCError) straight into the frame's buffer, byte for byte as
// encoding/json writes them without HTML escaping. It exists for large payloads:
// encoding/json validates and compacts a json.RawMessage with a byte-at-a-time state
// machine and copies it through an intermediate buffer; here a RawMessage is checked
// by the protocol's own scanner (which also refuses what the receiving side would:
// duplicate keys, invalid UTF-8, nesting deeper than MaxDepth counted from the
// envelope) and copied once, and strings are copied eight plain bytes at a time.
// Values of other types go through encoding/json.

// errNotWire reports a value the wire encoder does not handle; the caller falls back.
var errNotWire = errors.New("protocol: not a wire type")

type wireField struct {
	index     int
	key       string // `"name":`
	omitEmpty bool
	omitZero  bool
}

var wirePlans = sync.OnceValue(func() map[reflect.Type][]wireField {
	plans := make(map[reflect.Type][]wireField)
	var add func(t reflect.Type)
	add = func(t reflect.Type) {
		for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Map {
			if t == rawMessageType {
				return
			}
			t = t.Elem()
		}
		if t.Kind() != reflect.Struct {
			return
		}
		if _, done := plans[t]; done {
			return
		}
		fields := make([]wireField, 0, t.NumField())
		plans[t] = fields // marks t as done while its field types are added
		for i := range t.NumField() {
			f := t.Field(i)
			name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
			fields = append(fields, wireField{
				index:     i,
				key:       string(appendString(nil, name)) + ":",
				omitEmpty: hasOpt(opts, "omitempty"),
				omitZero:  hasOpt(opts, "omitzero"),
			})
			add(f.Type)
		}
		plans[t] = fields
	}
	for _, m := range methodTable {
		add(m.params)
		if m.result != nil {
			add(m.result)
		}
	}
	add(reflect.TypeFor[RPCError]())
	return plans
})

func hasOpt(opts, want string) bool {
	for opts != "" {
		var o string
		o, opts, _ = strings.Cut(opts, ",")
		if o == want {
			return true
		}
	}
	return false
}

// isWire reports whether the wire encoder handles values of type t. No wire type may
// have a MarshalJSON or MarshalText method (TestShapeFieldsAreStructFields checks).
func isWire(t reflect.Type) bool {
	if t == rawMessageType {
		return true
	}
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	_, ok := wirePlans()[t]
	return ok
}

// appendWire appends v, which sits at the given nesting depth of the message (the
// envelope is depth 1).
func appendWire(b []byte, v reflect.Value, depth int) ([]byte, error) {
	t := v.Type()
	if t == rawMessageType {
		return appendRaw(b, v.Bytes(), v.IsNil(), depth)
	}
	switch t.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			return append(b, "null"...), nil
		}
		return appendWire(b, v.Elem(), depth)
	case reflect.Struct:
		plan, ok := wirePlans()[t]
		if !ok {
			return nil, errNotWire
		}
		return appendStruct(b, v, plan, depth)
	case reflect.String:
		return appendString(b, v.String()), nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return strconv.AppendUint(b, v.Uint(), 10), nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return strconv.AppendInt(b, v.Int(), 10), nil
	case reflect.Bool:
		return strconv.AppendBool(b, v.Bool()), nil
	case reflect.Slice:
		if v.IsNil() {
			return append(b, "null"...), nil
		}
		b = append(b, '[')
		for i := range v.Len() {
			if i > 0 {
				b = append(b, ',')
			}
			var err error
			if b, err = appendWire(b, v.Index(i), depth+1); err != nil {
				return nil, err
			}
		}
		return append(b, ']'), nil
	}
	return nil, errNotWire
}

// wireSize estimates the encoded size of v (exact for plain ASCII strings and compact
// RawMessages), so the frame's buffer is allocated once.
func wireSize(v reflect.Value) int {
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			return 4
		}
		return wireSize(v.Elem())
	case reflect.Struct:
		n := 2
		for _, f := range wirePlans()[v.Type()] {
			n += len(f.key) + 1 + wireSize(v.Field(f.index))
		}
		return n
	case reflect.String:
		return v.Len() + 2
	case reflect.Slice:
		if v.Type() == rawMessageType {
			return v.Len()
		}
		n := 2
		for i := range v.Len() {
			n += wireSize(v.Index(i)) + 1
		}
		return n
	}
	return 20 // numbers and booleans
}

func appendStruct(b []byte, v reflect.Value, plan []wireField, depth int) ([]byte, error) {
	b = append(b, '{')
	first := true
	for _, f := range plan {
		fv := v.Field(f.index)
		if (f.omitEmpty && isEmpty(fv)) || (f.omitZero && fv.IsZero()) {
			continue
		}
		if !first {
			b = append(b, ',')
		}
		first = false
		b = append(b, f.key...)
		var err error
		if b, err = appendWire(b, fv, depth+1); err != nil {
			return nil, err
		}
	}
	return append(b, '}'), nil
}

// isEmpty is encoding/json's notion of empty for omitempty.
func isEmpty(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Array, reflect.Map, reflect.Slice, reflect.String:
		return v.Len() == 0
	case reflect.Bool:
		return !v.Bool()
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return v.Int() == 0
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return v.Uint() == 0
	case reflect.Float32, reflect.Float64:
		return v.Float() == 0
	case reflect.Interface, reflect.Pointer:
		return v.IsNil()
	}
	return false
}

// appendRaw validates raw as one JSON value nested at depth and appends it compacted.
// A nil RawMessage is null, as encoding/json writes it.
func appendRaw(b, raw []byte, isNil bool, depth int) ([]byte, error) {
	if isNil {
		return append(b, "null"...), nil
	}
	s := &scanner{data: raw}
	s.skipSpace()
	var v jvalue
	if err := s.value(&v, depth); err != nil {
		return nil, err
	}
	s.skipSpace()
	if s.pos != len(raw) {
		return nil, s.syntax("unexpected data after the value")
	}
	if !s.spaced {
		return append(b, raw...), nil
	}
	return appendCompact(b, raw), nil
}

// appendCompact appends valid JSON without the whitespace between tokens.
func appendCompact(b, raw []byte) []byte {
	for i := 0; i < len(raw); {
		switch c := raw[i]; c {
		case ' ', '\t', '\n', '\r':
			i++
		case '"':
			end := stringEnd(raw, i)
			b = append(b, raw[i:end]...)
			i = end
		default:
			b = append(b, c)
			i++
		}
	}
	return b
}

// stringEnd returns the index just past the string literal of valid JSON starting at
// raw[at] (its opening quote).
func stringEnd(raw []byte, at int) int {
	pos := at + 1
	for {
		q := pos + bytes.IndexByte(raw[pos:], '"')
		n := 0
		for q-n-1 > at && raw[q-n-1] == '\\' {
			n++
		}
		pos = q + 1
		if n%2 == 0 {
			return pos
		}
	}
}

// appendString appends s as a JSON string as encoding/json writes it without HTML escaping
// (U+2028 and U+2029 escaped, invalid UTF-8 as \ufffd).
func appendString(b []byte, s string) []byte { return jsontext.AppendString(b, s, true) }

// appendJSON appends v with encoding/json (no HTML escaping), for values that are not
// wire types.
func appendJSON(b []byte, v any) ([]byte, error) {
	buf := bytes.NewBuffer(b)
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}
