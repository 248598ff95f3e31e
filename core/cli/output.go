package cli

import (
	"encoding/json"
	"fmt"
	"io"
)

// writeJSON prints v as indented JSON followed by a newline.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// writeReport prints v on w as indented JSON, or as text.
func writeReport[T any](w io.Writer, asJSON bool, v T, text func(io.Writer, T)) error {
	if asJSON {
		return writeJSON(w, v)
	}
	text(w, v)
	return nil
}

// printf writes to a terminal-facing stream; write errors on stdout are not actionable.
func printf(w io.Writer, format string, args ...any) {
	_, _ = fmt.Fprintf(w, format, args...)
}
