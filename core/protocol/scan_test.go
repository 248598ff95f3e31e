package protocol

import (
	"bytes"
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
					if got := plainASCII(b); got != want {
						t.Fatalf("plainASCII(%q) = %d, want %d", b, got, want)
					}
					if got := plainASCII(string(b)); got != want {
						t.Fatalf("plainASCII(string %q) = %d, want %d", b, got, want)
					}
				}
			}
		}
	}
	// Two stops in one word: the first one counts, whatever follows it.
	if got := plainASCII([]byte("ab\x00\"cdefgh")); got != 2 {
		t.Fatalf("got %d, want 2", got)
	}
}
