package cli

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/cwx-dev/cwx/core"
)

// terminalAsker puts a plugin's question to the person on the terminal (ARCHITECTURE.md,
// “Questions to the person”). Without a terminal on both streams there is no person to ask:
// it answers core.ErrNoProvider, and the plugin gets NO_PROVIDER. It reads one byte at a
// time, like the approval prompt, so it never swallows input meant for the next reader.
type terminalAsker struct {
	in       io.Reader
	out      io.Writer
	terminal bool
}

func newTerminalAsker(in io.Reader, out io.Writer) core.Asker {
	return &terminalAsker{in: in, out: out, terminal: isTerminal(in) && isTerminal(out)}
}

// maxAnswerLine bounds one line of the person's own text.
const maxAnswerLine = 4096

func (a *terminalAsker) Ask(ctx context.Context, q core.Question) (core.Answer, error) {
	if !a.terminal {
		return core.Answer{}, core.ErrNoProvider
	}
	defer pauseProgress(a.out)() // the progress line stays off while the person answers
	printf(a.out, "\nplugin `%s` asks (while its %s `%s` runs):\n", q.PluginID, q.Kind, q.Name)
	for _, line := range strings.Split(q.Text, "\n") {
		printf(a.out, "  %s\n", line)
	}
	for i, o := range q.Options {
		if o.Description != "" {
			printf(a.out, "  [%d] %s: %s\n", i+1, oneLine(o.Label), oneLine(o.Description))
		} else {
			printf(a.out, "  [%d] %s\n", i+1, oneLine(o.Label))
		}
	}
	for range 3 {
		if err := ctx.Err(); err != nil {
			return core.Answer{}, err
		}
		printf(a.out, "%s", answerHint(q))
		line, err := readAnswer(a.in)
		if err != nil && line == "" {
			printf(a.out, "\n")
			return core.Answer{Kind: core.AnswerSkipped}, nil // end of input: skipped
		}
		if ans, ok := parseAnswer(q, strings.TrimSpace(line)); ok {
			return ans, nil
		}
		printf(a.out, "Please answer with one of the numbers%s, or an empty line to skip.\n", map[bool]string{true: " or your own text", false: ""}[q.AllowText])
	}
	return core.Answer{Kind: core.AnswerSkipped}, nil
}

func answerHint(q core.Question) string {
	switch {
	case len(q.Options) == 0:
		return "Your answer (an empty line skips): "
	case q.AllowText:
		return fmt.Sprintf("Answer [1-%d] or your own text (an empty line skips): ", len(q.Options))
	}
	return fmt.Sprintf("Answer [1-%d] (an empty line skips): ", len(q.Options))
}

// parseAnswer reads a line as a choice by number, the person's own text, or a skip.
func parseAnswer(q core.Question, line string) (core.Answer, bool) {
	if line == "" {
		return core.Answer{Kind: core.AnswerSkipped}, true
	}
	if n, err := strconv.Atoi(line); err == nil && n >= 1 && n <= len(q.Options) {
		return core.Answer{Kind: core.AnswerChoice, Choice: q.Options[n-1].Label}, true
	}
	if q.AllowText && utf8.ValidString(line) {
		return core.Answer{Kind: core.AnswerText, Text: stripEscapes(line)}, true
	}
	return core.Answer{}, false
}

func readAnswer(r io.Reader) (string, error) {
	var b strings.Builder
	var one [1]byte
	for b.Len() < maxAnswerLine {
		n, err := r.Read(one[:])
		if n == 1 {
			if one[0] == '\n' {
				return strings.TrimSuffix(b.String(), "\r"), nil
			}
			b.WriteByte(one[0])
		}
		if err != nil {
			return b.String(), err
		}
	}
	return b.String(), nil
}
