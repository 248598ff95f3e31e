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
	// Color marks the card's title and the choices' letters in bold (the caller decides:
	// a terminal, NO_COLOR unset). The text says the same without it.
	Color bool
	// Pause, when set, is called before the card is shown, and the function it returns
	// once the answer is read (the CLI takes its progress line off the terminal).
	Pause func() (resume func())
}

// maxAttempts is how many unreadable answers are tolerated before denying.
const maxAttempts = 3

// Approve shows the card and the choices it offers, each named: o (allow once), s (allow
// this exact call for the session), t (allow the tool from this plugin build, any input, for
// the session) and d (deny, the default). A Forced card offers only o and d. Answers that
// name no choice, y and yes included, are asked again; end of input denies.
func (p *TerminalPrompter) Approve(ctx context.Context, card Card) (Decision, error) {
	if !p.IsTerminal || p.In == nil || p.Out == nil {
		if card.Forced {
			return DenyDecision, fmt.Errorf("%w: %s; run in a terminal to be asked", ErrNoTerminal, card.Refusal())
		}
		return DenyDecision, fmt.Errorf("%w: %s; run in a terminal to be asked, or approve it with --approve auto or [extension_host] approval = \"auto\"", ErrNoTerminal, card.Refusal())
	}
	if p.Pause != nil {
		defer p.Pause()()
	}
	text := sanitize(card.Text())
	if p.Color {
		title, rest, _ := strings.Cut(text, "\n")
		text = bold(title) + "\n" + rest
	}
	fmt.Fprintf(p.Out, "\n%s", text)
	choices := promptChoices(card)
	if card.Forced {
		fmt.Fprintln(p.Out, "(this call is always asked; no session grant applies)")
	}
	var letters []string
	for _, c := range choices {
		letter := c.letter
		if p.Color {
			letter = bold(letter)
		}
		fmt.Fprintf(p.Out, "  [%s] %s\n", letter, sanitize(c.name))
		letters = append(letters, c.letter)
	}
	list := strings.Join(letters[:len(letters)-1], ", ") + " or " + letters[len(letters)-1]
	for range maxAttempts {
		if err := ctx.Err(); err != nil {
			return DenyDecision, err
		}
		fmt.Fprintf(p.Out, "Allow? %s (default d): ", list)
		line, err := readLine(p.In)
		if err != nil && line == "" {
			fmt.Fprintln(p.Out)
			return DenyDecision, nil // end of input: deny
		}
		answer := strings.ToLower(strings.TrimSpace(line))
		if answer == "" {
			return DenyDecision, nil
		}
		for _, c := range choices {
			if answer == c.letter || answer == c.word {
				return c.d, nil
			}
		}
		fmt.Fprintf(p.Out, "Please answer %s: type the letter of the choice you mean.\n", list)
	}
	return DenyDecision, nil
}

// choice is one answer the terminal prompt offers.
type choice struct {
	letter, word, name string
	d                  Decision
}

// promptChoices are the answers card offers, in order, deny last.
func promptChoices(card Card) []choice {
	cs := []choice{{"o", "once", "allow once", AllowOnce}}
	if !card.Forced {
		cs = append(cs, choice{"s", "session", "allow this exact call (the same input) for the session", AllowSession})
		if card.ToolChoice != "" {
			cs = append(cs, choice{"t", "tool", card.ToolChoice, AllowToolForSession})
		}
	}
	return append(cs, choice{"d", "deny", "deny", DenyDecision})
}

// bold wraps s, already sanitized, in the terminal's bold attribute.
func bold(s string) string { return "\x1b[1m" + s + "\x1b[0m" }

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
