package natives

import (
	"fmt"
	"strings"
)

// diffContext is how many unchanged lines a hunk shows on each side of a change.
const diffContext = 3

// MaxDiffBytes bounds the diff a write's approval card shows; the rest is counted.
const MaxDiffBytes = 16 << 10

// Hunk is one changed region of a file, in Claude Code's structuredPatch shape: Lines are
// the region's lines prefixed with ' ' (unchanged), '-' (removed) or '+' (added).
type Hunk struct {
	OldStart int      `json:"oldStart"`
	OldLines int      `json:"oldLines"`
	NewStart int      `json:"newStart"`
	NewLines int      `json:"newLines"`
	Lines    []string `json:"lines"`
	// open marks the lines of Lines that have no line end (a file's last line).
	open map[int]bool
}

// splitLines splits text into lines, each with its line end, so that a last line without
// one differs from the same line with one.
func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	lines := strings.SplitAfter(s, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// add appends line l (with its end, if any) prefixed with op.
func (h *Hunk) add(op, l string) {
	body, closed := strings.CutSuffix(l, "\n")
	if !closed {
		if h.open == nil {
			h.open = map[int]bool{}
		}
		h.open[len(h.Lines)] = true
	}
	h.Lines = append(h.Lines, op+body)
}

// hunks returns the change from old to new as at most one hunk: the lines between the
// common head and the common tail are replaced, with diffContext lines around them. It
// is not a minimal diff, but an exact one, bounded in time by the files' length.
func hunks(old, new string) []Hunk {
	if old == new {
		return []Hunk{}
	}
	a, b := splitLines(old), splitLines(new)
	head := 0
	for head < len(a) && head < len(b) && a[head] == b[head] {
		head++
	}
	tail := 0
	for tail < len(a)-head && tail < len(b)-head && a[len(a)-1-tail] == b[len(b)-1-tail] {
		tail++
	}
	from := max(head-diffContext, 0)
	after := min(tail, diffContext)
	h := Hunk{OldLines: len(a) - head - tail + (head - from) + after, NewLines: len(b) - head - tail + (head - from) + after}
	h.OldStart, h.NewStart = from+1, from+1
	if h.OldLines == 0 {
		h.OldStart = from
	}
	if h.NewLines == 0 {
		h.NewStart = from
	}
	for _, l := range a[from:head] {
		h.add(" ", l)
	}
	for _, l := range a[head : len(a)-tail] {
		h.add("-", l)
	}
	for _, l := range b[head : len(b)-tail] {
		h.add("+", l)
	}
	for _, l := range a[len(a)-tail : len(a)-tail+after] {
		h.add(" ", l)
	}
	return []Hunk{h}
}

// unified renders hs as a unified diff of the workspace path rel, cut at MaxDiffBytes.
func unified(rel string, created bool, hs []Hunk) string {
	out := newTextOut(MaxDiffBytes)
	from := "a/" + rel
	if created {
		from = "/dev/null"
	}
	out.line("--- " + from)
	out.line("+++ b/" + rel)
	if len(hs) == 0 {
		out.line("[no change]")
	}
	for _, h := range hs {
		if !out.line(fmt.Sprintf("@@ -%d,%d +%d,%d @@", h.OldStart, h.OldLines, h.NewStart, h.NewLines)) {
			break
		}
		for i, l := range h.Lines {
			if !out.line(cutLine(l, MaxLineBytes)) {
				break
			}
			if h.open[i] && !out.line(`\ No newline at end of file`) {
				break
			}
		}
	}
	return out.String()
}
