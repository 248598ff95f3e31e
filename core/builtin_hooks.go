package core

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"github.com/cwx-dev/cwx/core/cmdhooks"
	"github.com/cwx-dev/cwx/core/config"
	"github.com/cwx-dev/cwx/core/gate"
	"github.com/cwx-dev/cwx/core/hooks"
	"github.com/cwx-dev/cwx/core/natives"
	"github.com/cwx-dev/cwx/core/owners"
	"github.com/cwx-dev/cwx/core/plugins"
	"github.com/cwx-dev/cwx/core/protocol"
	"github.com/cwx-dev/cwx/core/registry"
	"github.com/cwx-dev/cwx/core/rpc"
	"github.com/cwx-dev/cwx/core/scripttools"
	"github.com/hashicorp/go-hclog"
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
	// claude are the trusted Claude Code plugins read with set: their hooks are in it,
	// their commands are the Manager's (commands.go).
	claude []plugins.ClaudeDesired // +checklocks:mu
	// transcripts are the sessions' transcripts, under $CWX_HOME/transcripts.
	transcripts cmdhooks.Transcripts
}

// cmdHookRunner runs the command hooks of the current configuration in the builtin hooks
// module (harnessRunner) and logs what they decided.
type cmdHookRunner struct {
	cmdHookState
	log   hclog.Logger
	own   *owners.Layer  // set once at Open, before any hook runs
	gate  *gate.Gate     // the posture hooks are told (permission_mode)
	store *plugins.Store // the installed Claude Code plugins (load)
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
func (r *cmdHookRunner) hooksWork(cfg *config.Config, _ map[string]plugins.Desired) (owners.BuiltinWork, error) {
	set, claude, err := r.load(cfg.Hooks)
	r.mu.Lock()
	r.loaded, r.set, r.claude, r.err = true, set, claude, err
	r.mu.Unlock()
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

// Claude Code plugins (package ccplugin) run in the core, not in a host: plugins.Store
// installs and trusts one like any plugin, and keeps it out of the desired plugins the
// owner layer activates. Their hooks join the command hooks the builtin hooks module runs,
// with CLAUDE_PLUGIN_ROOT their staged folder; their commands are the Manager's, a prompt
// each (OriginClaudeCode).
//
// load loads the command hooks of hc and of the trusted Claude Code plugins, and returns
// those plugins (for their commands). A plugin whose receipt or bytes do not hold is left
// out and logged; a state that cannot be read fails the load (the hooks fail closed).
func (r *cmdHookRunner) load(hc config.Hooks) (*cmdhooks.Set, []plugins.ClaudeDesired, error) {
	var claude []plugins.ClaudeDesired
	if r.store != nil {
		ps, blocked, err := r.store.ClaudeCode()
		if err != nil {
			return nil, nil, fmt.Errorf("the installed Claude Code plugins: %w", err)
		}
		for _, b := range blocked {
			r.log.Warn("Claude Code plugin not run", "plugin", b.ID, "error", b.Err)
		}
		claude = ps
	}
	var ph []cmdhooks.PluginHooks
	for _, p := range claude {
		if p.Plugin.HasHooks {
			ph = append(ph, cmdhooks.PluginHooks{ID: p.ID, Root: p.Root, Entries: p.Plugin.Hooks, Notes: p.Plugin.HookNotes})
		}
	}
	set, err := cmdhooks.Load(hc, ph...)
	return set, claude, err
}

// claudePlugins returns the trusted Claude Code plugins of the current configuration,
// loading them (with the hooks) when no Reconcile has yet.
func (r *cmdHookRunner) claudePlugins() []plugins.ClaudeDesired {
	_, _ = r.commandHooks()
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.claude
}

// claudeCommands lists the commands of the trusted Claude Code plugins, in plugin order.
func (r *cmdHookRunner) claudeCommands() []CommandInfo {
	var out []CommandInfo
	for _, p := range r.claudePlugins() {
		for _, c := range p.Plugin.Commands {
			out = append(out, CommandInfo{Name: c.Name, PluginID: p.ID, Origin: OriginClaudeCode + p.ID, Description: c.Description, ArgumentHint: c.ArgumentHint})
		}
	}
	return out
}

// commandHooks returns the current command hooks, loading them from the config Open read
// when no Reconcile has yet.
func (r *cmdHookRunner) commandHooks() (*cmdhooks.Set, error) {
	r.mu.Lock()
	if r.loaded {
		defer r.mu.Unlock()
		return r.set, r.err
	}
	r.mu.Unlock()
	hc := r.own.Config().Hooks
	set, claude, err := r.load(hc) // reads the hooks files: no lock held
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.loaded {
		r.loaded, r.set, r.claude, r.err = true, set, claude, err
	}
	return r.set, r.err
}

// builtinHookAnswers runs the PreToolUse command hooks that match c (ARCHITECTURE.md,
// “Command hooks”), all but the one named skip (the reviser of c's input), under their own
// timeouts, and returns what the fold takes from them, first. Hooks that do not load deny
// every call.
func (r *cmdHookRunner) builtinHookAnswers(ctx context.Context, c preCall, skip string) []hooks.Answer {
	set, err := r.commandHooks()
	if err != nil {
		return []hooks.Answer{{Hook: hooks.Hook{PluginID: cmdhooks.Owner},
			Verdict: protocol.HookVerdict{Kind: protocol.HookDeny, Reason: hookReasonLine(fmt.Sprintf("the command hooks do not load: %v", err))}}}
	}
	if skip != "" {
		set = set.Without(skip)
	}
	sess, id := r.hookSession(c.session, c.workspace), cmdhooks.ToolUseID(c.callID)
	if !set.Empty() {
		if err := r.transcripts.ToolUse(sess, c.name, id, c.input); err != nil {
			r.log.Warn("command hooks: the session transcript was not written", "error", err)
		}
	}
	ds := set.PreToolUse(ctx, harnessRunner{r}, sess, c.name, id, c.input)
	var out []hooks.Answer
	for _, d := range ds {
		r.logHook(d, c.name)
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

func (r *cmdHookRunner) logHook(d cmdhooks.Decision, tool string) {
	if d.Failed != "" {
		r.log.Warn("command hook", d.LogArgs(tool)...)
		return
	}
	r.log.Info("command hook", d.LogArgs(tool)...)
}

// afterCall runs the PostToolUse (or, for an error result, PostToolUseFailure) command hooks
// and puts in res what they said: the context they added for the model (HookContext), the
// part of it no hook asked to keep from the person (HookContextShown, suppressOutput) and
// their systemMessages for the person (HookMessages). streams is shell's stdout and stderr
// apart (nil for other tools), for Bash's tool_response.
func (r *cmdHookRunner) afterCall(ctx context.Context, tool, callID string, input json.RawMessage, res *ToolResult, streams *natives.Streams, opts CallOptions) {
	set, err := r.commandHooks()
	if err != nil || set.Empty() {
		return
	}
	o := cmdhooks.Outcome{Content: res.Content, IsError: res.IsError, Structured: res.Structured}
	if streams != nil {
		o.Streams = &cmdhooks.Streams{Stdout: streams.Stdout, Stderr: streams.Stderr, Truncated: streams.Truncated}
	}
	sess, id := r.hookSession(opts.SessionID, opts.Workspace), cmdhooks.ToolUseID(callID)
	if err := r.transcripts.ToolResult(sess, tool, id, o); err != nil {
		r.log.Warn("command hooks: the session transcript was not written", "error", err)
	}
	ds := set.AfterCall(ctx, harnessRunner{r}, sess, tool, id, input, o)
	for _, d := range ds {
		r.logHook(d, tool)
	}
	f := cmdhooks.FoldAfterCall(ds)
	res.HookContext, res.HookContextShown, res.HookMessages = f.Context, f.Shown, f.Messages
}

// hookSession is what hooks are told of a call's session: the caller's session id, else
// the process's (a one-shot, a REPL or a serve process is a session of its own); the
// workspace, else the folder cwx runs in, so CLAUDE_PROJECT_DIR is always set; the
// posture under Claude Code's name (cmdhooks.PermissionMode).
func (r *cmdHookRunner) hookSession(session, workspace string) cmdhooks.Session {
	s := cmdhooks.Session{ID: session, Cwd: workspace, PermissionMode: cmdhooks.PermissionMode(string(r.gate.Posture()))}
	if s.ID == "" {
		s.ID = cmdhooks.ProcessSessionID()
	}
	s.TranscriptPath = r.transcripts.Path(s.ID)
	if s.Cwd == "" {
		if wd, err := os.Getwd(); err == nil {
			s.Cwd = wd
		}
	}
	return s
}

// harnessRunner runs a hook in the builtin hooks module with harness/run, through the same
// admission as a call: an owner that is not live runs nothing (the hook then counts as not
// run), and the owner's end cancels the request.
type harnessRunner struct{ c *cmdHookRunner }

func (r harnessRunner) Run(ctx context.Context, h cmdhooks.Hook, stdin []byte, s cmdhooks.Session) (cmdhooks.Result, error) {
	o := r.c.own.Current(cmdhooks.Owner)
	if o == nil {
		return cmdhooks.Result{}, fmt.Errorf("%w: the builtin hooks module (%s) is not running", ErrNotAvailable, cmdhooks.Owner)
	}
	callCtx, stop := o.Bound(ctx)
	defer stop()
	r.c.log.Debug("command hook event", "hook", h.ID, "stdin", string(stdin))
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

// ScriptToolsModule is the builtin module that runs $CWX_HOME/tools/ (owner host:script-tools).
const ScriptToolsModule = "script-tools"

// ScriptToolsDir is the directory of the script tools under a cwx home.
func ScriptToolsDir(home string) string { return filepath.Join(home, "tools") }

// scriptToolsWork is the script-tools module's work (scripttools.Module) under home, with
// every name a script may not take (takenToolNames).
func scriptToolsWork(home string, nat *natives.Set, reg *registry.Registry, want map[string]plugins.Desired) (owners.BuiltinWork, error) {
	w, err := scripttools.Module(ScriptToolsDir(home), takenToolNames(nat, reg, want))
	if err != nil {
		return owners.BuiltinWork{}, err
	}
	return owners.BuiltinWork{Needed: w.Needed, Config: w.Config, Notes: w.Notes}, nil
}

// takenToolNames maps every folded tool name a script may not take to who has it: the natives
// and the tools of desired plugins, claimed at their last activation or registered now.
func takenToolNames(nat *natives.Set, reg *registry.Registry, want map[string]plugins.Desired) map[string]string {
	taken := map[string]string{}
	for _, n := range nat.Names() {
		taken[registry.Fold(n)] = "the built-in tool `" + n + "`"
	}
	for id, d := range want {
		if d.Record != nil && d.Record.Claims != nil && owners.TierOf(id) == protocol.TierPlugin {
			for _, n := range d.Record.Claims.Tools {
				taken[registry.Fold(n)] = "the tool of plugin `" + id + "`"
			}
		}
	}
	for _, t := range reg.Tools() {
		if owners.TierOf(t.PluginID) == protocol.TierPlugin {
			taken[registry.Fold(t.Name)] = "the tool of plugin `" + t.PluginID + "`"
		}
	}
	return taken
}

// preCall is one gated call as the pre-execute hooks see it.
type preCall struct {
	name      string
	callID    string
	input     json.RawMessage
	mode      string // hooks.ModeAgent or hooks.ModeCoreCall
	workspace string
	session   string // CallOptions.SessionID: the session_id command hooks are told
	// validate checks a revised input against the tool's schema.
	validate func(json.RawMessage) error
}
