package cli

import (
	"strings"

	"github.com/cwx-dev/cwx/core/internal/lazyre"
)

// schemaCompile is the JSON Schema library's compile error inside a registration refusal:
// the schema location at fault, then the metaschema path it failed, then the reason.
// Each violation after the first follows a "; " without the "compilation failed" prefix.
var schemaCompile = lazyre.New(`(?:jsonschema \S+ compilation failed: )?'([^']*)' does not validate with \S+: `)

// refusedPrefix is how an activation failure quotes one refused registration.
var refusedPrefix = lazyre.New("^(?:tool|command|hook|prompt section) `[^`]*` refused: ")

// diagSet prints each diagnostic of `cwx plugin show` once: the ring, the live owner's
// reason and the problems of this activation often say the same thing.
type diagSet struct {
	verbose bool // keep the metaschema path of a schema refusal
	seen    map[string]bool
}

func newDiagSet(verbose bool) *diagSet { return &diagSet{verbose: verbose, seen: map[string]bool{}} }

// text is msg as printed: a schema refusal shortened to "`/properties/x/type`: must be …"
// unless verbose.
func (d *diagSet) text(msg string) string {
	if d.verbose {
		return msg
	}
	return shortDiag(msg)
}

// fresh reports whether msg says something not printed yet, and records it. An activation
// failure that only repeats refusals already printed is not fresh.
func (d *diagSet) fresh(msg string) bool {
	key := strings.TrimPrefix(strings.TrimSpace(msg), "ActivationError: ")
	if d.seen[key] {
		return false
	}
	d.seen[key] = true
	old := true
	for _, p := range strings.Split(key, "; ") {
		p = refusedPrefix().ReplaceAllString(p, "")
		if !d.seen[p] {
			old = false
		}
		d.seen[p] = true
	}
	return !old || !strings.Contains(key, "; ") && !refusedPrefix().MatchString(key)
}

// shortDiag shortens a schema refusal to the schema location and the reason.
func shortDiag(msg string) string {
	return schemaCompile().ReplaceAllString(msg, "`$1`: ")
}

// maxDiagLines bounds the lines printed of one diagnostic (a syntax error is three: the
// location and message, the source line, the caret).
const maxDiagLines = 4

// diagText is a diagnostic for a terminal: its first line, then up to maxDiagLines-1 more,
// each indented under it by indent, every line inert.
func diagText(msg, indent string) string {
	lines := strings.Split(strings.TrimRight(msg, "\n"), "\n")
	if len(lines) > maxDiagLines {
		lines = lines[:maxDiagLines]
	}
	for i := range lines {
		lines[i] = oneLine(lines[i])
	}
	return strings.Join(lines, "\n"+indent)
}
