package cli

import (
	"fmt"
	"io"
	"os"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/cwx-dev/cwx/core/inert"
)

// maxTerminalText is the most plugin text printed to a terminal; more goes to --json or
// --output FILE instead.
const maxTerminalText = 1 << 20

// stripEscapes removes what would let plugin text drive a terminal (inert.Strip).
func stripEscapes(s string) string { return inert.Strip(s) }

// isTerminal reports whether a stream (an io.Reader or io.Writer) is a terminal; tests
// replace it.
var isTerminal = func(stream any) bool {
	f, ok := stream.(*os.File)
	if !ok {
		return false
	}
	_, err := unix.IoctlGetTermios(int(f.Fd()), ioctlReadTermios)
	return err == nil
}

// writePluginText prints text a plugin produced for a person: escapes stripped, a final
// newline added, and nothing at all on a terminal when it is over 1 MiB (the error says
// how to get it instead).
func writePluginText(w io.Writer, text string) error {
	if isTerminal(w) && len(text) > maxTerminalText {
		return exitf(ExitUsage, "the result is %d bytes, too much for a terminal (limit %d); use --json, or --output FILE to save it", len(text), maxTerminalText)
	}
	clean := stripEscapes(text)
	if clean != "" && !strings.HasSuffix(clean, "\n") {
		clean += "\n"
	}
	_, err := io.WriteString(w, clean)
	return err
}

// writeOutputFile saves a result to path (0600, replacing it).
func writeOutputFile(path string, data []byte) error {
	if err := os.WriteFile(path, data, 0o600); err != nil {
		return exitf(ExitUsage, "--output: %w", err)
	}
	return nil
}

// plural is "n thing" or "n things".
func plural(n int, thing string) string {
	if n == 1 {
		return fmt.Sprintf("1 %s", thing)
	}
	return fmt.Sprintf("%d %ss", n, thing)
}
