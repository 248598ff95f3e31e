package natives

import (
	"fmt"
	"strings"
)

// Bounds of every native result (ARCHITECTURE.md, “Native tools”).
const (
	// MaxOutput bounds the text of any native result, in bytes.
	MaxOutput = 256 << 10
	// MaxLineBytes bounds one line of read_file and grep_files output.
	MaxLineBytes = 2000
	// DefaultReadLines is read_file's limit when the call gives none; MaxReadLines is the
	// largest limit a call may ask for.
	DefaultReadLines = 2000
	MaxReadLines     = 10000
	// MaxEntries bounds the entries list_dir lists and the paths file_search returns.
	MaxEntries = 1000
	// MaxMatches bounds the lines grep_files returns.
	MaxMatches = 500
	// MaxVisited bounds the directory entries one file_search or grep_files walk visits.
	MaxVisited = 200000
	// MaxGrepFile is the largest file grep_files reads; larger ones are skipped.
	MaxGrepFile = 8 << 20
)

// textOut accumulates a bounded text result.
type textOut struct {
	b     strings.Builder
	max   int
	cut   bool
	lines int
}

func newTextOut(max int) *textOut { return &textOut{max: max} }

// line adds one line; it reports false once the output is full.
func (o *textOut) line(s string) bool {
	if o.cut {
		return false
	}
	if o.b.Len()+len(s)+1 > o.max {
		o.cut = true
		return false
	}
	o.b.WriteString(s)
	o.b.WriteByte('\n')
	o.lines++
	return true
}

func (o *textOut) String() string {
	if o.cut {
		return o.b.String() + fmt.Sprintf("[output cut at %d bytes]\n", o.max)
	}
	return o.b.String()
}

// cutLine bounds one line to n bytes without splitting a character.
func cutLine(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n] + "…"
}
