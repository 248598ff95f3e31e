package core

import (
	"unicode/utf8"

	"github.com/cwx-dev/cwx/core/inert"
)

// StripEscapes removes what would let plugin text drive a terminal or reorder itself on
// screen: escape sequences and the refused characters of package inert (inert.Strip, the
// one strip function every printer uses).
func StripEscapes(s string) string { return inert.Strip(s) }

// CutText cuts s to at most max bytes on a UTF-8 boundary and reports whether it cut.
func CutText(s string, max int) (string, bool) {
	if len(s) <= max {
		return s, false
	}
	i := max
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i], true
}
