package inert

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Refused reports whether r is one of the characters plugin text may not hold.
func Refused(r rune) bool {
	switch {
	case r < 0x20:
		return r != '\t' && r != '\n'
	case r < 0x7f:
		return false
	case r <= 0x9f: // DEL and C1
		return true
	}
	switch r {
	case '\u061c', '\u200e', '\u200f', '\u2028', '\u2029', '\ufeff':
		return true
	}
	return (r >= '\u202a' && r <= '\u202e') || (r >= '\u2066' && r <= '\u2069')
}

// Error is a field refused for a character of the set.
type Error struct {
	Rune   rune
	Offset int // byte offset of the character in the field
}

func (e *Error) Error() string {
	return fmt.Sprintf("holds %U at byte %d, a control or bidi character that could change how the text reads on screen", e.Rune, e.Offset)
}

// Check returns an *Error for the first refused character of s (invalid UTF-8 counts as
// one at the offending byte), or nil.
func Check(s string) error {
	for i, r := range s {
		if r == utf8.RuneError {
			if _, size := utf8.DecodeRuneInString(s[i:]); size == 1 {
				return &Error{Rune: utf8.RuneError, Offset: i}
			}
		}
		if Refused(r) {
			return &Error{Rune: r, Offset: i}
		}
	}
	return nil
}

// Strip removes what would let s drive a terminal or reorder itself on screen: whole
// escape sequences (CSI, OSC, DCS and the other ESC forms, with their 8-bit C1
// introducers), then every other character of the refused set. Tab and newline stay;
// invalid UTF-8 becomes U+FFFD.
func Strip(s string) string {
	if clean(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b.WriteRune(utf8.RuneError)
		case r == 0x1b:
			size = escapeLen(s[i:])
		case r == 0x9b || r == 0x9d || r == 0x90 || r == 0x9e || r == 0x9f || r == 0x98: // C1 CSI, OSC, DCS, PM, APC, SOS
			size += sequenceBody(s[i+size:], r == 0x9b)
		case Refused(r):
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// clean reports whether s is valid UTF-8 without a refused character (Strip's fast path).
func clean(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 0x20 && c < 0x7f || c == '\t' || c == '\n' {
			continue
		}
		return Check(s[i:]) == nil
	}
	return true
}

// escapeLen is the length of the escape sequence at the start of s (s[0] == ESC).
func escapeLen(s string) int {
	if len(s) < 2 {
		return len(s)
	}
	switch s[1] {
	case '[':
		return 2 + sequenceBody(s[2:], true)
	case ']', 'P', '^', '_', 'X':
		return 2 + sequenceBody(s[2:], false)
	}
	// two-byte (or intermediate-byte) sequences: ESC, intermediates 0x20–0x2f, final byte
	n := 1
	for n < len(s) && s[n] >= 0x20 && s[n] <= 0x2f {
		n++
	}
	if n < len(s) {
		n++
	}
	return n
}

// sequenceBody is the length of a CSI body (parameters up to a final byte 0x40–0x7e) or of
// a string body (up to BEL, ST or ESC \).
func sequenceBody(s string, csi bool) int {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if csi {
			if c >= 0x40 && c <= 0x7e {
				return i + 1
			}
			if c < 0x20 || c > 0x7e {
				return i
			}
			continue
		}
		switch {
		case c == 0x07:
			return i + 1
		case c == 0x1b && i+1 < len(s) && s[i+1] == '\\':
			return i + 2
		case c == 0xc2 && i+1 < len(s) && s[i+1] == 0x9c: // ST as UTF-8 U+009C
			return i + 2
		}
	}
	return len(s)
}

// EscapeJSON rewrites every refused character in the JSON text b as a \u escape (and
// invalid UTF-8 as \ufffd). encoding/json leaves DEL, C1 and the bidi controls raw; outside
// strings valid JSON holds none of them, so the rewrite keeps b valid and equal in value.
func EscapeJSON(b []byte) []byte {
	i := 0
	for i < len(b) && b[i] < utf8.RuneSelf && b[i] != 0x7f {
		i++
	}
	if i == len(b) {
		return b
	}
	out := make([]byte, 0, len(b)+16)
	out = append(out, b[:i]...)
	for i < len(b) {
		r, size := utf8.DecodeRune(b[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			out = append(out, `\ufffd`...)
		case r >= 0x20 && Refused(r):
			out = fmt.Appendf(out, `\u%04x`, r)
		default:
			out = append(out, b[i:i+size]...)
		}
		i += size
	}
	return out
}

// Cut cuts s to at most max bytes on a UTF-8 boundary and reports whether it cut.
func Cut(s string, max int) (string, bool) {
	if len(s) <= max {
		return s, false
	}
	i := max
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i], true
}

// CheckText says why plugin text named what (a question, an option's label, a child's
// prompt) is refused, or "": over max bytes, not valid UTF-8, or holding a character of
// the refused set (Check).
func CheckText(what, s string, max int) string {
	switch {
	case len(s) > max:
		return fmt.Sprintf("%s is %d bytes; the limit is %d", what, len(s), max)
	case !utf8.ValidString(s):
		return what + " is not valid UTF-8"
	}
	if err := Check(s); err != nil {
		return fmt.Sprintf("%s %v", what, err)
	}
	return ""
}
