package registry

import (
	"bytes"
	"encoding/json"
	"fmt"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/cwx-dev/cwx/core/internal/jsontext"
)

// decodeInput parses a call's input into the tree jsonschema validates, exactly as
// encoding/json's Decoder with UseNumber builds it: map[string]any, []any, string,
// json.Number, bool and nil; a repeated member name keeps its last value; invalid UTF-8
// and lone surrogates in strings become U+FFFD. Anything after the value other than
// white space is refused, and so is nesting deeper than MaxInputDepth (errTooDeep), which
// keeps validation within the bound schemaCost was computed for.
//
// It is one pass without encoding/json's separate validating scan and reflection: a
// string without escapes or controls (a large text argument, typically) is found with
// two byte searches and copied once.
func decodeInput(data []byte) (any, error) {
	d := &inputDecoder{data: data}
	d.skipSpace()
	v, err := d.value(0)
	if err != nil {
		return nil, err
	}
	d.skipSpace()
	if d.pos != len(d.data) {
		return nil, errTrailing
	}
	return v, nil
}

// errTrailing: the input holds something after its JSON value.
var errTrailing = fmt.Errorf("more than one JSON value")

// errTooDeep: the input nests objects and arrays deeper than MaxInputDepth.
var errTooDeep = fmt.Errorf("nesting deeper than %d", MaxInputDepth)

type inputDecoder struct {
	data []byte
	pos  int
	buf  []byte            // an escaped string, decoded
	keys map[string]string // member names seen, so repeated names share one string
}

// maxInternedKeys bounds the name table of one input.
const maxInternedKeys = 1024

func (d *inputDecoder) errf(format string, args ...any) error {
	return fmt.Errorf("at byte %d: %s", d.pos, fmt.Sprintf(format, args...))
}

func (d *inputDecoder) skipSpace() {
	for d.pos < len(d.data) {
		switch d.data[d.pos] {
		case ' ', '\t', '\n', '\r':
			d.pos++
		default:
			return
		}
	}
}

func (d *inputDecoder) value(depth int) (any, error) {
	if d.pos >= len(d.data) {
		return nil, d.errf("unexpected end of input")
	}
	switch c := d.data[d.pos]; {
	case c == '{':
		return d.object(depth + 1)
	case c == '[':
		return d.array(depth + 1)
	case c == '"':
		b, err := d.str()
		return string(b), err
	case c == '-' || (c >= '0' && c <= '9'):
		return d.number()
	}
	for _, lit := range [...]struct {
		text string
		v    any
	}{{"true", true}, {"false", false}, {"null", nil}} {
		if len(d.data)-d.pos >= len(lit.text) && string(d.data[d.pos:d.pos+len(lit.text)]) == lit.text {
			d.pos += len(lit.text)
			return lit.v, nil
		}
	}
	return nil, d.errf("invalid character %q looking for the beginning of a value", d.data[d.pos])
}

func (d *inputDecoder) object(depth int) (any, error) {
	if depth > MaxInputDepth {
		return nil, fmt.Errorf("at byte %d: %w", d.pos, errTooDeep)
	}
	d.pos++ // {
	m := map[string]any{}
	d.skipSpace()
	if d.pos < len(d.data) && d.data[d.pos] == '}' {
		d.pos++
		return m, nil
	}
	for {
		d.skipSpace()
		if d.pos >= len(d.data) || d.data[d.pos] != '"' {
			return nil, d.errf("expected a member name")
		}
		kb, err := d.str()
		if err != nil {
			return nil, err
		}
		key := d.intern(kb)
		d.skipSpace()
		if d.pos >= len(d.data) || d.data[d.pos] != ':' {
			return nil, d.errf("expected ':' after a member name")
		}
		d.pos++
		d.skipSpace()
		v, err := d.value(depth)
		if err != nil {
			return nil, err
		}
		m[key] = v
		d.skipSpace()
		if d.pos < len(d.data) && d.data[d.pos] == ',' {
			d.pos++
			continue
		}
		if d.pos < len(d.data) && d.data[d.pos] == '}' {
			d.pos++
			return m, nil
		}
		return nil, d.errf("expected ',' or '}' after a member")
	}
}

// intern returns b as a string, shared with earlier names of the same text.
func (d *inputDecoder) intern(b []byte) string {
	if s, ok := d.keys[string(b)]; ok {
		return s
	}
	s := string(b)
	if d.keys == nil {
		d.keys = map[string]string{}
	}
	if len(d.keys) < maxInternedKeys {
		d.keys[s] = s
	}
	return s
}

func (d *inputDecoder) array(depth int) (any, error) {
	if depth > MaxInputDepth {
		return nil, fmt.Errorf("at byte %d: %w", d.pos, errTooDeep)
	}
	d.pos++ // [
	a := []any{}
	d.skipSpace()
	if d.pos < len(d.data) && d.data[d.pos] == ']' {
		d.pos++
		return a, nil
	}
	for {
		d.skipSpace()
		v, err := d.value(depth)
		if err != nil {
			return nil, err
		}
		a = append(a, v)
		d.skipSpace()
		if d.pos < len(d.data) && d.data[d.pos] == ',' {
			d.pos++
			continue
		}
		if d.pos < len(d.data) && d.data[d.pos] == ']' {
			d.pos++
			return a, nil
		}
		return nil, d.errf("expected ',' or ']' after an element")
	}
}

// str decodes the JSON string at d.pos (its opening quote). The result aliases the input
// or d.buf: convert it before the next call.
func (d *inputDecoder) str() ([]byte, error) {
	open := d.pos
	body := d.data[open+1:]
	if q := bytes.IndexByte(body, '"'); q >= 0 {
		if seg := body[:q]; bytes.IndexByte(seg, '\\') < 0 && !jsontext.HasControl(seg) && utf8.Valid(seg) {
			d.pos = open + 1 + q + 1
			return seg, nil
		}
	}
	d.pos++ // "
	d.buf = d.buf[:0]
	for {
		if d.pos >= len(d.data) {
			return nil, d.errf("unterminated string")
		}
		switch c := d.data[d.pos]; {
		case c == '"':
			d.pos++
			return d.buf, nil
		case c < 0x20:
			return nil, d.errf("control character %#02x in a string", c)
		case c == '\\':
			if err := d.escape(); err != nil {
				return nil, err
			}
		case c < utf8.RuneSelf:
			d.buf = append(d.buf, c)
			d.pos++
		default: // as encoding/json: each byte of invalid UTF-8 becomes U+FFFD
			r, size := utf8.DecodeRune(d.data[d.pos:])
			d.buf = utf8.AppendRune(d.buf, r)
			d.pos += size
		}
	}
}

// escape decodes one escape sequence into d.buf. As encoding/json, a surrogate that is
// not the first half of a valid pair becomes U+FFFD.
func (d *inputDecoder) escape() error {
	if d.pos+1 >= len(d.data) {
		return d.errf("unterminated escape")
	}
	e := d.data[d.pos+1]
	d.pos += 2
	if c := jsontext.ShortEscapes[e]; c != 0 {
		d.buf = append(d.buf, c)
		return nil
	}
	if e != 'u' {
		return d.errf("invalid escape \\%c", e)
	}
	r, ok := jsontext.Hex4(d.data[d.pos:])
	if !ok {
		return d.errf("invalid \\u escape")
	}
	d.pos += 4
	if utf16.IsSurrogate(r) {
		r2 := rune(-1)
		if rest := d.data[d.pos:]; len(rest) >= 2 && rest[0] == '\\' && rest[1] == 'u' {
			if h, ok := jsontext.Hex4(rest[2:]); ok {
				r2 = h
			}
		}
		if pair := utf16.DecodeRune(r, r2); pair != utf8.RuneError {
			r = pair
			d.pos += 6
		} else {
			r = utf8.RuneError
		}
	}
	d.buf = utf8.AppendRune(d.buf, r)
	return nil
}

// number checks the JSON number grammar and returns the literal as a json.Number.
func (d *inputDecoder) number() (any, error) {
	start := d.pos
	b := d.data
	end, _, fault := jsontext.ScanNumber(b, start)
	d.pos = end
	if fault != jsontext.NumberOK {
		return nil, d.errf("%s", fault)
	}
	return json.Number(b[start:d.pos]), nil
}
