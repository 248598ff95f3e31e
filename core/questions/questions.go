package questions

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/cwx-dev/cwx/core/errdefs"
	"github.com/cwx-dev/cwx/core/inert"
	"github.com/cwx-dev/cwx/core/protocol"
)

// Bounds of a question.
const (
	MaxText       = 4096
	MaxChoice     = 16   // options of one question
	MaxOptionText = 1024 // an option's label or description
	MaxAnswerText = 16 << 10
)

// Asker answers a plugin's question to the person: the CLI asks on the terminal, an embedder
// supplies its own in CallOptions.Asker, like the Approver. It returns ErrNoProvider when no
// person can answer, and ends when ctx does (the invocation ended or was cancelled).
type Asker interface {
	Ask(ctx context.Context, q Question) (Answer, error)
}

// Question is what a plugin asks the person while its tool or command runs, attributed.
type Question struct {
	PluginID string
	Kind     string // "tool" or "command": what was running when the plugin asked
	Name     string // that tool or command
	Text     string
	// Options are the choices offered; with none the person answers in their own words.
	Options []Option
	// AllowText accepts the person's own text besides the options.
	AllowText bool
}

// Option is one choice.
type Option struct {
	Label       string
	Description string
}

// Answer kinds.
const (
	AnswerChoice  = string(protocol.AnswerChoice)
	AnswerText    = string(protocol.AnswerText)
	AnswerSkipped = string(protocol.AnswerSkipped)
)

// Answer is the person's answer: Kind AnswerChoice with Choice one of the labels,
// AnswerText with Text, or AnswerSkipped.
type Answer struct {
	Kind   string
	Choice string
	Text   string
}

// ErrNoProvider: no person is present to answer (no Asker, or the Asker has no terminal).
// The plugin is answered with the typed error NO_PROVIDER.
var ErrNoProvider = errdefs.New(errdefs.ErrNotAvailable, "NO_PROVIDER: no person is present to answer")

// noProviderData is the data of the wire error, the type a plugin matches on.
var noProviderData = json.RawMessage(`{"code":"NO_PROVIDER"}`)

// Check checks what a plugin asks (text and options bounded, inert, labels distinct) and
// returns it attributed to the plugin and what runs (kind and name), or why it is refused.
func Check(pluginID, kind, name string, w protocol.UserQuestion) (Question, string) {
	q := Question{PluginID: pluginID, Kind: kind, Name: name, Text: w.Text, AllowText: w.AllowText || len(w.Options) == 0}
	if strings.TrimSpace(w.Text) == "" {
		return q, "the question's text is empty"
	}
	if why := inert.CheckText("the question's text", w.Text, MaxText); why != "" {
		return q, why
	}
	if len(w.Options) > MaxChoice {
		return q, fmt.Sprintf("the question has %d options; the limit is %d", len(w.Options), MaxChoice)
	}
	seen := map[string]bool{}
	for i, o := range w.Options {
		where := fmt.Sprintf("option %d", i+1)
		switch {
		case strings.TrimSpace(o.Label) == "":
			return q, where + " has an empty label"
		case seen[o.Label]:
			return q, fmt.Sprintf("%s repeats the label %q", where, o.Label)
		}
		seen[o.Label] = true
		if why := inert.CheckText(where+"'s label", o.Label, MaxOptionText); why != "" {
			return q, why
		}
		if why := inert.CheckText(where+"'s description", o.Description, MaxOptionText); why != "" {
			return q, why
		}
		q.Options = append(q.Options, Option(o))
	}
	return q, ""
}

// NoProvider is the wire error of a question no person can answer: NO_PROVIDER, typed.
func NoProvider(q Question) *protocol.RPCError {
	return &protocol.RPCError{Code: protocol.CodeRefused, Message: fmt.Sprintf("%s to the question of plugin `%s`", ErrNoProvider, q.PluginID), Data: noProviderData}
}

// Put asks a (nil: no person) about q and returns the checked answer, or the wire error the
// plugin is answered with.
func Put(ctx context.Context, a Asker, q Question) (protocol.UserAnswer, *protocol.RPCError) {
	if a == nil {
		return protocol.UserAnswer{}, NoProvider(q)
	}
	ans, err := a.Ask(ctx, q)
	switch {
	case errors.Is(err, ErrNoProvider):
		return protocol.UserAnswer{}, NoProvider(q)
	case err != nil && ctx.Err() != nil:
		return protocol.UserAnswer{}, &protocol.RPCError{Code: protocol.CodeCancelled, Message: "user/ask cancelled; the question was withdrawn"}
	case err != nil:
		return protocol.UserAnswer{}, &protocol.RPCError{Code: protocol.CodeExecutionFailed, Message: "user/ask failed: " + err.Error()}
	}
	w, why := Reply(q, ans)
	if why != "" {
		return protocol.UserAnswer{}, &protocol.RPCError{Code: protocol.CodeExecutionFailed, Message: "user/ask: the asker answered " + why}
	}
	return w, nil
}

// Reply checks the Asker's answer a against q and puts it on the wire, or says what is wrong
// with it.
func Reply(q Question, a Answer) (protocol.UserAnswer, string) {
	switch a.Kind {
	case AnswerSkipped:
		return protocol.UserAnswer{Kind: protocol.AnswerSkipped}, ""
	case AnswerChoice:
		for _, o := range q.Options {
			if o.Label == a.Choice {
				return protocol.UserAnswer{Kind: protocol.AnswerChoice, Choice: a.Choice}, ""
			}
		}
		return protocol.UserAnswer{}, fmt.Sprintf("the choice %q, which is not one of the options", a.Choice)
	case AnswerText:
		if !q.AllowText {
			return protocol.UserAnswer{}, "with text to a question that takes only its options"
		}
		text, _ := inert.Cut(a.Text, MaxAnswerText)
		return protocol.UserAnswer{Kind: protocol.AnswerText, Text: text}, ""
	}
	return protocol.UserAnswer{}, fmt.Sprintf("an answer of kind %q", a.Kind)
}
