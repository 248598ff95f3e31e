package jsontext

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// TestPlainASCII compares the eight-bytes-at-a-time search with the obvious loop for
// every byte value in every lane, including the stops borrows could hide or invent.
func TestPlainASCII(t *testing.T) {
	isPlain := func(c byte) bool { return c >= 0x20 && c < 0x80 && c != '"' && c != '\\' }
	for _, n := range []int{7, 8, 16, 19} {
		for at := range n {
			for c := range 256 {
				for _, fill := range []byte{'a', 0x21, 0x7f, ' '} {
					b := bytes.Repeat([]byte{fill}, n)
					b[at] = byte(c)
					want := n / 8 * 8
					for i := range want {
						if !isPlain(b[i]) {
							want = i
							break
						}
					}
					if got := PlainASCII(b); got != want {
						t.Fatalf("PlainASCII(%q) = %d, want %d", b, got, want)
					}
					if got := PlainASCII(string(b)); got != want {
						t.Fatalf("PlainASCII(string %q) = %d, want %d", b, got, want)
					}
				}
			}
		}
	}
	// Two stops in one word: the first one counts, whatever follows it.
	if got := PlainASCII([]byte("ab\x00\"cdefgh")); got != 2 {
		t.Fatalf("got %d, want 2", got)
	}
}

// TestAppendString: the two forms the writer has, encoding/json's (U+2028 and U+2029
// escaped) for the wire and JSON.stringify's for the canonical form, against encoding/json
// and a table of JSON.stringify's answers.
func TestAppendString(t *testing.T) {
	cases := []struct{ in, stringify string }{
		{"plain text that is longer than eight bytes", `"plain text that is longer than eight bytes"`},
		{"\"\\\b\f\n\r\t\x00\x1f\x7f", `"\"\\\b\f\n\r\t\u0000\u001f` + "\x7f" + `"`},
		{"line\u2028para\u2029end", "\"line\u2028para\u2029end\""},
		{"</script>&", `"</script>&"`},
		{"é😀", `"é😀"`},
	}
	for _, c := range cases {
		if got := string(AppendString(nil, c.in, false)); got != c.stringify {
			t.Errorf("JSON.stringify form of %q: %s, want %s", c.in, got, c.stringify)
		}
		var want bytes.Buffer
		enc := json.NewEncoder(&want)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(c.in); err != nil {
			t.Fatal(err)
		}
		if got := string(AppendString(nil, []byte(c.in), true)); got != strings.TrimSuffix(want.String(), "\n") {
			t.Errorf("encoding/json form of %q: %s, want %s", c.in, got, want.String())
		}
	}
	if got := string(AppendString(nil, "a\xffb", true)); got != `"a\ufffdb"` {
		t.Errorf("invalid UTF-8: %s", got)
	}
}
