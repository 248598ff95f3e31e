package gate

import (
	"context"
	"fmt"
	"io"
	"strings"
	"unicode"
)

// TerminalPrompter asks a person on a terminal. In and Out are the terminal (usually
// stdin and stdout); IsTerminal says whether In really is one. Without a terminal it
// fails closed with ErrNoTerminal and says how to approve instead. It reads In one byte
// at a time, so it never swallows input meant for whoever reads In next.
type TerminalPrompter struct {
	In         io.Reader
	Out        io.Writer
	IsTerminal bool
}

// maxAttempts is how many unreadable answers are tolerated before denying.
const maxAttempts = 3

// Approve shows the card and reads the answer: o (allow once), s (allow for this
// session) or d (deny, the default). End of input denies.
func (p *TerminalPrompter) Approve(ctx context.Context, card Card) (Decision, error) {
	if !p.IsTerminal || p.In == nil || p.Out == nil {
		return DenyDecision, fmt.Errorf("%w: extension tool `%s` from plugin `%s` needs approval; run in a terminal to be asked, or approve extension tools with --approve auto or [extension_host] approval = \"auto\"", ErrNoTerminal, card.Tool, card.PluginID)
	}
	fmt.Fprintf(p.Out, "\n%s", sanitize(card.Text()))
	if card.Forced {
		fmt.Fprintln(p.Out, "(this call is always asked)")
	}
	for range maxAttempts {
		if err := ctx.Err(); err != nil {
			return DenyDecision, err
		}
		fmt.Fprint(p.Out, "Allow? [o] once  [s] for this session  [d] deny (default): ")
		line, err := readLine(p.In)
		if err != nil && line == "" {
			fmt.Fprintln(p.Out)
			return DenyDecision, nil // end of input: deny
		}
		switch strings.ToLower(strings.TrimSpace(line)) {
		case "o", "once", "y", "yes":
			return AllowOnce, nil
		case "s", "session":
			return AllowSession, nil
		case "", "d", "deny", "n", "no":
			return DenyDecision, nil
		}
		fmt.Fprintln(p.Out, "Please answer o, s or d.")
	}
	return DenyDecision, nil
}

// readLine reads up to a newline, one byte at a time.
func readLine(r io.Reader) (string, error) {
	var b strings.Builder
	var one [1]byte
	for b.Len() < 256 {
		n, err := r.Read(one[:])
		if n == 1 {
			if one[0] == '\n' {
				return b.String(), nil
			}
			b.WriteByte(one[0])
		}
		if err != nil {
			return b.String(), err
		}
	}
	return b.String(), nil
}

// sanitize makes text safe for a terminal: control and bidi-control characters other
// than newline are shown as \u escapes.
func sanitize(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r != '\n' && (unicode.IsControl(r) || unicode.Is(unicode.Bidi_Control, r) || r == '\u2028' || r == '\u2029') {
			fmt.Fprintf(&b, "\\u%04x", r)
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}
