package core

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/cwx-dev/cwx/core/errdefs"
	"github.com/cwx-dev/cwx/core/gate"
	"github.com/cwx-dev/cwx/core/inert"
	"github.com/cwx-dev/cwx/core/owners"
	"github.com/cwx-dev/cwx/core/protocol"
	"github.com/cwx-dev/cwx/core/rpc"
	"github.com/cwx-dev/cwx/core/tickets"
)

// Bounds of a question (ARCHITECTURE.md, “Questions to the person”).
const (
	MaxQuestionText   = 4096
	MaxQuestionChoice = 16   // options of one question
	MaxOptionText     = 1024 // an option's label or description
	MaxAnswerText     = 16 << 10
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
	Options []QuestionOption
	// AllowText accepts the person's own text besides the options.
	AllowText bool
}

// QuestionOption is one choice.
type QuestionOption struct {
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

var errQuestionTicket = &protocol.RPCError{Code: protocol.CodeRefused,
	Message: "user/ask refused: a plugin may ask only during a live invocation of its own tool or command (" + tickets.ErrRefused.Error() + ")"}

// serveUserAsk answers user/ask: the ticket must be a live invocation's, of this host and
// owner (a tool's or a command's); the question is checked, put to the invocation's Asker
// while the invocation's deadline stands still, and the answer checked against it.
func (m *Manager) serveUserAsk(ctx context.Context, t protocol.Tier, gen uint64, p *protocol.UserAskParams) (any, error) {
	row, err := m.cc.tickets().RedeemQuestion(p.Ticket, tickets.Host{Tier: t, Generation: gen}, p.Owner)
	if errors.Is(err, tickets.ErrViolation) {
		m.log.Warn("host presented too many invalid tickets; ending it", "tier", t, "host_generation", gen)
		return nil, fmt.Errorf("%w: user/ask: %w", rpc.ErrViolation, err)
	}
	if err != nil {
		return nil, errQuestionTicket
	}
	inv := m.cc.get(row.Target.CallID)
	if inv == nil || !inv.enter() {
		return nil, errQuestionTicket
	}
	defer inv.leave()
	q, why := question(inv, row.Target.Tool, p.Question)
	if why != "" {
		return nil, &protocol.RPCError{Code: protocol.CodeInvalidParams, Message: "user/ask: " + why}
	}
	ctx, stop := owners.EndsWith(ctx, inv.ctx)
	defer stop()
	return inv.ask(ctx, q)
}

// ask puts q to inv's Asker, one question or card at a time.
func (inv *invocation) ask(ctx context.Context, q Question) (any, error) {
	noProvider := &protocol.RPCError{Code: protocol.CodeRefused, Message: fmt.Sprintf("%s to the question of plugin `%s`", ErrNoProvider, q.PluginID), Data: noProviderData}
	if inv.asker == nil {
		return nil, noProvider
	}
	resume := inv.deadline.pause()
	defer resume()
	if err := acquire(ctx, inv.card); err != nil {
		return nil, &protocol.RPCError{Code: protocol.CodeCancelled, Message: "user/ask cancelled"}
	}
	defer func() { <-inv.card }()
	a, err := inv.asker.Ask(ctx, q)
	switch {
	case errors.Is(err, ErrNoProvider):
		return nil, noProvider
	case err != nil && ctx.Err() != nil:
		return nil, &protocol.RPCError{Code: protocol.CodeCancelled, Message: "user/ask cancelled; the question was withdrawn"}
	case err != nil:
		return nil, &protocol.RPCError{Code: protocol.CodeExecutionFailed, Message: "user/ask failed: " + err.Error()}
	}
	ans, why := answer(q, a)
	if why != "" {
		return nil, &protocol.RPCError{Code: protocol.CodeExecutionFailed, Message: "user/ask: the asker answered " + why}
	}
	return ans, nil
}

// question checks what a plugin asks: text and options bounded, inert, labels distinct.
func question(inv *invocation, name string, w protocol.UserQuestion) (Question, string) {
	q := Question{PluginID: inv.caller.PluginID, Kind: inv.kind, Name: name, Text: w.Text, AllowText: w.AllowText || len(w.Options) == 0}
	if strings.TrimSpace(w.Text) == "" {
		return q, "the question's text is empty"
	}
	if why := plainText("the question's text", w.Text, MaxQuestionText); why != "" {
		return q, why
	}
	if len(w.Options) > MaxQuestionChoice {
		return q, fmt.Sprintf("the question has %d options; the limit is %d", len(w.Options), MaxQuestionChoice)
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
		if why := plainText(where+"'s label", o.Label, MaxOptionText); why != "" {
			return q, why
		}
		if why := plainText(where+"'s description", o.Description, MaxOptionText); why != "" {
			return q, why
		}
		q.Options = append(q.Options, QuestionOption(o))
	}
	return q, ""
}

func plainText(what, s string, max int) string {
	switch {
	case len(s) > max:
		return fmt.Sprintf("%s is %d bytes; the limit is %d", what, len(s), max)
	case !utf8.ValidString(s):
		return what + " is not valid UTF-8"
	}
	if err := inert.Check(s); err != nil {
		return fmt.Sprintf("%s %v", what, err)
	}
	return ""
}

// answer checks the Asker's answer against q and puts it on the wire.
func answer(q Question, a Answer) (protocol.UserAnswer, string) {
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
		text, _ := CutText(a.Text, MaxAnswerText)
		return protocol.UserAnswer{Kind: protocol.AnswerText, Text: text}, ""
	}
	return protocol.UserAnswer{}, fmt.Sprintf("an answer of kind %q", a.Kind)
}

// invokeCommand sends a command/run that carries a Command ticket, valid for user/ask only,
// revoked when the command ends, when its owner ends and when its host exits; the deadline
// stands still while a question waits for the person.
func (m *Manager) invokeCommand(ctx context.Context, tg target, p protocol.CommandRunParams, opts CallOptions) (*protocol.Message, error) {
	table := m.cc.tickets()
	tk, err := table.Mint(tickets.Row{Kind: tickets.Command, Host: tickets.Host{Tier: tg.Tier, Generation: tg.Holder.Generation()},
		Owner: tg.Owner, Method: protocol.MethodUserAsk, Target: tickets.Target{CallID: p.CommandID, Tool: tg.Name}})
	if err != nil {
		return nil, &ExecutionError{Name: tg.Name, Message: err.Error()}
	}
	defer table.Revoke(tk)
	stopOwner := context.AfterFunc(tg.Holder.Context(), func() { table.RevokeOwner(tg.Owner) })
	defer stopOwner()
	callCtx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	errDeadline := fmt.Errorf("%w: %s after %s", ErrTimeout, tg.kind.method, tg.kind.deadline)
	dl := startDeadline(m.cc.clock, tg.kind.deadline, func() { cancel(errDeadline) })
	defer dl.stop()
	inv := &invocation{ticket: tk, caller: gate.Caller{PluginID: tg.Owner.PluginID, ClosureSHA256: tg.Holder.Closure(), Tool: tg.Name},
		kind: "command", asker: opts.Asker, workspace: opts.Workspace, deadline: dl, ctx: callCtx,
		card: make(chan struct{}, 1), idle: make(chan struct{})}
	m.cc.add(p.CommandID, inv)
	defer m.cc.remove(p.CommandID)
	p.Ticket = tk.Reveal()
	msg, err := sendWith(callCtx, tg, p, rpc.CallOpts{})
	if err != nil && errors.Is(context.Cause(callCtx), errDeadline) {
		err = fmt.Errorf("%s %q: %w", tg.kind.name, tg.Name, errDeadline)
	}
	inv.finish(cancel)
	return msg, err
}
