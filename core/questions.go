package core

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/cwx-dev/cwx/core/gate"
	"github.com/cwx-dev/cwx/core/inert"
	"github.com/cwx-dev/cwx/core/owners"
	"github.com/cwx-dev/cwx/core/protocol"
	"github.com/cwx-dev/cwx/core/rpc"
	"github.com/cwx-dev/cwx/core/tickets"
)

var errQuestionTicket = &protocol.RPCError{Code: protocol.CodeRefused,
	Message: "user/ask refused: a plugin may ask only during a live invocation of its own tool or command (" + tickets.ErrRefused.Error() + ")"}

// serveUserAsk answers user/ask: the ticket must be a live invocation's, of this host and
// owner (a tool's or a command's); the question is checked, put to the invocation's Asker
// while the invocation's deadline stands still, and the answer checked against it.
func (m *Manager) serveUserAsk(ctx context.Context, t protocol.HostKey, gen uint64, p *protocol.UserAskParams) (any, error) {
	row, err := m.cc.tickets().RedeemQuestion(p.Ticket, tickets.Host{Key: t, Generation: gen}, p.Owner)
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
	tk, err := table.Mint(tickets.Row{Kind: tickets.Command, Host: tickets.Host{Key: tg.Host, Generation: tg.Holder.Generation()},
		Owner: tg.Owner, Method: protocol.MethodUserAsk, Target: tickets.Target{CallID: p.CommandID, Tool: tg.Name}})
	if err != nil {
		return nil, &ExecutionError{Name: tg.Name, Message: err.Error()}
	}
	defer table.Revoke(tk)
	stopOwner := context.AfterFunc(tg.Holder.Context(), func() { table.RevokeOwner(tg.Owner) })
	defer stopOwner()
	callCtx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	timeout := tg.kind.deadline
	if opts.Deadline > 0 {
		timeout = opts.Deadline
	}
	errDeadline := fmt.Errorf("%w: %s after %s", ErrTimeout, tg.kind.method, timeout)
	dl := startDeadline(m.cc.clock, timeout, func() { cancel(errDeadline) })
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
