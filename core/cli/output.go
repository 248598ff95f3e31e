package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"

	"github.com/cwx-dev/cwx/core/inert"
)

// writeJSON prints v as indented JSON followed by a newline, with every character that
// could drive a terminal written as a \u escape (inert.EscapeJSON): --json output keeps
// plugin text whole yet stays inert on a terminal.
func writeJSON(w io.Writer, v any) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return err
	}
	_, err := w.Write(inert.EscapeJSON(buf.Bytes()))
	return err
}

// writeReport prints v on w as indented JSON, or as text.
func writeReport[T any](w io.Writer, asJSON bool, v T, text func(io.Writer, T)) error {
	if asJSON {
		return writeJSON(w, v)
	}
	text(w, v)
	return nil
}

// printf writes to a terminal-facing stream, the formatted text stripped of what could
// drive the terminal (inert.Strip): every printer of the CLI goes through it or through
// writePluginText. Write errors on stdout are not actionable.
func printf(w io.Writer, format string, args ...any) {
	_, _ = io.WriteString(w, inert.Strip(fmt.Sprintf(format, args...)))
}

// inertWriter strips each write (the core's log lines, which carry plugin text).
type inertWriter struct{ w io.Writer }

func (i inertWriter) Write(p []byte) (int, error) {
	if _, err := io.WriteString(i.w, inert.Strip(string(p))); err != nil {
		return 0, err
	}
	return len(p), nil
}
