package inert

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"unicode/utf8"
)

// refusedSet is the set spelled out range by range, independently of Refused's switch.
var refusedSet = [][2]rune{
	{0x00, 0x08}, {0x0b, 0x1f}, {0x7f, 0x9f},
	{0x061c, 0x061c}, {0x200e, 0x200f}, {0x202a, 0x202e}, {0x2066, 0x2069},
	{0x2028, 0x2029}, {0xfeff, 0xfeff},
}

func inSet(r rune) bool {
	for _, rg := range refusedSet {
		if r >= rg[0] && r <= rg[1] {
			return true
		}
	}
	return false
}

func TestRefused(t *testing.T) {
	for r := rune(0); r <= 0x10ffff; r++ {
		if got, want := Refused(r), inSet(r); got != want {
			t.Fatalf("Refused(%U) = %t, want %t", r, got, want)
		}
	}
}

func TestStrip(t *testing.T) {
	for _, c := range []struct{ name, in, want string }{
		{"plain", "plain text\nline two\ttab", "plain text\nline two\ttab"},
		{"sgr", "\x1b[31mred\x1b[0m", "red"},
		{"osc title", "\x1b]0;title\x07after", "after"},
		{"osc 8 link", "\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\", "link"},
		{"dcs", "\x1bPdcs body\x1b\\after", "after"},
		{"charset", "a\x1b(Bb", "ab"},
		{"c0 and del", "bell\x07 bs\x08 del\x7f cr\r", "bell bs del cr"},
		{"c1 csi", "\u009b31mC1 CSI", "C1 CSI"},
		{"c1 osc", "\u009d0;t\u009cafter", "after"},
		{"c1 lone", "a\u0085b\u0091c", "abc"},
		{"bidi override", "bidi \u202eevil\u202c", "bidi evil"},
		{"bidi isolates", "\u2066a\u2067b\u2068c\u2069", "abc"},
		{"marks", "\u200ea\u200fb\u061cc", "abc"},
		{"separators", "one\u2028two\u2029three", "onetwothree"},
		{"bom", "\ufeffstart", "start"},
		{"joiner kept", "👩\u200d💻 and \u200c", "👩\u200d💻 and \u200c"},
		{"bad utf8", "bad \xff utf8", "bad \uFFFD utf8"},
		{"trailing esc", "trailing \x1b", "trailing "},
		{"trailing csi", "trailing csi \x1b[12", "trailing csi "},
		{"cjk", "日本語 ✓", "日本語 ✓"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := Strip(c.in)
			if got != c.want {
				t.Fatalf("Strip(%q) = %q, want %q", c.in, got, c.want)
			}
			if Check(got) != nil {
				t.Fatalf("Strip(%q) = %q still holds a refused character", c.in, got)
			}
		})
	}
}

func TestCheck(t *testing.T) {
	for _, c := range []struct {
		in     string
		rune   rune
		offset int
	}{
		{"fine\ttext\n👩\u200d💻", 0, -1},
		{"say \u202ehi", 0x202e, 4},
		{"x\ry", '\r', 1},
		{"\u009b", 0x9b, 0},
		{"é\ufeff", 0xfeff, 2},
		{"ab\xffc", utf8.RuneError, 2},
	} {
		err := Check(c.in)
		if c.offset < 0 {
			if err != nil {
				t.Errorf("Check(%q) = %v, want nil", c.in, err)
			}
			continue
		}
		var e *Error
		if !errors.As(err, &e) || e.Rune != c.rune || e.Offset != c.offset {
			t.Errorf("Check(%q) = %v, want %U at %d", c.in, err, c.rune, c.offset)
		}
	}
}

func TestEscapeJSON(t *testing.T) {
	v := map[string]any{"text": "a\u009b31mb \u202eevil\u202c 👩\u200d💻 \x7f", "n": 1}
	raw, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	out := EscapeJSON(raw)
	for _, r := range string(out) {
		if r >= 0x20 && Refused(r) {
			t.Fatalf("%U left raw in %s", r, out)
		}
	}
	for _, want := range []string{`\u009b`, `\u202e`, `\u202c`, `\u007f`, "👩\u200d💻", "\n  \""} {
		if !strings.Contains(string(out), want) {
			t.Fatalf("%s lacks %q", out, want)
		}
	}
	var back map[string]any
	if err := json.Unmarshal(out, &back); err != nil || back["text"] != v["text"] {
		t.Fatalf("decoded %v (%v), want the same value", back, err)
	}
	if plain := []byte(`{"a":"b"}`); &EscapeJSON(plain)[0] != &plain[0] {
		t.Fatal("ASCII JSON was copied")
	}
}

func FuzzStrip(f *testing.F) {
	for _, s := range []string{"\x1b[31mx", "\x1b]0;t\x07", "\u009b1m", "a\rb", "\xff", "\u202e"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := Strip(s)
		if err := Check(out); err != nil {
			t.Fatalf("Strip(%q) = %q: %v", s, out, err)
		}
		if Strip(out) != out {
			t.Fatalf("not idempotent on %q", s)
		}
	})
}

func TestCut(t *testing.T) {
	for _, tc := range []struct {
		in   string
		max  int
		want string
		cut  bool
	}{
		{"short", 64, "short", false},
		{"exact", 5, "exact", false},
		{"héllo", 2, "h", true}, // never inside é
		{"héllo", 3, "hé", true},
		{"abc", 0, "", true},
	} {
		got, cut := Cut(tc.in, tc.max)
		if got != tc.want || cut != tc.cut || !utf8.ValidString(got) {
			t.Errorf("Cut(%q, %d) = %q, %t; want %q, %t", tc.in, tc.max, got, cut, tc.want, tc.cut)
		}
	}
}

func TestCheckText(t *testing.T) {
	for _, tc := range []struct {
		in   string
		max  int
		want string
	}{
		{"fine text\twith a tab", 64, ""},
		{strings.Repeat("x", 9), 8, "the field is 9 bytes; the limit is 8"},
		{"bad \xff byte", 64, "the field is not valid UTF-8"},
		{"bidi \u202e here", 64, "the field holds U+202E at byte 5, a control or bidi character that could change how the text reads on screen"},
	} {
		if got := CheckText("the field", tc.in, tc.max); got != tc.want {
			t.Errorf("CheckText(%q, %d) = %q, want %q", tc.in, tc.max, got, tc.want)
		}
	}
}
