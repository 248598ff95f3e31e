package core

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/cwx-dev/cwx/core/ccplugin"
	"github.com/cwx-dev/cwx/core/gate"
	"github.com/cwx-dev/cwx/core/protocol"
	"github.com/cwx-dev/cwx/core/rpc"
	"github.com/cwx-dev/cwx/core/tickets"
)

// Bounds of a command's answer (ARCHITECTURE.md, “Registry rules”).
const (
	MaxCommandText   = 64 << 10  // success and error text, cut after stripping escapes
	MaxSubmitPrompt  = 128 << 10 // a submit prompt over this is refused, never cut
	commandKindError = "error"
)

// CommandResult is a command's answer. Kind is "success" (Text may be empty), "error" (Text
// says why) or "submit" (Prompt is to be sent as the user's next message; Text is shown
// first). Text has terminal escapes stripped and is cut at MaxCommandText; Prompt is the
// plugin's text unchanged.
type CommandResult struct {
	Kind      string `json:"kind"`
	Text      string `json:"text,omitempty"`
	Prompt    string `json:"prompt,omitempty"`
	Truncated bool   `json:"truncated,omitempty"` // Text was cut at 64 KiB
}

// RunCommand runs a live extension command with rawInput (the text after the name, trimmed)
// under CommandRunDeadline. A plugin's error answer is a CommandResult of kind "error", not a
// Go error; a submit prompt that is empty or over MaxSubmitPrompt is refused with
// ErrExecutionFailed. Other errors match ErrNotAvailable, ErrCancelled or ErrTimeout.
func (m *Manager) RunCommand(ctx context.Context, name, rawInput string, opts CallOptions) (CommandResult, error) {
	if c, ok := m.hooks.claudeCommand(m.Commands(), name); ok { // a Claude Code plugin's: its prompt, expanded (builtin_hooks.go, load)
		return claudeCommandResult(name, c, rawInput)
	}
	if err := m.own.Demand(ctx, protocol.KindCommand, name); err != nil { // lazy activation (core/owners)
		return CommandResult{}, err
	}
	tg, err := m.lookupRunnable(ctx, commandRun, name)
	if err != nil {
		return CommandResult{}, err
	}
	p := protocol.CommandRunParams{Handle: tg.Handle, CommandID: m.cc.ids.next(commandRun), RawInput: strings.TrimSpace(rawInput),
		DeadlineMS: uint64(CommandRunDeadline.Milliseconds()), Workspace: opts.Workspace, SessionID: opts.SessionID,
		AgentID: opts.AgentID, OriginTurnID: opts.OriginTurnID}
	msg, err := m.cc.invokeCommand(ctx, tg, p, opts)
	if err != nil {
		return CommandResult{}, err
	}
	res, ok := protocol.ValueOf[protocol.CommandResult](msg)
	if !ok {
		return CommandResult{}, &ExecutionError{Name: name, Message: "the host answered with something other than a command result"}
	}
	return commandResult(name, res)
}

// claudeCommand finds name among the commands as Commands lists them (listed): a Claude
// Code plugin's command only when no extension command has the name.
func (r *cmdHookRunner) claudeCommand(listed []CommandInfo, name string) (ccplugin.Command, bool) {
	for _, ci := range listed {
		if ci.Name != name {
			continue
		}
		id, ok := strings.CutPrefix(ci.Origin, OriginClaudeCode)
		if !ok {
			return ccplugin.Command{}, false
		}
		for _, p := range r.claudePlugins() {
			if p.ID != id {
				continue
			}
			for _, c := range p.Plugin.Commands {
				if c.Name == name {
					return c, true
				}
			}
		}
	}
	return ccplugin.Command{}, false
}

// claudeCommandResult is c's answer to rawInput: its prompt, expanded, to submit.
func claudeCommandResult(name string, c ccplugin.Command, rawInput string) (CommandResult, error) {
	prompt := c.Expand(rawInput)
	if len(prompt) > MaxSubmitPrompt {
		return CommandResult{}, &ExecutionError{Name: name, Message: fmt.Sprintf("the command's prompt is %d bytes, over the %d-byte limit (refused, never cut)", len(prompt), MaxSubmitPrompt)}
	}
	return CommandResult{Kind: string(protocol.CommandSubmit), Prompt: prompt}, nil
}
func commandResult(name string, res *protocol.CommandResult) (CommandResult, error) {
	text, cut := CutText(StripEscapes(res.Text), MaxCommandText)
	out := CommandResult{Kind: string(res.Kind), Text: text, Truncated: cut}
	if res.Kind == protocol.CommandSubmit {
		switch {
		case strings.TrimSpace(res.Prompt) == "":
			return CommandResult{}, &ExecutionError{Name: name, Message: "the command asked to submit an empty prompt (refused)"}
		case len(res.Prompt) > MaxSubmitPrompt:
			return CommandResult{}, &ExecutionError{Name: name, Message: fmt.Sprintf("the command's submit prompt is %d bytes, over the %d-byte limit (refused, never cut)", len(res.Prompt), MaxSubmitPrompt)}
		}
		out.Prompt = res.Prompt
	}
	return out, nil
}

// invokeCommand sends a command/run that carries a Command ticket, valid for user/ask only,
// revoked when the command ends, when its owner ends and when its host exits; the deadline
// stands still while a question waits for the person.
func (c *coreCalls) invokeCommand(ctx context.Context, tg target, p protocol.CommandRunParams, opts CallOptions) (*protocol.Message, error) {
	table := c.tickets()
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
	dl := startDeadline(c.clock, timeout, func() { cancel(errDeadline) })
	defer dl.stop()
	inv := &invocation{ticket: tk, caller: gate.Caller{PluginID: tg.Owner.PluginID, ClosureSHA256: tg.Holder.Closure(), Tool: tg.Name},
		kind: "command", asker: opts.Asker, workspace: opts.Workspace, deadline: dl, ctx: callCtx,
		card: make(chan struct{}, 1), idle: make(chan struct{})}
	c.add(p.CommandID, inv)
	defer c.remove(p.CommandID)
	p.Ticket = tk.Reveal()
	msg, err := sendWith(callCtx, tg, p, rpc.CallOpts{})
	if err != nil && errors.Is(context.Cause(callCtx), errDeadline) {
		err = fmt.Errorf("%s %q: %w", tg.kind.name, tg.Name, errDeadline)
	}
	inv.finish(cancel)
	return msg, err
}
