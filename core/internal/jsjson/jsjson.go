package jsjson

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/cwx-dev/cwx/core/gate"
	"github.com/cwx-dev/cwx/core/internal/jsontext"
)

// MaxDepth bounds the nesting of objects and arrays Reencode follows.
const MaxDepth = 512

// ErrNotJSON: the text is not one JSON value Reencode can follow.
var ErrNotJSON = errors.New("not a JSON text")

// Reencode returns JSON.stringify(JSON.parse(data)) (package doc).
func Reencode(data []byte) ([]byte, error) {
	p := &parser{data: data}
	p.space()
	out, err := p.value(make([]byte, 0, len(data)), 0)
	if err != nil {
		return nil, err
	}
	p.space()
	if p.pos != len(p.data) {
		return nil, p.errf("unexpected data after the JSON value")
	}
	return out, nil
}

type parser struct {
	data  []byte
	pos   int
	units []uint16 // the string being decoded, as UTF-16 code units
}

func (p *parser) errf(format string, args ...any) error {
	return fmt.Errorf("%w: at byte %d: %s", ErrNotJSON, p.pos, fmt.Sprintf(format, args...))
}

func (p *parser) space() {
	for p.pos < len(p.data) {
		switch p.data[p.pos] {
		case ' ', '\t', '\n', '\r':
			p.pos++
		default:
			return
		}
	}
}

func (p *parser) value(out []byte, depth int) ([]byte, error) {
	if p.pos >= len(p.data) {
		return nil, p.errf("unexpected end of input")
	}
	switch c := p.data[p.pos]; {
	case c == '{':
		return p.object(out, depth+1)
	case c == '[':
		return p.array(out, depth+1)
	case c == '"':
		return p.str(out)
	case c == '-' || (c >= '0' && c <= '9'):
		return p.number(out)
	}
	for _, lit := range [...]string{"true", "false", "null"} {
		if len(p.data)-p.pos >= len(lit) && string(p.data[p.pos:p.pos+len(lit)]) == lit {
			p.pos += len(lit)
			return append(out, lit...), nil
		}
	}
	return nil, p.errf("invalid value")
}

// member is one object member: its name as JSON.stringify writes it (quotes included: two
// names are the same JavaScript string exactly when these are equal) and its value's form.
type member struct {
	key, val []byte
	index    uint32 // the numeric value of an array-index name
	isIndex  bool
}

func (p *parser) object(out []byte, depth int) ([]byte, error) {
	if depth > MaxDepth {
		return nil, p.errf("nesting deeper than %d", MaxDepth)
	}
	p.pos++ // {
	p.space()
	if p.pos < len(p.data) && p.data[p.pos] == '}' {
		p.pos++
		return append(out, "{}"...), nil
	}
	var ms []member
	at := map[string]int{}
	for {
		p.space()
		if p.pos >= len(p.data) || p.data[p.pos] != '"' {
			return nil, p.errf("expected a member name")
		}
		key, err := p.str(nil)
		if err != nil {
			return nil, err
		}
		p.space()
		if p.pos >= len(p.data) || p.data[p.pos] != ':' {
			return nil, p.errf("expected ':'")
		}
		p.pos++
		p.space()
		val, err := p.value(nil, depth)
		if err != nil {
			return nil, err
		}
		if i, seen := at[string(key)]; seen {
			ms[i].val = val // the first position, the last value
		} else {
			at[string(key)] = len(ms)
			idx, isIndex := arrayIndex(key)
			ms = append(ms, member{key: key, val: val, index: idx, isIndex: isIndex})
		}
		p.space()
		if p.pos < len(p.data) && p.data[p.pos] == ',' {
			p.pos++
			continue
		}
		if p.pos < len(p.data) && p.data[p.pos] == '}' {
			p.pos++
			break
		}
		return nil, p.errf("expected ',' or '}'")
	}
	// array indices first, ascending; the other names keep their order
	slices.SortStableFunc(ms, func(a, b member) int {
		switch {
		case a.isIndex && b.isIndex:
			return int(int64(a.index) - int64(b.index))
		case a.isIndex:
			return -1
		case b.isIndex:
			return 1
		}
		return 0
	})
	out = append(out, '{')
	for i, m := range ms {
		if i > 0 {
			out = append(out, ',')
		}
		out = append(out, m.key...)
		out = append(out, ':')
		out = append(out, m.val...)
	}
	return append(out, '}'), nil
}

// arrayIndex reports whether the quoted name key is an array index: the canonical decimal
// form of an integer from 0 to 2³²−2.
func arrayIndex(key []byte) (uint32, bool) {
	digits := key[1 : len(key)-1]
	if len(digits) == 0 || len(digits) > 10 || (digits[0] == '0' && len(digits) > 1) {
		return 0, false
	}
	var v uint64
	for _, c := range digits {
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + uint64(c-'0')
	}
	if v > math.MaxUint32-1 {
		return 0, false
	}
	return uint32(v), true
}

func (p *parser) array(out []byte, depth int) ([]byte, error) {
	if depth > MaxDepth {
		return nil, p.errf("nesting deeper than %d", MaxDepth)
	}
	p.pos++ // [
	out = append(out, '[')
	p.space()
	if p.pos < len(p.data) && p.data[p.pos] == ']' {
		p.pos++
		return append(out, ']'), nil
	}
	for first := true; ; first = false {
		if !first {
			out = append(out, ',')
		}
		p.space()
		var err error
		if out, err = p.value(out, depth); err != nil {
			return nil, err
		}
		p.space()
		if p.pos < len(p.data) && p.data[p.pos] == ',' {
			p.pos++
			continue
		}
		if p.pos < len(p.data) && p.data[p.pos] == ']' {
			p.pos++
			return append(out, ']'), nil
		}
		return nil, p.errf("expected ',' or ']'")
	}
}

// str decodes the string at p.pos (its opening quote) into UTF-16 code units, as
// JSON.parse does, and appends it as JSON.stringify writes it.
func (p *parser) str(out []byte) ([]byte, error) {
	p.pos++ // "
	p.units = p.units[:0]
	for {
		if p.pos >= len(p.data) {
			return nil, p.errf("unterminated string")
		}
		c := p.data[p.pos]
		switch {
		case c == '"':
			p.pos++
			return appendString(out, p.units), nil
		case c < 0x20:
			return nil, p.errf("control character in a string")
		case c == '\\':
			if p.pos+1 >= len(p.data) {
				return nil, p.errf("unterminated escape")
			}
			e := p.data[p.pos+1]
			p.pos += 2
			if s := jsontext.ShortEscapes[e]; s != 0 {
				p.units = append(p.units, uint16(s))
				continue
			}
			if e != 'u' {
				return nil, p.errf("invalid escape \\%c", e)
			}
			r, ok := jsontext.Hex4(p.data[p.pos:])
			if !ok {
				return nil, p.errf("invalid \\u escape")
			}
			p.pos += 4
			p.units = append(p.units, uint16(r))
		case c < utf8.RuneSelf:
			p.units = append(p.units, uint16(c))
			p.pos++
		default:
			r, n := utf8.DecodeRune(p.data[p.pos:]) // RuneError for a byte that is not UTF-8
			p.pos += n
			p.units = utf16.AppendRune(p.units, r)
		}
	}
}

// appendString appends the string of code units s as JSON.stringify writes it: a surrogate
// pair as its character, a lone surrogate as a \u escape.
func appendString(out []byte, s []uint16) []byte {
	const hex = "0123456789abcdef"
	out = append(out, '"')
	for i := 0; i < len(s); i++ {
		u := s[i]
		switch {
		case u == '"':
			out = append(out, '\\', '"')
		case u == '\\':
			out = append(out, '\\', '\\')
		case u == '\b':
			out = append(out, '\\', 'b')
		case u == '\f':
			out = append(out, '\\', 'f')
		case u == '\n':
			out = append(out, '\\', 'n')
		case u == '\r':
			out = append(out, '\\', 'r')
		case u == '\t':
			out = append(out, '\\', 't')
		case u < 0x20:
			out = append(out, '\\', 'u', '0', '0', hex[u>>4], hex[u&0xf])
		case u < utf8.RuneSelf:
			out = append(out, byte(u))
		case utf16.IsSurrogate(rune(u)):
			if u < 0xdc00 && i+1 < len(s) && s[i+1] >= 0xdc00 && s[i+1] <= 0xdfff {
				out = utf8.AppendRune(out, utf16.DecodeRune(rune(u), rune(s[i+1])))
				i++
				continue
			}
			out = append(out, '\\', 'u', hex[u>>12], hex[u>>8&0xf], hex[u>>4&0xf], hex[u&0xf])
		default:
			out = utf8.AppendRune(out, rune(u))
		}
	}
	return append(out, '"')
}

// number appends the double JSON.parse reads from the number at p.pos, as JSON.stringify
// writes it: Number.prototype.toString, or null for a value beyond the double range.
func (p *parser) number(out []byte) ([]byte, error) {
	start := p.pos
	end, _, fault := jsontext.ScanNumber(p.data, start)
	p.pos = end
	if fault != jsontext.NumberOK {
		return nil, p.errf("%s", fault)
	}
	f, err := strconv.ParseFloat(string(p.data[start:end]), 64)
	var ne *strconv.NumError
	if err != nil && !(errors.As(err, &ne) && errors.Is(ne.Err, strconv.ErrRange)) {
		return nil, p.errf("number %s: %v", p.data[start:end], err)
	}
	if math.IsInf(f, 0) {
		return append(out, "null"...), nil
	}
	return gate.AppendESNumber(out, f), nil
}
