package jsontext

import (
	"math/bits"
	"unicode/utf8"
)

// SWAR constants: one copy of a byte in every lane of a uint64.
const (
	lanes01 = 0x0101010101010101
	lanes80 = 0x8080808080808080
)

// PlainASCII returns how many leading bytes of b are printable ASCII other than '"' and
// '\\', reading eight bytes at a time; the caller handles the byte where it stops and the
// last few bytes of b one at a time.
func PlainASCII[T string | []byte](b T) int {
	n := 0
	for len(b)-n >= 8 {
		if f := special(load64(b[n:])); f != 0 {
			return n + bits.TrailingZeros64(f)/8
		}
		n += 8
	}
	return n
}

// load64 reads eight bytes little-endian (the compiler merges the loads).
func load64[T string | []byte](b T) uint64 {
	_ = b[7]
	return uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16 | uint64(b[3])<<24 |
		uint64(b[4])<<32 | uint64(b[5])<<40 | uint64(b[6])<<48 | uint64(b[7])<<56
}

// special flags, in the lane's high bit, the bytes of x PlainASCII stops at: a lane is
// flagged when x's own high bit is set (non-ASCII), or when subtracting 0x20 (a byte
// below 0x20), or 1 from the lane XOR '"' or XOR '\\' (a quote or a backslash), borrows
// into it. A lane of x below 0x80 gets its high bit from a subtraction only that way, so
// no plain byte is flagged unless a borrow ran into it from a lower lane, and borrows
// only start at a real stop: the lowest flagged lane is always one.
func special(x uint64) uint64 {
	return ((x - lanes01*0x20) | ((x ^ lanes01*'"') - lanes01) | ((x ^ lanes01*'\\') - lanes01) | x) & lanes80
}

const hexDigits = "0123456789abcdef"

// AppendString appends s as a JSON string, the one string writer of the Go side: control
// characters, '"' and '\\' escaped as JSON.stringify escapes them (\b \f \n \r \t, else
// \u00xx), invalid UTF-8 as \ufffd, and U+2028 and U+2029 escaped only when
// escapeSeparators is set. With it the output is encoding/json's without HTML escaping (the
// wire encoder's); without it, JSON.stringify's and RFC 8785's (the gate's canonical form,
// whose input is valid UTF-8).
func AppendString[T string | []byte](b []byte, s T, escapeSeparators bool) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		i += PlainASCII(s[i:])
		if i >= len(s) {
			break
		}
		c := s[i]
		if c >= 0x20 && c < utf8.RuneSelf && c != '"' && c != '\\' {
			i++
			continue
		}
		if c < utf8.RuneSelf {
			b = append(b, s[start:i]...)
			switch c {
			case '\\', '"':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := decodeRune(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			start = i + size
		case escapeSeparators && (r == '\u2028' || r == '\u2029'):
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
			start = i + size
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// decodeRune is utf8.DecodeRune for either kind of text.
func decodeRune[T string | []byte](s T) (rune, int) {
	switch v := any(s).(type) {
	case string:
		return utf8.DecodeRuneInString(v)
	case []byte:
		return utf8.DecodeRune(v)
	}
	return utf8.RuneError, 1
}
