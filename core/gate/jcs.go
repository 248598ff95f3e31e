package gate

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/cwx-dev/cwx/core/internal/jsontext"
)

// ErrNotCanonicalizable: the input is not I-JSON (RFC 7493) and has no RFC 8785 form.
var ErrNotCanonicalizable = errors.New("input cannot be canonicalized")

// maxDepth bounds nesting like the wire does.
const maxDepth = 64

// Canonicalize returns the RFC 8785 (JCS) form of a JSON text: no whitespace, object
// members sorted by the UTF-16 code units of their names, strings escaped as ECMAScript's
// JSON.stringify does, numbers formatted as ECMAScript's Number.prototype.toString.
// Invalid JSON, invalid UTF-8, lone surrogates, duplicate names, numbers outside the
// IEEE 754 double range and nesting deeper than 64 are refused with
// ErrNotCanonicalizable.
//
// It is one pass over the text writing straight into the result: a string without
// escapes or controls is copied as it is (its RFC 8785 form is its JSON form), and an
// object's members are reordered in place only when they arrive unsorted.
func Canonicalize(data []byte) ([]byte, error) {
	return canonicalize(data, false)
}

// checkCanonicalizable refuses what Canonicalize refuses, without writing the canonical
// form (a call approved by the posture needs no key).
func checkCanonicalizable(data []byte) error {
	_, err := canonicalize(data, true)
	return err
}

func canonicalize(data []byte, checkOnly bool) ([]byte, error) {
	if !utf8.Valid(data) {
		return nil, fmt.Errorf("%w: not valid UTF-8", ErrNotCanonicalizable)
	}
	p := &jcsParser{data: data, checkOnly: checkOnly}
	p.skipSpace()
	size := len(data)
	if checkOnly {
		size = 0
	}
	out, err := p.value(make([]byte, 0, size), 0)
	if err != nil {
		return nil, err
	}
	p.skipSpace()
	if p.pos != len(p.data) {
		return nil, p.errf("unexpected data after the JSON value")
	}
	return out, nil
}

type jcsParser struct {
	data      []byte
	pos       int
	checkOnly bool     // check only: strings, numbers and member order are not written
	members   []member // the members of the open objects, innermost last
	scratch   []byte   // an unsorted object's members while they are written back in order
	esc       []byte   // an escaped string, decoded
}

// member is one object member: its decoded name and where "name":value sits in the
// output.
type member struct {
	key        []byte
	start, end int
}

func (p *jcsParser) errf(format string, args ...any) error {
	return fmt.Errorf("%w: at byte %d: %s", ErrNotCanonicalizable, p.pos, fmt.Sprintf(format, args...))
}

func (p *jcsParser) skipSpace() {
	for p.pos < len(p.data) {
		switch p.data[p.pos] {
		case ' ', '\t', '\n', '\r':
			p.pos++
		default:
			return
		}
	}
}

func (p *jcsParser) value(out []byte, depth int) ([]byte, error) {
	if p.pos >= len(p.data) {
		return nil, p.errf("unexpected end of input")
	}
	switch c := p.data[p.pos]; {
	case c == '{':
		return p.object(out, depth+1)
	case c == '[':
		return p.array(out, depth+1)
	case c == '"':
		out, _, err := p.str(out, false)
		return out, err
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

func (p *jcsParser) object(out []byte, depth int) ([]byte, error) {
	if depth > maxDepth {
		return nil, p.errf("nesting deeper than %d", maxDepth)
	}
	p.pos++ // {
	p.skipSpace()
	if p.pos < len(p.data) && p.data[p.pos] == '}' {
		p.pos++
		return append(out, "{}"...), nil
	}
	out = append(out, '{')
	body, base := len(out), len(p.members)
	defer func() { p.members = p.members[:base] }()
	for {
		p.skipSpace()
		if p.pos >= len(p.data) || p.data[p.pos] != '"' {
			return nil, p.errf("expected a member name")
		}
		if len(p.members) > base {
			out = append(out, ',')
		}
		start := len(out)
		var key []byte
		var err error
		if out, key, err = p.str(out, true); err != nil {
			return nil, err
		}
		p.skipSpace()
		if p.pos >= len(p.data) || p.data[p.pos] != ':' {
			return nil, p.errf("expected ':'")
		}
		p.pos++
		p.skipSpace()
		out = append(out, ':')
		i := len(p.members)
		p.members = append(p.members, member{key: key, start: start})
		if out, err = p.value(out, depth); err != nil {
			return nil, err
		}
		p.members[i].end = len(out)
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
	out, err := p.order(out, body, p.members[base:])
	if err != nil {
		return nil, err
	}
	return append(out, '}'), nil
}

// order checks an object's member names for duplicates and, when the members are not
// already in RFC 8785 order, rewrites out[body:] with them sorted.
func (p *jcsParser) order(out []byte, body int, ms []member) ([]byte, error) {
	sorted := true
	for i := 1; i < len(ms); i++ {
		switch c := compareUTF16(ms[i-1].key, ms[i].key); {
		case c == 0:
			return nil, p.errf("duplicate member name %q", ms[i].key)
		case c > 0:
			sorted = false
		}
	}
	if sorted {
		return out, nil
	}
	slices.SortFunc(ms, func(a, b member) int { return compareUTF16(a.key, b.key) })
	for i := 1; i < len(ms); i++ {
		if compareUTF16(ms[i-1].key, ms[i].key) == 0 {
			return nil, p.errf("duplicate member name %q", ms[i].key)
		}
	}
	if p.checkOnly {
		return out, nil
	}
	p.scratch = append(p.scratch[:0], out[body:]...)
	out = out[:body]
	for i, m := range ms {
		if i > 0 {
			out = append(out, ',')
		}
		out = append(out, p.scratch[m.start-body:m.end-body]...)
	}
	return out, nil
}

// compareUTF16 orders two valid UTF-8 names by their UTF-16 code units. UTF-8 byte order
// is code point order, which differs from UTF-16 order only where a code point above
// U+FFFF (a surrogate pair, 0xD800–0xDBFF first) meets one in U+E000–U+FFFF.
func compareUTF16(a, b []byte) int {
	n := min(len(a), len(b))
	i := 0
	for i < n && a[i] == b[i] {
		i++
	}
	if i == n {
		return len(a) - len(b)
	}
	for i > 0 && !utf8.RuneStart(a[i]) { // back to the start of the differing runes
		i--
	}
	ra, _ := utf8.DecodeRune(a[i:])
	rb, _ := utf8.DecodeRune(b[i:])
	return int(utf16First(ra)) - int(utf16First(rb))
}

// utf16First maps a code point to a key ordered like its UTF-16 encoding: the first
// code unit in the high bits, and for a surrogate pair the low ten bits of the second
// below it (a BMP code point is never a surrogate, so it never ties with a pair).
func utf16First(r rune) rune {
	if r < 0x10000 {
		return r << 10
	}
	hi, lo := utf16.EncodeRune(r)
	return hi<<10 | lo&0x3ff
}

func (p *jcsParser) array(out []byte, depth int) ([]byte, error) {
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

// str appends the RFC 8785 form of the JSON string at p.pos (its opening quote). With
// wantKey it also returns the decoded contents (a member name). The input is valid UTF-8
// (Canonicalize checked), so a string without escapes or controls is its own canonical
// form and is copied in one piece.
func (p *jcsParser) str(out []byte, wantKey bool) ([]byte, []byte, error) {
	open := p.pos
	body := p.data[open+1:]
	if q := bytes.IndexByte(body, '"'); q >= 0 {
		if seg := body[:q]; bytes.IndexByte(seg, '\\') < 0 && !jsontext.HasControl(seg) {
			p.pos = open + 1 + q + 1
			if p.checkOnly {
				return out, seg, nil
			}
			return append(out, p.data[open:p.pos]...), seg, nil
		}
	}
	p.pos++ // "
	p.esc = p.esc[:0]
	for {
		if p.pos >= len(p.data) {
			return nil, nil, p.errf("unterminated string")
		}
		c := p.data[p.pos]
		switch {
		case c == '"':
			p.pos++
			if !p.checkOnly {
				out = jsontext.AppendString(out, p.esc, false) // JSON.stringify's escapes
			}
			if !wantKey {
				return out, nil, nil
			}
			return out, slices.Clone(p.esc), nil
		case c < 0x20:
			return nil, nil, p.errf("control character in a string")
		case c == '\\':
			r, err := p.escape()
			if err != nil {
				return nil, nil, err
			}
			p.esc = utf8.AppendRune(p.esc, r)
		default:
			p.esc = append(p.esc, c)
			p.pos++
		}
	}
}

// escape decodes one escape sequence, pairing surrogates and refusing lone ones.
func (p *jcsParser) escape() (rune, error) {
	if p.pos+1 >= len(p.data) {
		return 0, p.errf("unterminated escape")
	}
	e := p.data[p.pos+1]
	p.pos += 2
	if c := jsontext.ShortEscapes[e]; c != 0 {
		return rune(c), nil
	}
	if e != 'u' {
		return 0, p.errf("invalid escape \\%c", e)
	}
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

func (p *jcsParser) hex4() (rune, error) {
	if p.pos+4 > len(p.data) {
		return 0, p.errf("short \\u escape")
	}
	r, ok := jsontext.Hex4(p.data[p.pos:])
	if !ok {
		return 0, p.errf("invalid \\u escape")
	}
	p.pos += 4
	return r, nil
}

// number checks the JSON number grammar and appends the ECMAScript form. An integer of
// at most 15 digits is exact as a double and is its own ECMAScript form (but -0 is 0).
func (p *jcsParser) number(out []byte) ([]byte, error) {
	start := p.pos
	d := p.data
	end, integer, fault := jsontext.ScanNumber(d, start)
	p.pos = end
	if fault != jsontext.NumberOK {
		return nil, p.errf("%s", fault)
	}
	lit := d[start:p.pos]
	if p.checkOnly && integer && len(lit) <= 15 {
		return out, nil
	}
	if integer && len(lit) <= 15 {
		if string(lit) == "-0" {
			return append(out, '0'), nil
		}
		return append(out, lit...), nil
	}
	f, err := strconv.ParseFloat(string(lit), 64)
	if err != nil || math.IsInf(f, 0) {
		return nil, p.errf("number %s is outside the IEEE 754 double range", lit)
	}
	if p.checkOnly {
		return out, nil
	}
	return AppendESNumber(out, f), nil
}

// AppendESNumber appends f formatted as ECMAScript's Number.prototype.toString (the
// RFC 8785 number form). f must be finite.
func AppendESNumber(out []byte, f float64) []byte {
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
	var dbuf [24]byte
	digits := dbuf[:0]
	for _, c := range mant {
		if c != '.' {
			digits = append(digits, c)
		}
	}
	x := 0
	for _, c := range exp[1:] { // exp is a sign and digits
		x = x*10 + int(c-'0')
	}
	if exp[0] == '-' {
		x = -x
	}
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
