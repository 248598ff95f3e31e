package jsontext

import "encoding/binary"

// HasControl reports whether s holds a byte below 0x20, eight bytes at a time.
func HasControl(s []byte) bool {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	for len(s) >= 8 {
		x := binary.LittleEndian.Uint64(s)
		if (x-0x20*ones)&^x&highs != 0 { // a byte below 0x20 borrows into its own high bit
			return true
		}
		s = s[8:]
	}
	for _, c := range s {
		if c < 0x20 {
			return true
		}
	}
	return false
}

// Hex4 decodes the four hex digits that start b (either case). ok is false when b is
// shorter than four bytes or one of them is not a hex digit.
func Hex4(b []byte) (r rune, ok bool) {
	if len(b) < 4 {
		return 0, false
	}
	v := hexValues[b[0]]<<12 | hexValues[b[1]]<<8 | hexValues[b[2]]<<4 | hexValues[b[3]]
	if v < 0 {
		return 0, false
	}
	return rune(v), true
}

// hexValues maps a hex digit to its value and any other byte to -1 (whose bits, OR'ed
// into a shifted result, make it negative).
var hexValues = func() (t [256]int32) {
	for c := range t {
		switch {
		case c >= '0' && c <= '9':
			t[c] = int32(c - '0')
		case c >= 'a' && c <= 'f':
			t[c] = int32(c - 'a' + 10)
		case c >= 'A' && c <= 'F':
			t[c] = int32(c - 'A' + 10)
		default:
			t[c] = -1
		}
	}
	return t
}()

// ShortEscapes maps the byte after a backslash to the byte the escape stands for, for
// every escape but \u; it is 0 for a byte that does not start a valid escape.
var ShortEscapes = [256]byte{'"': '"', '\\': '\\', '/': '/', 'b': '\b', 'f': '\f', 'n': '\n', 'r': '\r', 't': '\t'}

// NumberFault says why ScanNumber stopped short of a number.
type NumberFault uint8

const (
	// NumberOK: the bytes from the start position form a number.
	NumberOK NumberFault = iota
	// NoIntegerDigits: no digit after the optional minus sign.
	NoIntegerDigits
	// NoFractionDigits: a '.' with no digit after it.
	NoFractionDigits
	// NoExponentDigits: an 'e' or 'E' (and optional sign) with no digit after it.
	NoExponentDigits
)

// String describes the fault the way the gate and the registry word it ("" for NumberOK).
func (f NumberFault) String() string {
	switch f {
	case NoIntegerDigits:
		return "invalid number"
	case NoFractionDigits:
		return "invalid number: no digits after '.'"
	case NoExponentDigits:
		return "invalid number: no exponent digits"
	}
	return ""
}

// ScanNumber reads the JSON number grammar (RFC 8259 §6) in b from pos. It returns the
// offset just past the number, whether the number is an integer (no fraction or
// exponent), and NumberOK; or, on a fault, the offset where the grammar failed. A
// leading zero ends the integer part, so "01" scans as the number "0" ending at pos+1.
func ScanNumber(b []byte, pos int) (end int, integer bool, fault NumberFault) {
	if pos < len(b) && b[pos] == '-' {
		pos++
	}
	switch {
	case pos < len(b) && b[pos] == '0':
		pos++
	case pos < len(b) && b[pos] >= '1' && b[pos] <= '9':
		pos = digits(b, pos+1)
	default:
		return pos, false, NoIntegerDigits
	}
	integer = true
	if pos < len(b) && b[pos] == '.' {
		integer = false
		at := pos + 1
		if pos = digits(b, at); pos == at {
			return pos, false, NoFractionDigits
		}
	}
	if pos < len(b) && (b[pos] == 'e' || b[pos] == 'E') {
		integer = false
		pos++
		if pos < len(b) && (b[pos] == '+' || b[pos] == '-') {
			pos++
		}
		at := pos
		if pos = digits(b, at); pos == at {
			return pos, false, NoExponentDigits
		}
	}
	return pos, integer, NumberOK
}

// digits returns the offset of the first non-digit in b at or after pos.
func digits(b []byte, pos int) int {
	for pos < len(b) && b[pos] >= '0' && b[pos] <= '9' {
		pos++
	}
	return pos
}
