package core

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/cwx-dev/cwx/core/protocol"
)

func TestStripEscapes(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"plain text\nline two\ttab", "plain text\nline two\ttab"},
		{"\x1b[31mred\x1b[0m", "red"},
		{"\x1b[38;5;196mcolour\x1b[m", "colour"},
		{"\x1b]0;title\x07after", "after"},
		{"\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\", "link"},
		{"\x1bPdcs body\x1b\\after", "after"},
		{"a\x1b(Bb", "ab"},
		{"a\x1b7b\x1b8c", "abc"},
		{"bell\x07 bs\x08 del\x7f cr\r", "bell bs del cr"},
		{"\u009b31mC1 CSI", "C1 CSI"},
		{"\u009d0;t\u009cafter", "after"},
		{"bidi \u202eevil\u202c", "bidi evil"},
		{"bad \xff utf8", "bad \uFFFD utf8"},
		{"trailing \x1b", "trailing "},
		{"trailing csi \x1b[12", "trailing csi "},
		{"日本語 ✓", "日本語 ✓"},
	} {
		if got := StripEscapes(c.in); got != c.want {
			t.Errorf("StripEscapes(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func FuzzStripEscapes(f *testing.F) {
	for _, s := range []string{"\x1b[31mx", "\x1b]0;t\x07", "\u009b1m", "a\rb", "\xff"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := StripEscapes(s)
		if !utf8.ValidString(out) {
			t.Fatalf("invalid UTF-8 out of %q", s)
		}
		for _, r := range out {
			if r == 0x1b || r == '\r' || (r < 0x20 && r != '\n' && r != '\t') || (r >= 0x7f && r <= 0x9f) {
				t.Fatalf("control %U left in %q (from %q)", r, out, s)
			}
		}
		if StripEscapes(out) != out {
			t.Fatalf("not idempotent on %q", s)
		}
	})
}

func TestCutText(t *testing.T) {
	s := strings.Repeat("é", 10) // 20 bytes
	got, cut := CutText(s, 5)
	if !cut || got != "éé" {
		t.Fatalf("CutText = %q, %t", got, cut)
	}
	if got, cut := CutText("short", 64); cut || got != "short" {
		t.Fatalf("CutText short = %q, %t", got, cut)
	}
}

func TestCommandResult(t *testing.T) {
	big := strings.Repeat("x", MaxCommandText+10)
	for _, c := range []struct {
		name    string
		in      protocol.CommandResult
		wantErr string
		check   func(CommandResult) bool
	}{
		{"success cut", protocol.CommandResult{Kind: protocol.CommandSuccess, Text: big},
			"", func(r CommandResult) bool { return len(r.Text) == MaxCommandText && r.Truncated }},
		{"error stripped", protocol.CommandResult{Kind: protocol.CommandError, Text: "\x1b[1mbad\x1b[0m"},
			"", func(r CommandResult) bool { return r.Kind == "error" && r.Text == "bad" }},
		{"submit", protocol.CommandResult{Kind: protocol.CommandSubmit, Prompt: "do \x1b it", Text: "t"},
			"", func(r CommandResult) bool { return r.Prompt == "do \x1b it" && r.Text == "t" }},
		{"submit empty", protocol.CommandResult{Kind: protocol.CommandSubmit, Prompt: "  "}, "empty prompt", nil},
		{"submit too big", protocol.CommandResult{Kind: protocol.CommandSubmit, Prompt: strings.Repeat("p", MaxSubmitPrompt+1)}, "over the 131072-byte limit", nil},
		{"submit at limit", protocol.CommandResult{Kind: protocol.CommandSubmit, Prompt: strings.Repeat("p", MaxSubmitPrompt)},
			"", func(r CommandResult) bool { return len(r.Prompt) == MaxSubmitPrompt }},
	} {
		t.Run(c.name, func(t *testing.T) {
			r, err := commandResult("cmd", &c.in)
			if c.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.wantErr) || !isExec(err) {
					t.Fatalf("err = %v, want %q (ErrExecutionFailed)", err, c.wantErr)
				}
				return
			}
			if err != nil || !c.check(r) {
				t.Fatalf("%+v, %v", r, err)
			}
		})
	}
}

func isExec(err error) bool {
	_, ok := err.(*ExecutionError)
	return ok
}
