package questions

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/cwx-dev/cwx/core/protocol"
)

func TestCheck(t *testing.T) {
	opt := func(labels ...string) []protocol.UserOption {
		var out []protocol.UserOption
		for _, l := range labels {
			out = append(out, protocol.UserOption{Label: l})
		}
		return out
	}
	for _, tc := range []struct {
		name string
		w    protocol.UserQuestion
		why  string
	}{
		{"plain text, no options: own words", protocol.UserQuestion{Text: "Why?"}, ""},
		{"options", protocol.UserQuestion{Text: "Which?", Options: opt("a", "b")}, ""},
		{"empty text", protocol.UserQuestion{Text: "  "}, "the question's text is empty"},
		{"long text", protocol.UserQuestion{Text: strings.Repeat("x", MaxText+1)}, "the question's text is 4097 bytes; the limit is 4096"},
		{"too many options", protocol.UserQuestion{Text: "?", Options: opt(strings.Split("abcdefghijklmnopq", "")...)}, "the question has 17 options; the limit is 16"},
		{"empty label", protocol.UserQuestion{Text: "?", Options: opt("a", " ")}, "option 2 has an empty label"},
		{"repeated label", protocol.UserQuestion{Text: "?", Options: opt("a", "a")}, `option 2 repeats the label "a"`},
		{"bidi in a label", protocol.UserQuestion{Text: "?", Options: opt("a\u202e")}, "option 1's label holds U+202E"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			q, why := Check("p", "tool", "t", tc.w)
			if tc.why == "" && why != "" || !strings.HasPrefix(why, tc.why) {
				t.Fatalf("Check = %q, want %q", why, tc.why)
			}
			if tc.why == "" && (q.PluginID != "p" || q.AllowText != (len(tc.w.Options) == 0)) {
				t.Fatalf("Check = %+v", q)
			}
		})
	}
}

func TestReply(t *testing.T) {
	q := Question{Options: []Option{{Label: "main"}}}
	for _, tc := range []struct {
		name  string
		q     Question
		a     Answer
		want  protocol.UserAnswer
		wrong string
	}{
		{"a choice among the options", q, Answer{Kind: AnswerChoice, Choice: "main"}, protocol.UserAnswer{Kind: protocol.AnswerChoice, Choice: "main"}, ""},
		{"a choice not offered", q, Answer{Kind: AnswerChoice, Choice: "dev"}, protocol.UserAnswer{}, `the choice "dev", which is not one of the options`},
		{"text where only options are taken", q, Answer{Kind: AnswerText, Text: "x"}, protocol.UserAnswer{}, "with text to a question that takes only its options"},
		{"text, cut", Question{AllowText: true}, Answer{Kind: AnswerText, Text: strings.Repeat("y", MaxAnswerText+5)}, protocol.UserAnswer{Kind: protocol.AnswerText, Text: strings.Repeat("y", MaxAnswerText)}, ""},
		{"skipped", q, Answer{Kind: AnswerSkipped}, protocol.UserAnswer{Kind: protocol.AnswerSkipped}, ""},
		{"unknown kind", q, Answer{Kind: "maybe"}, protocol.UserAnswer{}, `an answer of kind "maybe"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, wrong := Reply(tc.q, tc.a)
			if got != tc.want || wrong != tc.wrong {
				t.Fatalf("Reply = %+v, %q; want %+v, %q", got, wrong, tc.want, tc.wrong)
			}
		})
	}
}

type askerFunc func(context.Context, Question) (Answer, error)

func (f askerFunc) Ask(ctx context.Context, q Question) (Answer, error) { return f(ctx, q) }

// TestPutWireErrors: no asker and an asker without a person are the typed NO_PROVIDER, an
// asker's failure and a wrong answer are execution failures.
func TestPutWireErrors(t *testing.T) {
	q := Question{PluginID: "p", Options: []Option{{Label: "main"}}}
	for _, tc := range []struct {
		name string
		a    Asker
		code int
		data string
	}{
		{"no asker", nil, protocol.CodeRefused, `{"code":"NO_PROVIDER"}`},
		{"no person", askerFunc(func(context.Context, Question) (Answer, error) { return Answer{}, ErrNoProvider }), protocol.CodeRefused, `{"code":"NO_PROVIDER"}`},
		{"asker fails", askerFunc(func(context.Context, Question) (Answer, error) { return Answer{}, errors.New("tty gone") }), protocol.CodeExecutionFailed, ""},
		{"wrong answer", askerFunc(func(context.Context, Question) (Answer, error) { return Answer{Kind: AnswerChoice, Choice: "x"}, nil }), protocol.CodeExecutionFailed, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, e := Put(t.Context(), tc.a, q)
			if e == nil || e.Code != tc.code || string(e.Data) != tc.data {
				t.Fatalf("Put = %+v, want code %d data %s", e, tc.code, tc.data)
			}
		})
	}
	if w, e := Put(t.Context(), askerFunc(func(context.Context, Question) (Answer, error) {
		return Answer{Kind: AnswerChoice, Choice: "main"}, nil
	}), q); e != nil || w.Choice != "main" {
		t.Fatalf("Put = %+v, %v", w, e)
	}
}
