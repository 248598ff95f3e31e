package protocol

import (
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// The validating scanner. It refuses what encoding/json would silently accept: duplicate
// keys, invalid UTF-8 (including lone surrogate escapes), nesting deeper than MaxDepth, and
// anything after the single top-level value. Keys are kept exactly as written, so every
// later lookup is case-sensitive.
//
// The first pass validates the whole payload but records only the top-level object's
// members; a container's own members are recorded when the checker descends into it
// (expand), so a 32 MiB array inside a field of type any costs no tree at all.

type jkind uint8

const (
	jNull jkind = iota
	jBool
	jNumber
	jString
	jArray
	jObject
)

func (k jkind) String() string {
	return [...]string{"null", "a boolean", "a number", "a string", "an array", "an object"}[k]
}

type jmember struct {
	key string
	val jvalue
}

// jvalue is one scanned value. Children are stored by value so that a large array costs
// one growing slice, not one allocation per element.
type jvalue struct {
	kind       jkind
	expanded   bool   // members/items are recorded (containers only)
	start, end int    // byte range in the payload
	str        string // the decoded string (strings only; numbers are read from the payload)
	members    []jmember
	items      []jvalue
}

// expand records the members or items of a container scanned without them. The payload
// was validated by scanJSON, so scanning it again cannot fail.
func (v *jvalue) expand(data []byte) {
	if v.expanded || (v.kind != jObject && v.kind != jArray) {
		return
	}
	s := &scanner{data: data, pos: v.start, build: 1}
	if err := s.value(v, 1); err != nil {
		panic("protocol: re-scanning a validated payload failed: " + err.Error())
	}
}

// get returns the member named key (exact match) or nil.
func (v *jvalue) get(key string) *jvalue {
	for i := range v.members {
		if v.members[i].key == key {
			return &v.members[i].val
		}
	}
	return nil
}

// literal returns the value's bytes as written in the payload.
func (v *jvalue) literal(data []byte) string { return string(data[v.start:v.end]) }

// present reports whether key is set to something other than null (null means absent).
func (v *jvalue) present(key string) bool {
	m := v.get(key)
	return m != nil && m.kind != jNull
}

type scanner struct {
	data  []byte
	pos   int
	build int // containers at this depth or less record their members and items
	// scratch holds, per depth, the value of a child that is validated but not recorded,
	// so skipping costs no allocation.
	scratch [MaxDepth + 2]jvalue
}

// discard returns a zeroed scratch value for a child at depth.
func (s *scanner) discard(depth int) *jvalue {
	v := &s.scratch[min(depth, MaxDepth+1)]
	*v = jvalue{}
	return v
}

func scanJSON(data []byte) (*jvalue, error) {
	s := &scanner{data: data, build: 1}
	s.skipSpace()
	v := new(jvalue)
	if err := s.value(v, 1); err != nil {
		return nil, err
	}
	s.skipSpace()
	if s.pos != len(s.data) {
		return nil, s.syntax("unexpected data after the top-level value")
	}
	return v, nil
}

func (s *scanner) syntax(format string, args ...any) error {
	args = append(args, s.pos)
	return violation(ErrSyntax, "", "", "payload is not JSON: "+format+" (at byte %d)", args...)
}

func (s *scanner) skipSpace() {
	for s.pos < len(s.data) {
		switch s.data[s.pos] {
		case ' ', '\t', '\n', '\r':
			s.pos++
		default:
			return
		}
	}
}

// value scans one value at s.pos into v.
func (s *scanner) value(v *jvalue, depth int) error {
	if s.pos >= len(s.data) {
		return s.syntax("unexpected end of input")
	}
	v.start = s.pos
	switch c := s.data[s.pos]; {
	case c == '{' || c == '[':
		if depth > MaxDepth {
			return violation(ErrTooDeep, "", "", "JSON nests deeper than %d levels (at byte %d)", MaxDepth, s.pos)
		}
		if c == '{' {
			return s.object(v, depth)
		}
		return s.array(v, depth)
	case c == '"':
		str, err := s.string(depth <= s.build+1)
		if err != nil {
			return err
		}
		v.kind, v.str = jString, str
	case c == '-' || (c >= '0' && c <= '9'):
		if err := s.number(); err != nil {
			return err
		}
		v.kind = jNumber
	default:
		if err := s.literal(v); err != nil {
			return err
		}
	}
	v.end = s.pos
	return nil
}

func (s *scanner) literal(v *jvalue) error {
	for _, lit := range [...]struct {
		text string
		kind jkind
	}{{"null", jNull}, {"true", jBool}, {"false", jBool}} {
		if len(s.data)-s.pos >= len(lit.text) && string(s.data[s.pos:s.pos+len(lit.text)]) == lit.text {
			s.pos += len(lit.text)
			v.kind = lit.kind
			return nil
		}
	}
	return s.syntax("unexpected character %q", s.data[s.pos])
}

// smallObject is the member count up to which duplicate keys are found by a linear scan.
const smallObject = 8

func (s *scanner) object(v *jvalue, depth int) error {
	v.kind, v.expanded = jObject, depth <= s.build
	s.pos++ // '{'
	var (
		keys []string // for duplicate detection
		seen map[string]struct{}
	)
	s.skipSpace()
	if s.pos < len(s.data) && s.data[s.pos] == '}' {
		s.pos++
		v.end = s.pos
		return nil
	}
	for {
		s.skipSpace()
		if s.pos >= len(s.data) || s.data[s.pos] != '"' {
			return s.syntax("expected an object key")
		}
		keyPos := s.pos
		key, err := s.string(true)
		if err != nil {
			return err
		}
		if duplicate(&keys, &seen, key) {
			return violation(ErrDuplicateKey, "", "", "duplicate key %q in an object (at byte %d)", key, keyPos)
		}
		s.skipSpace()
		if s.pos >= len(s.data) || s.data[s.pos] != ':' {
			return s.syntax("expected ':' after an object key")
		}
		s.pos++
		s.skipSpace()
		if v.expanded {
			v.members = append(v.members, jmember{key: key})
			err = s.value(&v.members[len(v.members)-1].val, depth+1)
		} else {
			err = s.value(s.discard(depth+1), depth+1)
		}
		if err != nil {
			return err
		}
		s.skipSpace()
		if s.pos >= len(s.data) {
			return s.syntax("unexpected end of input in an object")
		}
		switch s.data[s.pos] {
		case ',':
			s.pos++
		case '}':
			s.pos++
			v.end = s.pos
			return nil
		default:
			return s.syntax("expected ',' or '}' in an object")
		}
	}
}

// duplicate reports whether key was seen in this object, recording it otherwise: a
// linear scan for small objects, a set for large ones.
func duplicate(keys *[]string, seen *map[string]struct{}, key string) bool {
	if *seen == nil {
		for _, k := range *keys {
			if k == key {
				return true
			}
		}
		if *keys = append(*keys, key); len(*keys) <= smallObject {
			return false
		}
		*seen = make(map[string]struct{}, 2*len(*keys))
		for _, k := range *keys {
			(*seen)[k] = struct{}{}
		}
		return false
	}
	if _, dup := (*seen)[key]; dup {
		return true
	}
	(*seen)[key] = struct{}{}
	return false
}

func (s *scanner) array(v *jvalue, depth int) error {
	v.kind, v.expanded = jArray, depth <= s.build
	s.pos++ // '['
	s.skipSpace()
	if s.pos < len(s.data) && s.data[s.pos] == ']' {
		s.pos++
		v.end = s.pos
		return nil
	}
	for {
		s.skipSpace()
		var err error
		if v.expanded {
			v.items = append(v.items, jvalue{})
			err = s.value(&v.items[len(v.items)-1], depth+1)
		} else {
			err = s.value(s.discard(depth+1), depth+1)
		}
		if err != nil {
			return err
		}
		s.skipSpace()
		if s.pos >= len(s.data) {
			return s.syntax("unexpected end of input in an array")
		}
		switch s.data[s.pos] {
		case ',':
			s.pos++
		case ']':
			s.pos++
			v.end = s.pos
			return nil
		default:
			return s.syntax("expected ',' or ']' in an array")
		}
	}
}

func (s *scanner) number() error {
	digits := func() int {
		n := 0
		for s.pos < len(s.data) && s.data[s.pos] >= '0' && s.data[s.pos] <= '9' {
			s.pos++
			n++
		}
		return n
	}
	if s.data[s.pos] == '-' {
		s.pos++
	}
	if s.pos < len(s.data) && s.data[s.pos] == '0' {
		s.pos++
	} else if digits() == 0 {
		return s.syntax("invalid number")
	}
	if s.pos < len(s.data) && s.data[s.pos] == '.' {
		s.pos++
		if digits() == 0 {
			return s.syntax("invalid number")
		}
	}
	if s.pos < len(s.data) && (s.data[s.pos] == 'e' || s.data[s.pos] == 'E') {
		s.pos++
		if s.pos < len(s.data) && (s.data[s.pos] == '+' || s.data[s.pos] == '-') {
			s.pos++
		}
		if digits() == 0 {
			return s.syntax("invalid number")
		}
	}
	return nil
}

// string reads a string literal at s.pos and returns its decoded value when want is set
// (it is only validated otherwise).
func (s *scanner) string(want bool) (string, error) {
	s.pos++ // opening quote
	start := s.pos
	// Fast path: no escapes.
	for s.pos < len(s.data) {
		c := s.data[s.pos]
		switch {
		case c == '"':
			var str string
			if want {
				str = string(s.data[start:s.pos])
			}
			s.pos++
			return str, nil
		case c == '\\':
			return s.slowString(start, want)
		case c < 0x20:
			return "", s.syntax("control character in a string")
		case c < utf8.RuneSelf:
			s.pos++
		default:
			if err := s.rune(); err != nil {
				return "", err
			}
		}
	}
	return "", s.syntax("unterminated string")
}

func (s *scanner) rune() error {
	r, size := utf8.DecodeRune(s.data[s.pos:])
	if r == utf8.RuneError && size <= 1 {
		return violation(ErrInvalidUTF8, "", "", "invalid UTF-8 in a string (at byte %d)", s.pos)
	}
	s.pos += size
	return nil
}

func (s *scanner) slowString(start int, want bool) (string, error) {
	var buf []byte
	if want {
		buf = append(buf, s.data[start:s.pos]...)
	}
	for s.pos < len(s.data) {
		c := s.data[s.pos]
		switch {
		case c == '"':
			s.pos++
			return string(buf), nil
		case c == '\\':
			r, err := s.escape()
			if err != nil {
				return "", err
			}
			if want {
				buf = utf8.AppendRune(buf, r)
			}
		case c < 0x20:
			return "", s.syntax("control character in a string")
		case c < utf8.RuneSelf:
			if want {
				buf = append(buf, c)
			}
			s.pos++
		default:
			at := s.pos
			if err := s.rune(); err != nil {
				return "", err
			}
			if want {
				buf = append(buf, s.data[at:s.pos]...)
			}
		}
	}
	return "", s.syntax("unterminated string")
}

// escape decodes one escape sequence at s.pos (the backslash).
func (s *scanner) escape() (rune, error) {
	if s.pos+1 >= len(s.data) {
		return 0, s.syntax("unterminated escape")
	}
	c := s.data[s.pos+1]
	if c != 'u' {
		s.pos += 2
		switch c {
		case '"', '\\', '/':
			return rune(c), nil
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
		}
		s.pos -= 2
		return 0, s.syntax("invalid escape \\%c", c)
	}
	r1, ok := s.hex4(s.pos + 2)
	if !ok {
		return 0, s.syntax("invalid \\u escape")
	}
	at := s.pos
	s.pos += 6
	if !utf16.IsSurrogate(r1) {
		return r1, nil
	}
	if r1 < 0xDC00 && s.pos+1 < len(s.data) && s.data[s.pos] == '\\' && s.data[s.pos+1] == 'u' {
		if r2, ok := s.hex4(s.pos + 2); ok {
			if r := utf16.DecodeRune(r1, r2); r != utf8.RuneError {
				s.pos += 6
				return r, nil
			}
		}
	}
	return 0, violation(ErrInvalidUTF8, "", "", "lone UTF-16 surrogate escape in a string (at byte %d)", at)
}

func (s *scanner) hex4(at int) (rune, bool) {
	if at+4 > len(s.data) {
		return 0, false
	}
	n, err := strconv.ParseUint(string(s.data[at:at+4]), 16, 32)
	if err != nil {
		return 0, false
	}
	return rune(n), true
}
