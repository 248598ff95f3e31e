package core

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// StripEscapes removes what would let plugin text drive a terminal: ANSI escape sequences
// (CSI, OSC, DCS and other ESC forms, including their 8-bit C1 introducers), other control
// characters except newline and tab, and bidi controls. Invalid UTF-8 becomes U+FFFD.
func StripEscapes(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b.WriteRune(utf8.RuneError)
			i++
		case r == 0x1b:
			i += escapeLen(s[i:])
		case r == 0x9b || r == 0x9d || r == 0x90 || r == 0x9e || r == 0x9f || r == 0x98: // C1 CSI, OSC, DCS, PM, APC, SOS
			i += size + sequenceBody(s[i+size:], r == 0x9b)
		case r == '\n' || r == '\t':
			b.WriteRune(r)
			i += size
		case r == '\r':
			i += size // a carriage return could overwrite what was printed
		case unicode.IsControl(r) || unicode.Is(unicode.Bidi_Control, r) || r == '\u2028' || r == '\u2029':
			i += size
		default:
			b.WriteString(s[i : i+size])
			i += size
		}
	}
	return b.String()
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

// CutText cuts s to at most max bytes on a UTF-8 boundary and reports whether it cut.
func CutText(s string, max int) (string, bool) {
	if len(s) <= max {
		return s, false
	}
	i := max
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i], true
}
