package nodeshim

import (
	"strings"
	"testing"
)

func TestRingKeepsTheTail(t *testing.T) {
	cases := []struct {
		name   string
		size   int
		writes []string
		want   string
	}{
		{"empty", 8, nil, ""},
		{"under", 8, []string{"abc"}, "abc"},
		{"exact", 4, []string{"ab", "cd"}, "abcd"},
		{"wraps", 4, []string{"abc", "def"}, "cdef"},
		{"one_big_write", 4, []string{"0123456789"}, "6789"},
		{"many_small", 5, strings.Split("a,b,c,d,e,f,g,h", ","), "defgh"},
		{"big_after_small", 4, []string{"xy", "0123456"}, "3456"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := newRing(c.size)
			for _, w := range c.writes {
				if n, err := r.Write([]byte(w)); n != len(w) || err != nil {
					t.Fatalf("Write(%q) = %d, %v", w, n, err)
				}
			}
			if got := string(r.Bytes()); got != c.want {
				t.Errorf("tail %q, want %q", got, c.want)
			}
		})
	}
}
