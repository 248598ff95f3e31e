package gate

// The canonicalizer as it was before the one-pass rewrite (a tree of member values per
// object), kept as an oracle for differential tests of Canonicalize.

import (
	"bytes"
	"fmt"
	"math"
	"slices"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// oracleCanonicalize returns the RFC 8785 (JCS) form of a JSON text: no whitespace, object
// members sorted by the UTF-16 code units of their names, strings escaped as ECMAScript's
// JSON.stringify does, numbers formatted as ECMAScript's Number.prototype.toString.
// Invalid JSON, invalid UTF-8, lone surrogates, duplicate names, numbers outside the
// IEEE 754 double range and nesting deeper than 64 are refused with
// ErrNotCanonicalizable.
func oracleCanonicalize(data []byte) ([]byte, error) {
	if !utf8.Valid(data) {
		return nil, fmt.Errorf("%w: not valid UTF-8", ErrNotCanonicalizable)
	}
	p := &oracleParser{data: data}
	p.skipSpace()
	out, err := p.value(make([]byte, 0, len(data)), 0)
	if err != nil {
		return nil, err
	}
	p.skipSpace()
	if p.pos != len(p.data) {
		return nil, p.errf("unexpected data after the JSON value")
	}
	return out, nil
}

type oracleParser struct {
	data []byte
	pos  int
}

func (p *oracleParser) errf(format string, args ...any) error {
	return fmt.Errorf("%w: at byte %d: %s", ErrNotCanonicalizable, p.pos, fmt.Sprintf(format, args...))
}

func (p *oracleParser) skipSpace() {
	for p.pos < len(p.data) {
		switch p.data[p.pos] {
		case ' ', '\t', '\n', '\r':
			p.pos++
		default:
			return
		}
	}
}

func (p *oracleParser) value(out []byte, depth int) ([]byte, error) {
	if p.pos >= len(p.data) {
		return nil, p.errf("unexpected end of input")
	}
	switch c := p.data[p.pos]; {
	case c == '{':
		return p.object(out, depth+1)
	case c == '[':
		return p.array(out, depth+1)
	case c == '"':
		s, err := p.str()
		if err != nil {
			return nil, err
		}
		return oracleJCSString(out, s), nil
	case c == '-' || (c >= '0' && c <= '9'):
		return p.number(out)
	}
	for _, lit := range []string{"true", "false", "null"} {
		if bytes.HasPrefix(p.data[p.pos:], []byte(lit)) {
			p.pos += len(lit)
			return append(out, lit...), nil
		}
	}
	return nil, p.errf("invalid value")
}

type oracleMember struct {
	key   string
	units []uint16
	val   []byte
}

func (p *oracleParser) object(out []byte, depth int) ([]byte, error) {
	if depth > maxDepth {
		return nil, p.errf("nesting deeper than %d", maxDepth)
	}
	p.pos++ // {
	var members []oracleMember
	seen := map[string]bool{}
	p.skipSpace()
	if p.pos < len(p.data) && p.data[p.pos] == '}' {
		p.pos++
		return append(out, "{}"...), nil
	}
	for {
		p.skipSpace()
		if p.pos >= len(p.data) || p.data[p.pos] != '"' {
			return nil, p.errf("expected a member name")
		}
		key, err := p.str()
		if err != nil {
			return nil, err
		}
		if seen[key] {
			return nil, p.errf("duplicate member name %q", key)
		}
		seen[key] = true
		p.skipSpace()
		if p.pos >= len(p.data) || p.data[p.pos] != ':' {
			return nil, p.errf("expected ':'")
		}
		p.pos++
		p.skipSpace()
		val, err := p.value(nil, depth)
		if err != nil {
			return nil, err
		}
		members = append(members, oracleMember{key: key, units: utf16.Encode([]rune(key)), val: val})
		p.skipSpace()
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
	slices.SortFunc(members, func(a, b oracleMember) int { return slices.Compare(a.units, b.units) })
	out = append(out, '{')
	for i, m := range members {
		if i > 0 {
			out = append(out, ',')
		}
		out = oracleJCSString(out, m.key)
		out = append(out, ':')
		out = append(out, m.val...)
	}
	return append(out, '}'), nil
}

func (p *oracleParser) array(out []byte, depth int) ([]byte, error) {
	if depth > maxDepth {
		return nil, p.errf("nesting deeper than %d", maxDepth)
	}
	p.pos++ // [
	out = append(out, '[')
	p.skipSpace()
	if p.pos < len(p.data) && p.data[p.pos] == ']' {
		p.pos++
		return append(out, ']'), nil
	}
	for first := true; ; first = false {
		if !first {
			out = append(out, ',')
		}
		p.skipSpace()
		var err error
		if out, err = p.value(out, depth); err != nil {
			return nil, err
		}
		p.skipSpace()
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

// str decodes a JSON string starting at the opening quote.
func (p *oracleParser) str() (string, error) {
	p.pos++ // "
	start := p.pos
	for p.pos < len(p.data) { // fast path: no escapes
		c := p.data[p.pos]
		if c == '"' {
			s := string(p.data[start:p.pos])
			p.pos++
			return s, nil
		}
		if c == '\\' || c < 0x20 {
			break
		}
		p.pos++
	}
	b := append([]byte(nil), p.data[start:p.pos]...)
	for {
		if p.pos >= len(p.data) {
			return "", p.errf("unterminated string")
		}
		c := p.data[p.pos]
		switch {
		case c == '"':
			p.pos++
			return string(b), nil
		case c < 0x20:
			return "", p.errf("control character in a string")
		case c == '\\':
			r, err := p.escape()
			if err != nil {
				return "", err
			}
			b = utf8.AppendRune(b, r)
		default:
			b = append(b, c)
			p.pos++
		}
	}
}

// escape decodes one escape sequence, pairing surrogates and refusing lone ones.
func (p *oracleParser) escape() (rune, error) {
	if p.pos+1 >= len(p.data) {
		return 0, p.errf("unterminated escape")
	}
	e := p.data[p.pos+1]
	p.pos += 2
	switch e {
	case '"', '\\', '/':
		return rune(e), nil
	case 'b':
		return '\b', nil
	case 'f':
		return '\f', nil
	case 'n':
		return '\n', nil
	case 'r':
		return '\r', nil
	case 't':
		return '\t', nil
	case 'u':
		r, err := p.hex4()
		if err != nil {
			return 0, err
		}
		if !utf16.IsSurrogate(r) {
			return r, nil
		}
		if r >= 0xdc00 || p.pos+1 >= len(p.data) || p.data[p.pos] != '\\' || p.data[p.pos+1] != 'u' {
			return 0, p.errf("lone surrogate \\u%04x", r)
		}
		p.pos += 2
		r2, err := p.hex4()
		if err != nil {
			return 0, err
		}
		if d := utf16.DecodeRune(r, r2); d != utf8.RuneError {
			return d, nil
		}
		return 0, p.errf("lone surrogate \\u%04x", r)
	}
	return 0, p.errf("invalid escape \\%c", e)
}

func (p *oracleParser) hex4() (rune, error) {
	if p.pos+4 > len(p.data) {
		return 0, p.errf("short \\u escape")
	}
	v, err := strconv.ParseUint(string(p.data[p.pos:p.pos+4]), 16, 32)
	if err != nil {
		return 0, p.errf("invalid \\u escape")
	}
	p.pos += 4
	return rune(v), nil
}

// number checks the JSON number grammar and appends the ECMAScript form.
func (p *oracleParser) number(out []byte) ([]byte, error) {
	start := p.pos
	d := p.data
	if p.pos < len(d) && d[p.pos] == '-' {
		p.pos++
	}
	switch {
	case p.pos < len(d) && d[p.pos] == '0':
		p.pos++
	case p.pos < len(d) && d[p.pos] >= '1' && d[p.pos] <= '9':
		p.digits()
	default:
		return nil, p.errf("invalid number")
	}
	if p.pos < len(d) && d[p.pos] == '.' {
		p.pos++
		if p.digits() == 0 {
			return nil, p.errf("invalid number: no digits after '.'")
		}
	}
	if p.pos < len(d) && (d[p.pos] == 'e' || d[p.pos] == 'E') {
		p.pos++
		if p.pos < len(d) && (d[p.pos] == '+' || d[p.pos] == '-') {
			p.pos++
		}
		if p.digits() == 0 {
			return nil, p.errf("invalid number: no exponent digits")
		}
	}
	f, err := strconv.ParseFloat(string(d[start:p.pos]), 64)
	if err != nil || math.IsInf(f, 0) {
		return nil, p.errf("number %s is outside the IEEE 754 double range", d[start:p.pos])
	}
	return oracleESNumber(out, f), nil
}

func (p *oracleParser) digits() int {
	n := 0
	for p.pos < len(p.data) && p.data[p.pos] >= '0' && p.data[p.pos] <= '9' {
		p.pos++
		n++
	}
	return n
}

// oracleESNumber appends f formatted as ECMAScript's Number.prototype.toString (the
// RFC 8785 number form). f must be finite.
func oracleESNumber(out []byte, f float64) []byte {
	if f == 0 {
		return append(out, '0') // also -0
	}
	if f < 0 {
		out = append(out, '-')
		f = -f
	}
	// Shortest round-trip digits and exponent: "d.ddde±x".
	var buf [32]byte
	s := strconv.AppendFloat(buf[:0], f, 'e', -1, 64)
	ePos := bytes.IndexByte(s, 'e')
	mant, exp := s[:ePos], s[ePos+1:]
	digits := make([]byte, 0, len(mant))
	for _, c := range mant {
		if c != '.' {
			digits = append(digits, c)
		}
	}
	x, _ := strconv.Atoi(string(exp))
	k, n := len(digits), x+1 // value = 0.digits × 10^n
	switch {
	case k <= n && n <= 21:
		out = append(out, digits...)
		for range n - k {
			out = append(out, '0')
		}
	case 0 < n && n <= 21:
		out = append(out, digits[:n]...)
		out = append(out, '.')
		out = append(out, digits[n:]...)
	case -6 < n && n <= 0:
		out = append(out, "0."...)
		for range -n {
			out = append(out, '0')
		}
		out = append(out, digits...)
	default:
		out = append(out, digits[0])
		if k > 1 {
			out = append(out, '.')
			out = append(out, digits[1:]...)
		}
		out = append(out, 'e')
		if n-1 >= 0 {
			out = append(out, '+')
		}
		out = strconv.AppendInt(out, int64(n-1), 10)
	}
	return out
}

// oracleJCSString appends s as ECMAScript's JSON.stringify writes it.
func oracleJCSString(out []byte, s string) []byte {
	const hex = "0123456789abcdef"
	out = append(out, '"')
	run := 0 // start of the pending run of bytes copied as they are
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' {
			continue
		}
		out = append(out, s[run:i]...)
		run = i + 1
		switch c {
		case '"':
			out = append(out, '\\', '"')
		case '\\':
			out = append(out, '\\', '\\')
		case '\b':
			out = append(out, '\\', 'b')
		case '\f':
			out = append(out, '\\', 'f')
		case '\n':
			out = append(out, '\\', 'n')
		case '\r':
			out = append(out, '\\', 'r')
		case '\t':
			out = append(out, '\\', 't')
		default:
			out = append(out, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
		}
	}
	out = append(out, s[run:]...)
	return append(out, '"')
}
