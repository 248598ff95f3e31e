package cli

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/cwx-dev/cwx/core"
)

func TestTerminalAsker(t *testing.T) {
	branch := core.Question{PluginID: "reviewer", Kind: "command", Name: "review", Text: "Which branch?\nPick one.",
		Options: []core.QuestionOption{{Label: "main", Description: "the default"}, {Label: "release"}}, AllowText: true}
	onlyOptions := branch
	onlyOptions.AllowText = false
	free := core.Question{PluginID: "reviewer", Kind: "tool", Name: "code_review", Text: "What should it stress?", AllowText: true}
	for _, c := range []struct {
		name     string
		q        core.Question
		typed    string
		terminal bool
		want     core.Answer
		err      error
		shown    string // a piece of what the person saw
	}{
		{"a choice by number", branch, "2\n", true, core.Answer{Kind: core.AnswerChoice, Choice: "release"}, nil, "[1] main: the default"},
		{"own text", branch, "hotfix-7\n", true, core.Answer{Kind: core.AnswerText, Text: "hotfix-7"}, nil, "plugin `reviewer` asks (while its command `review` runs):"},
		{"an empty line skips", branch, "\n", true, core.Answer{Kind: core.AnswerSkipped}, nil, "Answer [1-2] or your own text"},
		{"end of input skips", free, "", true, core.Answer{Kind: core.AnswerSkipped}, nil, "Your answer"},
		{"options only: text is asked again", onlyOptions, "hotfix\n1\n", true, core.Answer{Kind: core.AnswerChoice, Choice: "main"}, nil, "Please answer with one of the numbers, or"},
		{"free text", free, "the errors\n", true, core.Answer{Kind: core.AnswerText, Text: "the errors"}, nil, "  What should it stress?"},
		{"escapes are stripped from the answer", free, "a\x1b[31mb\n", true, core.Answer{Kind: core.AnswerText, Text: "ab"}, nil, ""},
		{"no terminal: no person", branch, "1\n", false, core.Answer{}, core.ErrNoProvider, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			var out strings.Builder
			a := &terminalAsker{in: strings.NewReader(c.typed), out: &out, terminal: c.terminal}
			got, err := a.Ask(context.Background(), c.q)
			if !errors.Is(err, c.err) || (c.err == nil && err != nil) || got != c.want {
				t.Fatalf("got %+v, %v; want %+v, %v", got, err, c.want, c.err)
			}
			if !strings.Contains(out.String(), c.shown) {
				t.Fatalf("shown:\n%s\nwant it to contain %q", out.String(), c.shown)
			}
		})
	}
}
