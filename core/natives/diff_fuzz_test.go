package natives

import (
	"strings"
	"testing"
)

// apply rebuilds the new text from old and hs, line ends included.
func apply(old string, hs []Hunk) string {
	a := splitLines(old)
	if len(hs) == 0 {
		return old
	}
	h := hs[0]
	start := max(h.OldStart-1, 0)
	if h.OldLines == 0 {
		start = h.OldStart
	}
	var out []string
	out = append(out, a[:start]...)
	i := start
	for j, l := range h.Lines {
		end := "\n"
		if h.open[j] {
			end = ""
		}
		switch l[0] {
		case ' ':
			out = append(out, a[i])
			i++
		case '-':
			i++
		case '+':
			out = append(out, l[1:]+end)
		}
	}
	out = append(out, a[i:]...)
	return strings.Join(out, "")
}

// FuzzHunks: the hunk of any two texts rebuilds the new text from the old one, and its
// counts match its lines.
func FuzzHunks(f *testing.F) {
	f.Add("a\nb\nc\n", "a\nB\nc\n")
	f.Add("", "x")
	f.Add("x\n", "x")
	f.Add("1\n2\n3\n4\n5\n6\n7\n8\n", "1\n2\n3\n4\n5\n6\n7\n8\n9\n")
	f.Fuzz(func(t *testing.T, old, new string) {
		hs := hunks(old, new)
		if got := apply(old, hs); got != new {
			t.Fatalf("apply(%q, %+v) = %q, want %q", old, hs, got, new)
		}
		for _, h := range hs {
			var o, n int
			for _, l := range h.Lines {
				switch l[0] {
				case ' ':
					o, n = o+1, n+1
				case '-':
					o++
				case '+':
					n++
				}
			}
			if o != h.OldLines || n != h.NewLines {
				t.Fatalf("%+v: counts %d,%d", h, o, n)
			}
		}
		_ = unified("f", old == "", hs)
	})
}
