package core

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sync"

	"github.com/cwx-dev/cwx/core/cmdhooks"
	"github.com/cwx-dev/cwx/core/config"
	"github.com/cwx-dev/cwx/core/hooks"
	"github.com/cwx-dev/cwx/core/owners"
	"github.com/cwx-dev/cwx/core/plugins"
	"github.com/cwx-dev/cwx/core/protocol"
	"github.com/cwx-dev/cwx/core/rpc"
)

// HooksModule is the builtin module that runs command hooks (owner host:hooks).
const HooksModule = "hooks"

// cmdHookEnv is the allow-list of the core's environment a command hook sees (README.md,
// “Command hooks”); the module adds CWX_PROJECT_DIR and CLAUDE_PROJECT_DIR, the workspace.
var cmdHookEnv = []string{"PATH", "HOME", "USER", "LOGNAME", "SHELL", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "TMPDIR"}

// cmdHookState is the command hooks of the Manager's current configuration, loaded at each
// Reconcile (hooksWork) or, before the first, from the config Open read.
type cmdHookState struct {
	mu     sync.Mutex
	loaded bool          // +checklocks:mu
	set    *cmdhooks.Set // +checklocks:mu
	err    error         // +checklocks:mu
	// transcripts are the sessions' transcripts, under $CWX_HOME/transcripts.
	transcripts cmdhooks.Transcripts
}

// hooksModuleConfig is what the module's apply receives (src/builtin/hooks.ts).
type hooksModuleConfig struct {
	Hooks          []hooksModuleHook `json:"hooks"`
	Env            map[string]string `json:"env"`
	MaxOutputBytes int               `json:"max_output_bytes"`
	MaxStdinBytes  int               `json:"max_stdin_bytes"`
}

type hooksModuleHook struct {
	ID        string `json:"id"`
	Command   string `json:"command"`
	TimeoutMS int64  `json:"timeout_ms"`
}

// hooksWork loads the command hooks of cfg; the module is needed when any is configured. A
// configuration that does not load starts no module, and every call the hooks could have
// matched is denied with the reason (the fold fails closed).
func (m *Manager) hooksWork(cfg *config.Config, _ map[string]plugins.Desired) (owners.BuiltinWork, error) {
	set, err := cmdhooks.Load(cfg.Hooks)
	m.cmdHooks.mu.Lock()
	m.cmdHooks.loaded, m.cmdHooks.set, m.cmdHooks.err = true, set, err
	m.cmdHooks.mu.Unlock()
	if err != nil {
		return owners.BuiltinWork{}, err
	}
	if set.Empty() {
		return owners.BuiltinWork{Notes: set.Notes}, nil
	}
	mc := hooksModuleConfig{Env: map[string]string{}, MaxOutputBytes: cmdhooks.MaxOutput, MaxStdinBytes: cmdhooks.MaxStdin}
	for _, k := range cmdHookEnv {
		if v, ok := os.LookupEnv(k); ok {
			mc.Env[k] = v
		}
	}
	for _, h := range set.Hooks {
		mc.Hooks = append(mc.Hooks, hooksModuleHook{ID: h.ID, Command: h.ShellCommand(), TimeoutMS: h.Timeout.Milliseconds()})
	}
	raw, err := json.Marshal(mc)
	if err != nil {
		return owners.BuiltinWork{}, err
	}
	return owners.BuiltinWork{Needed: true, Config: raw, Notes: set.Notes}, nil
}

// commandHooks returns the current command hooks, loading them from the config Open read
// when no Reconcile has yet.
func (m *Manager) commandHooks() (*cmdhooks.Set, error) {
	m.cmdHooks.mu.Lock()
	if m.cmdHooks.loaded {
		defer m.cmdHooks.mu.Unlock()
		return m.cmdHooks.set, m.cmdHooks.err
	}
	m.cmdHooks.mu.Unlock()
	hc := m.own.Config().Hooks
	set, err := cmdhooks.Load(hc) // reads the hooks file: no lock held
	m.cmdHooks.mu.Lock()
	defer m.cmdHooks.mu.Unlock()
	if !m.cmdHooks.loaded {
		m.cmdHooks.loaded, m.cmdHooks.set, m.cmdHooks.err = true, set, err
	}
	return m.cmdHooks.set, m.cmdHooks.err
}

// builtinHookAnswers runs the PreToolUse command hooks that match c (ARCHITECTURE.md,
// “Command hooks”), all but the one named skip (the reviser of c's input), under their own
// timeouts, and returns what the fold takes from them, first. Hooks that do not load deny
// every call.
func (m *Manager) builtinHookAnswers(ctx context.Context, c preCall, skip string) []hooks.Answer {
	set, err := m.commandHooks()
	if err != nil {
		return []hooks.Answer{{Hook: hooks.Hook{PluginID: cmdhooks.Owner},
			Verdict: protocol.HookVerdict{Kind: protocol.HookDeny, Reason: hookReasonLine(fmt.Sprintf("the command hooks do not load: %v", err))}}}
	}
	if skip != "" {
		set = set.Without(skip)
	}
	sess, id := m.hookSession(c.session, c.workspace), cmdhooks.ToolUseID(c.callID)
	if !set.Empty() {
		if err := m.cmdHooks.transcripts.ToolUse(sess, c.name, id, c.input); err != nil {
			m.log.Warn("command hooks: the session transcript was not written", "error", err)
		}
	}
	ds := set.PreToolUse(ctx, harnessRunner{m}, sess, c.name, id, c.input)
	var out []hooks.Answer
	for _, d := range ds {
		m.logHook(d, c.name)
		out = append(out, d.Answers()...)
	}
	return out
}

func hookReasonLine(s string) string {
	if len(s) > hooks.MaxText {
		s = s[:hooks.MaxText-3] + "..."
	}
	b := []byte(s)
	for i, c := range b {
		if c < 0x20 || c == 0x7f {
			b[i] = ' '
		}
	}
	return string(b)
}

func (m *Manager) logHook(d cmdhooks.Decision, tool string) {
	if d.Failed != "" {
		m.log.Warn("command hook", d.LogArgs(tool)...)
		return
	}
	m.log.Info("command hook", d.LogArgs(tool)...)
}

// PostToolUse runs the PostToolUse command hooks that match the tool, after the call
// returned res, and returns the context they added for the caller: additionalContext, and
// the reason of a hook that "blocked" (the call has already run: nothing a hook answers
// undoes it), each line naming its hook, within cmdhooks.MaxContextTotal.
func (m *Manager) PostToolUse(ctx context.Context, tool, callID string, input json.RawMessage, res ToolResult, opts CallOptions) []string {
	c, _ := m.afterCall(ctx, tool, callID, input, res, opts)
	return c
}

// afterCall runs the PostToolUse (or, for an error result, PostToolUseFailure) command hooks
// and returns the context they added for the model and their systemMessages for the person.
func (m *Manager) afterCall(ctx context.Context, tool, callID string, input json.RawMessage, res ToolResult, opts CallOptions) (hookContext, messages []string) {
	set, err := m.commandHooks()
	if err != nil || set.Empty() {
		return nil, nil
	}
	o := cmdhooks.Outcome{Content: res.Content, IsError: res.IsError, Structured: res.Structured}
	sess, id := m.hookSession(opts.SessionID, opts.Workspace), cmdhooks.ToolUseID(callID)
	if err := m.cmdHooks.transcripts.ToolResult(sess, tool, id, o); err != nil {
		m.log.Warn("command hooks: the session transcript was not written", "error", err)
	}
	ds := set.AfterCall(ctx, harnessRunner{m}, sess, tool, id, input, o)
	for _, d := range ds {
		m.logHook(d, tool)
	}
	return cmdhooks.Contexts(ds), cmdhooks.Messages(ds)
}

// SubmittedPrompt is a prompt after its UserPromptSubmit hooks.
type SubmittedPrompt struct {
	// Prompt is the prompt as submitted; "" when a hook blocked it.
	Prompt string `json:"prompt"`
	// Blocked says a hook refused the prompt, Reason why (naming the hook).
	Blocked bool   `json:"blocked"`
	Reason  string `json:"reason,omitempty"`
	// Context is what the hooks added for the model, in order and bounded.
	Context []string `json:"context,omitempty"`
}

// SubmitPrompt runs the UserPromptSubmit command hooks with text and returns the prompt, or
// its refusal, with the context they added. Hooks that do not load, or that cannot run,
// block the prompt (fail closed).
func (m *Manager) SubmitPrompt(ctx context.Context, text string, opts CallOptions) (SubmittedPrompt, error) {
	set, err := m.commandHooks()
	if err != nil {
		return SubmittedPrompt{Blocked: true, Reason: fmt.Sprintf("the command hooks do not load: %v", err)}, nil
	}
	ds := set.UserPromptSubmit(ctx, harnessRunner{m}, m.hookSession(opts.SessionID, opts.Workspace), text)
	for _, d := range ds {
		m.logHook(d, "")
	}
	p := cmdhooks.FoldPrompt(ds)
	if ctx.Err() != nil && p.Blocked {
		return SubmittedPrompt{}, fmt.Errorf("prompt: %w: %w", ErrCancelled, context.Cause(ctx))
	}
	out := SubmittedPrompt{Blocked: p.Blocked, Reason: p.Reason, Context: p.Context}
	if !p.Blocked {
		out.Prompt = text
	}
	return out, nil
}

// hookSession is what hooks are told of a call's session: the caller's session id, else
// the process's (a one-shot, a REPL or a serve process is a session of its own); the
// workspace, else the folder cwx runs in, so CLAUDE_PROJECT_DIR is always set; the
// posture under Claude Code's name (cmdhooks.PermissionMode).
func (m *Manager) hookSession(session, workspace string) cmdhooks.Session {
	s := cmdhooks.Session{ID: session, Cwd: workspace, PermissionMode: cmdhooks.PermissionMode(string(m.gate.Posture()))}
	if s.ID == "" {
		s.ID = cmdhooks.ProcessSessionID()
	}
	s.TranscriptPath = m.cmdHooks.transcripts.Path(s.ID)
	if s.Cwd == "" {
		if wd, err := os.Getwd(); err == nil {
			s.Cwd = wd
		}
	}
	return s
}

// HookTest is one run of `cwx hooks test`: what each matching hook decided.
type HookTest struct {
	Decisions []cmdhooks.Decision
}

// TestHooks runs the command hooks of event on input (Claude Code's event JSON: tool_name
// and tool_input, or prompt; tool_response for PostToolUse) as the core would, and returns
// their decisions. tool_name is a cwx name or Claude Code's.
func (m *Manager) TestHooks(ctx context.Context, event string, input json.RawMessage, opts CallOptions) ([]cmdhooks.Decision, error) {
	set, err := m.commandHooks()
	if err != nil {
		return nil, err
	}
	var in struct {
		ToolName     string          `json:"tool_name"`
		ToolInput    json.RawMessage `json:"tool_input"`
		ToolUseID    string          `json:"tool_use_id"`
		ToolResponse json.RawMessage `json:"tool_response"`
		Error        string          `json:"error"`
		Prompt       string          `json:"prompt"`
		SessionID    string          `json:"session_id"`
	}
	if err := json.Unmarshal(input, &in); err != nil {
		return nil, fmt.Errorf("%w: the input is not a JSON object with Claude Code's fields: %v", ErrInvalidInput, err)
	}
	if len(in.ToolInput) == 0 {
		in.ToolInput = json.RawMessage("{}")
	}
	if in.ToolUseID == "" {
		in.ToolUseID = cmdhooks.ToolUseID("hooks-test")
	}
	if opts.SessionID == "" {
		opts.SessionID = in.SessionID
	}
	sess := m.hookSession(opts.SessionID, opts.Workspace)
	tool := cmdhooks.NativeName(in.ToolName)
	var ds []cmdhooks.Decision
	switch event {
	case config.EventPreToolUse:
		ds = set.PreToolUse(ctx, harnessRunner{m}, sess, tool, in.ToolUseID, in.ToolInput)
	case config.EventPostToolUse:
		if len(in.ToolResponse) == 0 {
			in.ToolResponse = json.RawMessage("{}")
		}
		stdin, err := cmdhooks.PostToolUseEvent(sess, tool, in.ToolUseID, in.ToolInput, in.ToolResponse)
		ds = set.Fire(ctx, harnessRunner{m}, sess, event, tool, stdin, err)
	case config.EventPostToolUseFailure:
		stdin, err := cmdhooks.PostToolUseFailureEvent(sess, tool, in.ToolUseID, in.ToolInput, in.Error)
		ds = set.Fire(ctx, harnessRunner{m}, sess, event, tool, stdin, err)
	case config.EventUserPromptSubmit:
		ds = set.UserPromptSubmit(ctx, harnessRunner{m}, sess, in.Prompt)
	default:
		return nil, fmt.Errorf("%w: %q is not an event cwx runs hooks for", ErrInvalidInput, event)
	}
	for _, d := range ds {
		m.logHook(d, tool)
	}
	return ds, nil
}

// harnessRunner runs a hook in the builtin hooks module with harness/run, through the same
// admission as a call: an owner that is not live runs nothing (the hook then counts as not
// run), and the owner's end cancels the request.
type harnessRunner struct{ m *Manager }

func (r harnessRunner) Run(ctx context.Context, h cmdhooks.Hook, stdin []byte, s cmdhooks.Session) (cmdhooks.Result, error) {
	o := r.m.own.Current(cmdhooks.Owner)
	if o == nil {
		return cmdhooks.Result{}, fmt.Errorf("%w: the builtin hooks module (%s) is not running", ErrNotAvailable, cmdhooks.Owner)
	}
	callCtx, stop := o.Bound(ctx)
	defer stop()
	r.m.log.Debug("command hook event", "hook", h.ID, "stdin", string(stdin))
	query, err := json.Marshal(string(stdin)) // the exact bytes the hook reads
	if err != nil {
		return cmdhooks.Result{}, err
	}
	p := protocol.HarnessRunParams{Owner: o.Ref(), ExecutionID: h.ID, Ticket: "", DeadlineMS: uint64(h.Timeout.Milliseconds()),
		Hook: &protocol.HookDispatch{Event: h.Event, Dialect: "claude-code", Point: h.ID, Matcher: h.Matcher, Query: query}}
	msg, err := o.Send(callCtx, protocol.MethodHarnessRun, p, rpc.CallOpts{})
	var re *rpc.RemoteError
	switch {
	case err == nil:
	case errors.Is(err, owners.ErrOwnerEnded):
		return cmdhooks.Result{}, fmt.Errorf("%w: the builtin hooks module (%s) is not running", ErrNotAvailable, cmdhooks.Owner)
	case errors.As(err, &re):
		return cmdhooks.Result{}, errors.New(re.Message)
	default:
		return cmdhooks.Result{}, err
	}
	if msg == nil {
		return cmdhooks.Result{}, errors.New("the hooks module answered nothing")
	}
	return cmdhooks.DecodeResult(msg.Result)
}
