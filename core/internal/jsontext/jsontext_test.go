package jsontext

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"testing"
)

func TestHasControl(t *testing.T) {
	tests := []struct {
		in   string
		want bool
	}{
		{"", false},
		{"plain", false},
		{"exactly8", false},
		{"sixteen bytes ok", false},
		{"tab\there", true},
		{"\x00", true},
		{"\x1f", true},
		{" ", false},
		{"\x7f\x80\xff\xfe", false},
		{"eight by\n", true},           // in the tail after a full word
		{"\x01seven b and more", true}, // first lane of the first word
		{"seven b\x1fand more", true},  // last lane of the first word
		{"\xff\xff\xff\xff\xff\xff\xff\x1f", true},
		{"héllo wörld, no controls", false},
	}
	for _, tt := range tests {
		if got := HasControl([]byte(tt.in)); got != tt.want {
			t.Errorf("HasControl(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

func TestHex4(t *testing.T) {
	tests := []struct {
		in     string
		want   rune
		wantOK bool
	}{
		{"0000", 0, true},
		{"00e9", 0xe9, true},
		{"D83D", 0xd83d, true},
		{"dE0a", 0xde0a, true},
		{"ffff", 0xffff, true},
		{"12345", 0x1234, true}, // only four digits are read
		{"123", 0, false},
		{"", 0, false},
		{"12g4", 0, false},
		{"+123", 0, false},
		{"-123", 0, false},
		{"1_23", 0, false},
		{" 123", 0, false},
	}
	for _, tt := range tests {
		got, ok := Hex4([]byte(tt.in))
		if got != tt.want || ok != tt.wantOK {
			t.Errorf("Hex4(%q) = %#x, %v, want %#x, %v", tt.in, got, ok, tt.want, tt.wantOK)
		}
	}
}

func TestShortEscapes(t *testing.T) {
	for c := range 256 {
		got := ShortEscapes[c]
		// What encoding/json decodes "\c" to, when it accepts it (\u needs digits).
		var want string
		if c != 'u' && json.Unmarshal([]byte(`"\`+string(rune(c))+`"`), &want) == nil && c < 0x80 {
			if got == 0 || string(rune(got)) != want {
				t.Errorf("ShortEscapes[%q] = %q, want %q", rune(c), got, want)
			}
			continue
		}
		if got != 0 {
			t.Errorf("ShortEscapes[%q] = %q, want 0 (not a short escape)", rune(c), got)
		}
	}
}

func TestScanNumber(t *testing.T) {
	tests := []struct {
		in      string
		pos     int
		end     int
		integer bool
		fault   NumberFault
	}{
		{"0", 0, 1, true, NumberOK},
		{"-0", 0, 2, true, NumberOK},
		{"123", 0, 3, true, NumberOK},
		{"-123,", 0, 4, true, NumberOK},
		{"01", 0, 1, true, NumberOK}, // the caller refuses the trailing "1"
		{"1.5", 0, 3, false, NumberOK},
		{"1e10", 0, 4, false, NumberOK},
		{"1E+10]", 0, 5, false, NumberOK},
		{"1.25e-3}", 0, 7, false, NumberOK},
		{"[42]", 1, 3, true, NumberOK},
		{"", 0, 0, false, NoIntegerDigits},
		{"-", 0, 1, false, NoIntegerDigits},
		{"-a", 0, 1, false, NoIntegerDigits},
		{"+1", 0, 0, false, NoIntegerDigits},
		{".5", 0, 0, false, NoIntegerDigits},
		{"1.", 0, 2, false, NoFractionDigits},
		{"1.e5", 0, 2, false, NoFractionDigits},
		{"1e", 0, 2, false, NoExponentDigits},
		{"1e+", 0, 3, false, NoExponentDigits},
		{"1.5E-x", 0, 5, false, NoExponentDigits},
		{"x-", 1, 2, false, NoIntegerDigits},
	}
	for _, tt := range tests {
		end, integer, fault := ScanNumber([]byte(tt.in), tt.pos)
		if end != tt.end || integer != tt.integer || fault != tt.fault {
			t.Errorf("ScanNumber(%q, %d) = %d, %v, %d, want %d, %v, %d",
				tt.in, tt.pos, end, integer, fault, tt.end, tt.integer, tt.fault)
		}
	}
}

// FuzzScanNumber checks ScanNumber against encoding/json's grammar and strconv.
func FuzzScanNumber(f *testing.F) {
	for _, s := range []string{"0", "-0", "1.5e-3", "01", "1.", "1e", "-", "123456789012345678901234567890", "1E+400"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		b := []byte(s)
		end, integer, fault := ScanNumber(b, 0)
		if end < 0 || end > len(b) {
			t.Fatalf("ScanNumber(%q) end %d out of range", s, end)
		}
		isNumber := len(b) > 0 && (b[0] == '-' || b[0] >= '0' && b[0] <= '9') &&
			strings.TrimRight(s, " \t\r\n") == s && json.Valid(b)
		whole := fault == NumberOK && end == len(b)
		if whole != isNumber {
			t.Fatalf("ScanNumber(%q) = %d, %d; encoding/json says number: %v", s, end, fault, isNumber)
		}
		if fault != NumberOK {
			return
		}
		lit := s[:end]
		if !json.Valid([]byte(lit)) {
			t.Fatalf("ScanNumber(%q) accepted %q, which encoding/json refuses", s, lit)
		}
		if _, err := strconv.ParseFloat(lit, 64); err != nil && err.(*strconv.NumError).Err != strconv.ErrRange {
			t.Fatalf("ScanNumber(%q) accepted %q, which strconv refuses: %v", s, lit, err)
		}
		if want := !strings.ContainsAny(lit, ".eE"); integer != want {
			t.Fatalf("ScanNumber(%q) integer = %v, want %v", s, integer, want)
		}
	})
}

// FuzzHex4 checks Hex4 against strconv.ParseUint, which the protocol scanner used.
func FuzzHex4(f *testing.F) {
	for _, s := range []string{"00e9", "D83D", "12g4", "+123", "1_23", "abc"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, ok := Hex4([]byte(s))
		var want uint64
		wantOK := false
		if len(s) >= 4 {
			var err error
			want, err = strconv.ParseUint(s[:4], 16, 32)
			wantOK = err == nil
		}
		if ok != wantOK || ok && got != rune(want) {
			t.Fatalf("Hex4(%q) = %#x, %v, want %#x, %v", s, got, ok, want, wantOK)
		}
	})
}

// FuzzHasControl checks the eight-bytes-at-a-time search against a plain one.
func FuzzHasControl(f *testing.F) {
	for _, s := range []string{"", "plain text here", "tab\there", "\xff\xff\xff\xff\xff\xff\xff\x1f"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		want := bytes.ContainsFunc(b, func(r rune) bool { return r < 0x20 })
		if got := HasControl(b); got != want {
			t.Fatalf("HasControl(%q) = %v, want %v", b, got, want)
		}
	})
}

func TestNumberFaultString(t *testing.T) {
	want := map[NumberFault]string{
		NumberOK:         "",
		NoIntegerDigits:  "invalid number",
		NoFractionDigits: "invalid number: no digits after '.'",
		NoExponentDigits: "invalid number: no exponent digits",
	}
	for f, w := range want {
		if got := f.String(); got != w {
			t.Errorf("NumberFault(%d).String() = %q, want %q", f, got, w)
		}
	}
}

func BenchmarkPlainASCII(b *testing.B) {
	data := []byte(strings.Repeat("x", 1<<20) + `"`)
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if PlainASCII(data) != 1<<20 {
			b.Fatal("wrong count")
		}
	}
}
