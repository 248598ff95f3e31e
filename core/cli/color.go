package cli

import (
	"io"
	"os"

	"github.com/cwx-dev/cwx/core/plugins"
)

// Colour (core/cli doc.go, “CLI conventions”): only on a terminal, never when NO_COLOR is
// set to a non-empty value or TERM is "dumb", and never in --json output. Colour marks what
// the text already says (a status, an error, a prompt's choices); nothing is said by colour
// alone.

// SGR parameters of the styles the CLI uses.
const (
	styleBold   = "1"
	styleRed    = "31"
	styleGreen  = "32"
	styleYellow = "33"
	styleCyan   = "36"
)

// colorOn reports whether text written to w may be coloured.
func colorOn(w io.Writer) bool {
	if os.Getenv("NO_COLOR") != "" {
		return false
	}
	if os.Getenv("TERM") == "dumb" {
		return false
	}
	return isTerminal(w)
}

// paint wraps s, which must already be stripped of escapes, in the style when on is true.
func paint(on bool, style, s string) string {
	if !on || s == "" {
		return s
	}
	return "\x1b[" + style + "m" + s + "\x1b[0m"
}

// statusStyle is the colour of a plugin status word: green when it runs, yellow when it
// waits for the person (disabled, not trusted), red when it is blocked.
func statusStyle(status string) string {
	switch status {
	case "enabled", "trusted", plugins.StatusDev:
		return styleGreen
	case "not trusted", "enabled, not trusted", "trusted, disabled", "removed":
		return styleYellow
	}
	return styleRed // a changed closure or policy, a missing staged copy
}

// writeStyled prints s, the CLI's own text, on w in the style when colour is on there.
func writeStyled(w io.Writer, style, s string) {
	_, _ = io.WriteString(w, paint(colorOn(w), style, stripEscapes(s)))
}
