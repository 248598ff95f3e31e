package protocol

import (
	"bytes"
	"slices"
	"sort"
	"strings"
	"sync"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/cwx-dev/cwx/core/internal/jsontext"
)

// The validating scanner. It refuses what encoding/json would silently accept: duplicate
// keys, invalid UTF-8 (including lone surrogate escapes), nesting deeper than MaxDepth, and
// anything after the single top-level value. Keys are kept exactly as written, so every
// later lookup is case-sensitive.
//
// The first pass validates the whole payload but records only the top-level object's
// members; a container's own members are recorded when the checker descends into it
// (expand), so a 32 MiB array inside a field of type any costs no tree at all. Expanding
// re-reads an already validated range in trusted mode: strings are skipped with a
// vectorised byte search and nothing is checked again, so descending through the levels
// of a large result costs a fraction of the validating pass.

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

// span is the byte range of one large value.
type span struct{ start, end int }

// bigValue is the size from which the validating pass records a value's span, so that
// re-reading its parent jumps over it instead of scanning it again.
const bigValue = 4 << 10

// expand records the members or items of a container scanned without them. The payload
// was validated by scanJSON, so scanning it again cannot fail; big holds the spans of
// its large values, sorted by start.
func (v *jvalue) expand(data []byte, big []span) {
	if v.expanded || (v.kind != jObject && v.kind != jArray) {
		return
	}
	s := &scanner{data: data, pos: v.start, build: 1, trusted: true, big: big}
	s.next = sort.Search(len(big), func(i int) bool { return big[i].start >= v.start })
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
	data   []byte
	pos    int
	build  int  // containers at this depth or less record their members and items
	spaced bool // whitespace was skipped somewhere (the value is not compact)
	// big lists large values: recorded by the validating pass when record is set,
	// jumped over by a trusted scan (next is the first span not yet behind it).
	record bool
	big    []span
	next   int
	// trusted is set when re-reading a range the validating pass accepted: strings are
	// skipped by searching for their closing quote and duplicate keys are not looked for.
	trusted bool
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

// scanJSON validates a payload and returns its top-level value, members recorded, and
// the spans of its large values sorted by start (for expand).
func scanJSON(data []byte) (*jvalue, []span, error) {
	s := &scanner{data: data, build: 1, record: true}
	s.skipSpace()
	v := new(jvalue)
	if err := s.value(v, 1); err != nil {
		return nil, nil, err
	}
	s.skipSpace()
	if s.pos != len(s.data) {
		return nil, nil, s.syntax("unexpected data after the top-level value")
	}
	slices.SortFunc(s.big, func(a, b span) int { return a.start - b.start }) // recorded by end
	return v, s.big, nil
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
			s.spaced = true
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
	if s.trusted && s.jump(v, depth) {
		return nil
	}
	switch c := s.data[s.pos]; {
	case c == '{' || c == '[':
		if depth > MaxDepth {
			return violation(ErrTooDeep, "", "", "JSON nests deeper than %d levels (at byte %d)", MaxDepth, s.pos)
		}
		var err error
		if c == '{' {
			err = s.object(v, depth)
		} else {
			err = s.array(v, depth)
		}
		if err == nil && s.record && v.end-v.start >= bigValue {
			s.addBig(v.start, v.end)
		}
		return err
	case c == '"':
		str, err := s.string(depth <= s.build+1, false)
		if err != nil {
			return err
		}
		v.kind, v.str = jString, str
		if s.record && s.pos-v.start >= bigValue {
			s.addBig(v.start, s.pos)
		}
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

func (s *scanner) addBig(start, end int) {
	if s.big == nil {
		s.big = make([]span, 0, 8)
	}
	s.big = append(s.big, span{start, end})
}

// jump skips a large value a trusted scan needs neither to record nor to decode, using
// the span the validating pass recorded, and reports whether it did.
func (s *scanner) jump(v *jvalue, depth int) bool {
	for s.next < len(s.big) && s.big[s.next].start < s.pos {
		s.next++
	}
	if s.next == len(s.big) || s.big[s.next].start != s.pos {
		return false
	}
	switch s.data[s.pos] {
	case '{':
		v.kind = jObject
	case '[':
		v.kind = jArray
	default:
		v.kind = jString
	}
	if (v.kind == jString && depth <= s.build+1) || (v.kind != jString && depth <= s.build) {
		return false // recorded or decoded: scan it
	}
	s.pos, v.end = s.big[s.next].end, s.big[s.next].end
	return true
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
		small [smallObject]string
		keys  = small[:0] // for duplicate detection; a set once it outgrows small
		seen  map[string]struct{}
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
		key, err := s.string(v.expanded || !s.trusted, true)
		if err != nil {
			return err
		}
		var dup bool
		if !s.trusted {
			keys, seen, dup = duplicate(keys, seen, key)
		}
		if dup {
			return violation(ErrDuplicateKey, "", "", "duplicate key %q in an object (at byte %d)", key, keyPos)
		}
		s.skipSpace()
		if s.pos >= len(s.data) || s.data[s.pos] != ':' {
			return s.syntax("expected ':' after an object key")
		}
		s.pos++
		s.skipSpace()
		if v.expanded {
			if v.members == nil {
				v.members = make([]jmember, 0, 4) // most objects fit: one allocation
			}
			v.members = append(v.members, jmember{key: key})
			err = s.value(&v.members[len(v.members)-1].val, depth+1)
		} else {
			err = s.value(s.discard(depth+1), depth+1)
		}
		if err != nil {
			return err
		}
		if done, err := s.separator(v, '}', "an object"); done || err != nil {
			return err
		}
	}
}

// separator consumes what follows a member or an item: ',' (another one comes), or the
// closing byte, which ends v. what names the container in errors.
func (s *scanner) separator(v *jvalue, closing byte, what string) (done bool, err error) {
	s.skipSpace()
	if s.pos >= len(s.data) {
		return false, s.syntax("unexpected end of input in %s", what)
	}
	switch s.data[s.pos] {
	case ',':
		s.pos++
		return false, nil
	case closing:
		s.pos++
		v.end = s.pos
		return true, nil
	}
	return false, s.syntax("expected ',' or '%c' in %s", closing, what)
}

// duplicate reports whether key was seen in this object, recording it otherwise: a
// linear scan while the keys fit in the caller's small buffer, a set after that.
func duplicate(keys []string, seen map[string]struct{}, key string) ([]string, map[string]struct{}, bool) {
	if seen == nil {
		for _, k := range keys {
			if k == key {
				return keys, nil, true
			}
		}
		if len(keys) < cap(keys) {
			return append(keys, key), nil, false
		}
		seen = make(map[string]struct{}, 4*len(keys))
		for _, k := range keys {
			seen[k] = struct{}{}
		}
	}
	if _, dup := seen[key]; dup {
		return keys, seen, true
	}
	seen[key] = struct{}{}
	return keys, seen, false
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
			if v.items == nil {
				v.items = make([]jvalue, 0, 4)
			}
			v.items = append(v.items, jvalue{})
			err = s.value(&v.items[len(v.items)-1], depth+1)
		} else {
			err = s.value(s.discard(depth+1), depth+1)
		}
		if err != nil {
			return err
		}
		if done, err := s.separator(v, ']', "an array"); done || err != nil {
			return err
		}
	}
}

func (s *scanner) number() error {
	end, _, fault := jsontext.ScanNumber(s.data, s.pos)
	s.pos = end
	if fault != jsontext.NumberOK {
		return s.syntax("invalid number")
	}
	return nil
}

// string reads a string literal at s.pos and returns its decoded value when want is set
// (it is only validated otherwise).
func (s *scanner) string(want, key bool) (string, error) {
	s.pos++ // opening quote
	start := s.pos
	if s.trusted {
		return s.trustedString(start, want, key)
	}
	// Fast path: no escapes.
	for s.pos < len(s.data) {
		s.pos += jsontext.PlainASCII(s.data[s.pos:])
		if s.pos >= len(s.data) {
			break
		}
		c := s.data[s.pos]
		switch {
		case c == '"':
			var str string
			if want {
				str = intern(s.data[start:s.pos], key)
			}
			s.pos++
			return str, nil
		case c == '\\':
			return s.slowString(start, want, 2*(s.pos-start)+16)
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

// trustedString finds the end of a string the validating pass accepted; its value is
// decoded only when wanted, and copied straight from the payload when it has no escapes.
func (s *scanner) trustedString(start int, want, key bool) (string, error) {
	for {
		i := bytes.IndexByte(s.data[s.pos:], '"')
		if i < 0 {
			return "", s.syntax("unterminated string")
		}
		q := s.pos + i
		n := 0 // backslashes right before the quote
		for q-n-1 >= start && s.data[q-n-1] == '\\' {
			n++
		}
		s.pos = q + 1
		if n%2 == 1 {
			continue // an escaped quote
		}
		if !want {
			return "", nil
		}
		if bytes.IndexByte(s.data[start:q], '\\') < 0 {
			return intern(s.data[start:q], key), nil
		}
		s.pos = start
		return s.slowString(start, true, q-start)
	}
}

// intern returns b as a string, shared with the protocol's own vocabulary (field names,
// enum values, "2.0") when it is one of those words, so the keys and tags of a message
// cost no allocation; key says b is an object key (values are only looked up when short).
func intern(b []byte, key bool) string {
	if key || len(b) <= maxWord {
		if w, ok := vocabulary()[string(b)]; ok {
			return w
		}
	}
	return string(b)
}

// maxWord bounds the length of string values intern looks up.
const maxWord = 32

var vocabulary = sync.OnceValue(func() map[string]string {
	words := map[string]string{"2.0": "2.0"}
	add := func(w string) { words[w] = w }
	for _, k := range envelopeKeys {
		add(k)
	}
	for _, sh := range Shapes() {
		for _, f := range sh.Fields {
			add(f.Name)
			for _, v := range f.Type.Values {
				add(v)
			}
			if f.Type.Of != nil {
				for _, v := range f.Type.Of.Values {
					add(v)
				}
			}
		}
	}
	for _, m := range methodTable {
		add(m.Name)
	}
	return words
})

func (s *scanner) rune() error {
	r, size := utf8.DecodeRune(s.data[s.pos:])
	if r == utf8.RuneError && size <= 1 {
		return violation(ErrInvalidUTF8, "", "", "invalid UTF-8 in a string (at byte %d)", s.pos)
	}
	s.pos += size
	return nil
}

// slowString reads the rest of a string that has escapes, from s.pos; size is a guess
// of its decoded length.
func (s *scanner) slowString(start int, want bool, size int) (string, error) {
	var buf strings.Builder
	if want {
		buf.Grow(size)
		buf.Write(s.data[start:s.pos])
	}
	for s.pos < len(s.data) {
		c := s.data[s.pos]
		switch {
		case c >= 0x20 && c < utf8.RuneSelf && c != '"' && c != '\\':
			n := max(jsontext.PlainASCII(s.data[s.pos:]), 1)
			if want {
				buf.Write(s.data[s.pos : s.pos+n])
			}
			s.pos += n
		case c == '"':
			s.pos++
			return buf.String(), nil
		case c == '\\' && s.pos+1 < len(s.data) && jsontext.ShortEscapes[s.data[s.pos+1]] != 0:
			if want {
				buf.WriteByte(jsontext.ShortEscapes[s.data[s.pos+1]])
			}
			s.pos += 2
		case c == '\\':
			r, err := s.escape()
			if err != nil {
				return "", err
			}
			if want {
				buf.WriteRune(r)
			}
		case c < 0x20:
			return "", s.syntax("control character in a string")
		default:
			at := s.pos
			if err := s.rune(); err != nil {
				return "", err
			}
			if want {
				buf.Write(s.data[at:s.pos])
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
		if e := jsontext.ShortEscapes[c]; e != 0 {
			s.pos += 2
			return rune(e), nil
		}
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
	return jsontext.Hex4(s.data[at:])
}
