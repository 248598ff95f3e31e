package core

import (
	"encoding/json"
	"os"
	"strings"
	"time"

	"github.com/cwx-dev/cwx/core/bundle"
	"github.com/cwx-dev/cwx/core/config"
	"github.com/cwx-dev/cwx/core/content"
	"github.com/cwx-dev/cwx/core/gate"
	"github.com/cwx-dev/cwx/core/gitscope"
	"github.com/cwx-dev/cwx/core/inert"
	"github.com/cwx-dev/cwx/core/natives"
	"github.com/cwx-dev/cwx/core/owners"
	"github.com/cwx-dev/cwx/core/plugins"
	"github.com/cwx-dev/cwx/core/protocol"
	"github.com/cwx-dev/cwx/core/questions"
	"github.com/cwx-dev/cwx/core/runtime"
	"github.com/cwx-dev/cwx/core/services"
	"github.com/cwx-dev/cwx/core/skills"
	"github.com/cwx-dev/cwx/core/supervisor"
	"github.com/hashicorp/go-hclog"
)

// The types the Manager's methods take and return, named here so that an embedder imports
// core (and nodeshim for its main) and nothing below it. Each is the same type as the one
// in the package that keeps the fact, documented there.
type (
	// PluginStore is the plugin store Plugins returns: Install, Review, Trust, Enable,
	// Disable, Untrust, Remove, Get, List (plugins.Store).
	PluginStore = plugins.Store
	// PluginRecord is one installed plugin in the store (plugins.Record).
	PluginRecord = plugins.Record
	// InstallResult is what PluginStore.Install returns (plugins.InstallResult).
	InstallResult = plugins.InstallResult
	// PluginReview is what PluginStore.Review returns; its Token is what Trust takes
	// (plugins.Review).
	PluginReview = plugins.Review
	// Tier is a trust tier: TierPlugin or TierBuiltin (protocol.Tier). Host, KillRuntime and
	// Retry take one; TierStatus names one.
	Tier = protocol.Tier
	// HostKey names one host: a tier's shared host or a plugin's own (protocol.HostKey).
	HostKey = protocol.HostKey
	// TierState is a tier's state in TierStatus (supervisor.State).
	TierState = supervisor.State
	// TierStatus is one tier's state (owners.TierStatus): the supervisor's view, with its
	// crash count within the budget's window, and the live owners, last blame and sandbox.
	// Its JSON form is `cwx host status --json`.
	TierStatus = owners.TierStatus
	// HostInfo is what the repl prints about one tier's current incarnation (owners.HostInfo).
	HostInfo = owners.HostInfo
	// OwnerInfo is what `cwx plugin show` reports about a plugin's owner (owners.OwnerInfo).
	OwnerInfo = owners.OwnerInfo
	// BuiltinModuleInfo describes one pinned builtin module (owners.BuiltinModuleInfo).
	BuiltinModuleInfo = owners.BuiltinModuleInfo
	// SandboxStatus says how the plugin tier is contained (owners.SandboxStatus).
	SandboxStatus = owners.SandboxStatus
	// Change says that the live catalog changed (owners.Change): read Tools and Commands again.
	Change = owners.Change
	// PluginError is one enabled, trusted plugin that is not active after Reconcile
	// (owners.PluginError); errors.Is matches its Kind.
	PluginError = owners.PluginError
	// NotLiveError: no live tool or command has the name (owners.NotLiveError); a case of
	// ErrNotAvailable, and of ErrUnknownTool when no plugin claims the name.
	NotLiveError = owners.NotLiveError
	// DownHolder is one plugin whose hooks cannot be asked: its state and what to do
	// (owners.DownHolder).
	DownHolder = owners.DownHolder
)

// The states a NotLiveError names (NotLiveError.State; owners.Absent*).
const (
	AbsentFailed       = owners.AbsentFailed
	AbsentFaulted      = owners.AbsentFaulted
	AbsentActivating   = owners.AbsentActivating
	AbsentStopped      = owners.AbsentStopped
	AbsentNotActivated = owners.AbsentNotActivated
	AbsentStale        = owners.AbsentStale
	AbsentDisabled     = owners.AbsentDisabled
	AbsentNotTrusted   = owners.AbsentNotTrusted
	AbsentNeedsReview  = owners.AbsentNeedsReview
	AbsentDevEnded     = owners.AbsentDevEnded
	AbsentChanged      = owners.AbsentChanged
)

// BuiltinSandboxNote is what the builtin tier's status says: it is first-party code that
// starts user hooks, so it is not put in the plugin tier's sandbox.
const BuiltinSandboxNote = owners.BuiltinSandboxNote

// RequiredRefusedNote is what the surfaces say under sandbox = "required" when the sandbox
// does not work: the plugin tier does not run at all, so it is not "unsandboxed".
const RequiredRefusedNote = owners.RequiredRefusedNote

// MaxStorageBytes bounds a plugin's owner-local storage folder; a larger one is refused
// before activation (owners.MaxStorageBytes).
const MaxStorageBytes = owners.MaxStorageBytes

// PluginErrors splits an error returned by Reconcile or Reload into the per-plugin failures
// it joins and the rest (a tier that could not start, config.toml that does not load, a
// cancelled context), nil when there is no other error.
func PluginErrors(err error) (failed []*PluginError, rest error) { return owners.PluginErrors(err) }

// SandboxFor is SandboxStatus without a Manager, for the surfaces that read only the home
// (a review, `plugin show`): config.toml's mode, the runtime it resolves and the probe.
func SandboxFor(home string) SandboxStatus { return owners.SandboxFor(home) }

// Containment says in one line how plugin id is contained on this machine under home's
// config.toml: sandboxed or not (and why not), in a host of its own or sharing one, and its
// grants (what approval cards, reviews and `plugin show` say).
func Containment(home, id string) string { return owners.ContainmentFor(home, id) }

// SandboxUserFor is the identity the plugin tier's runtime gets inside the sandbox: nil when
// cwx does not run as root, else [extension_host] sandbox_uid (owners.SandboxUserFor).
func SandboxUserFor(eh config.ExtensionHost, shim string) (*runtime.SandboxUser, error) {
	return owners.SandboxUserFor(eh, shim)
}

// The tiers.
const (
	TierPlugin  = protocol.TierPlugin
	TierBuiltin = protocol.TierBuiltin
)

// The states of a tier (TierStatus.State).
const (
	TierIdle         = supervisor.StateIdle
	TierStarting     = supervisor.StateStarting
	TierReady        = supervisor.StateReady
	TierUnresponsive = supervisor.StateUnresponsive
	TierRestarting   = supervisor.StateRestarting
	TierFailed       = supervisor.StateFailed
	TierStopping     = supervisor.StateStopping
	TierStopped      = supervisor.StateStopped
)

// DefaultLogger is the logger of a Manager opened without Options.Logger: warnings and
// errors, one line each, on stderr (a plugin's failed activation, a host restart, a dirty
// teardown), so an embedder sees what went wrong without configuring anything.
func DefaultLogger() hclog.Logger {
	return hclog.New(&hclog.LoggerOptions{Name: "cwx", Level: hclog.Warn, Output: os.Stderr})
}

// anyEnabled reports whether any plugin in st is enabled (Open's shim check).
func anyEnabled(st *plugins.State) bool {
	for _, r := range st.Plugins {
		if r.Enabled {
			return true
		}
	}
	return false
}

// StripEscapes removes what would let plugin text drive a terminal or reorder itself on
// screen: escape sequences and the refused characters of package inert (inert.Strip, the
// one strip function every printer uses).
func StripEscapes(s string) string { return inert.Strip(s) }

// CutText cuts s to at most max bytes on a UTF-8 boundary and reports whether it cut
// (inert.Cut).
func CutText(s string, max int) (string, bool) { return inert.Cut(s, max) }

// CallOptions carry the caller's context into a call. Every field is optional.
type CallOptions struct {
	// Workspace is the absolute directory of the call: told to the plugin, and the one
	// native tools and core/call are confined to. "" reaches no file (natives.ErrNoWorkspace).
	Workspace                        string
	SessionID, AgentID, OriginTurnID string
	// Approver answers this call's approval card; nil uses the Manager's (Options.Approver).
	Approver Approver
	// Asker answers the questions the plugin asks the person while this call runs
	// (user/ask); nil: no person is present, and a question is refused NO_PROVIDER.
	Asker Asker
	// Progress receives the progress an MCP server reports for this call (progress, total
	// when known, message); nil asks for none.
	Progress func(progress, total float64, message string)
	// Deadline replaces the call's own deadline (ToolCallDeadline, CommandRunDeadline) when
	// positive: `cwx plugin dev --inspect` gives a long one, as a breakpoint may hold the
	// call. The context still applies.
	Deadline time.Duration
}

// ToolInfo describes a live extension tool or a native tool.
type ToolInfo struct {
	Name        string          `json:"name"`
	PluginID    string          `json:"plugin"` // "" for a native tool
	Origin      string          `json:"origin"` // "extension:<plugin id>" or OriginNative
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"input_schema"`
	// ReadOnly says a native tool changes nothing (shown, not enforced); an extension tool
	// never has it, whatever the plugin says.
	ReadOnly bool `json:"read_only,omitempty"`
	// Cached says the entry comes from the plugin's catalog entry (its last successful
	// activation with these bytes, config and bundle), not from a live owner: no host was
	// asked (ARCHITECTURE.md, “Catalog”). false for a live or native tool.
	Cached bool `json:"cached,omitempty"`
}

// OriginClaudeCode prefixes the Origin of a Claude Code plugin's command.
const OriginClaudeCode = "claude-code:"

// CommandInfo describes a live extension command.
type CommandInfo struct {
	Name         string `json:"name"`
	PluginID     string `json:"plugin"`
	Origin       string `json:"origin"`
	Description  string `json:"description"`
	ArgumentHint string `json:"argument_hint,omitempty"`
	// Cached says the entry comes from the plugin's catalog entry, not from a live owner
	// (ARCHITECTURE.md, “Catalog”).
	Cached bool `json:"cached,omitempty"`
}

// ContentBlock is one block of a tool result: an MCP content block of one of the types
// below, within the caps of the content policy (package content).
type ContentBlock = protocol.ContentBlock

// The content block types (protocol.ContentType).
const (
	ContentText         = protocol.ContentText
	ContentImage        = protocol.ContentImage
	ContentAudio        = protocol.ContentAudio
	ContentResourceLink = protocol.ContentResourceLink
	ContentResource     = protocol.ContentResource
)

// ToolResult is what a tool returned. Text and Structured are the plugin's own output:
// strip terminal escapes before printing them (StripEscapes).
type ToolResult struct {
	Content    []ContentBlock  `json:"content"`
	IsError    bool            `json:"is_error"`
	Structured json.RawMessage `json:"structured,omitempty"`
	// CoreCalls are the receipts of the core/call requests the tool made while it ran.
	CoreCalls []CoreCallReceipt `json:"core_calls,omitempty"`
	// HookContext is what the PostToolUse command hooks added for the caller, each line
	// naming its hook, within cmdhooks.MaxContextTotal (builtin_hooks.go).
	HookContext []string `json:"hook_context,omitempty"`
	// HookContextShown is HookContext without what a hook that answered suppressOutput
	// added: what the person is shown of it (the model still gets all of HookContext).
	HookContextShown []string `json:"-"`
	// HookMessages are the systemMessage of the PostToolUse (or PostToolUseFailure) command
	// hooks, for the person and not the model, each naming its hook (builtin_hooks.go).
	HookMessages []string `json:"hook_messages,omitempty"`
}

// Text joins the result's blocks, one line apart: a text block's text, and for any other
// block (an image, audio, a resource) its placeholder line, such as `[image image/png,
// 12 KiB]` (content.Placeholder): what a terminal shows. A result of one text block (the
// usual case) is returned as it is, without a copy.
func (r ToolResult) Text() string {
	switch {
	case len(r.Content) == 0:
		return ""
	case len(r.Content) == 1 && r.Content[0].Type == protocol.ContentText:
		return r.Content[0].Text
	}
	n := len(r.Content) - 1
	for _, c := range r.Content {
		n += len(c.Text)
	}
	var b strings.Builder
	b.Grow(n)
	for i, c := range r.Content {
		if i > 0 {
			b.WriteByte('\n')
		}
		if c.Type == protocol.ContentText {
			b.WriteString(c.Text)
		} else {
			b.WriteString(content.Placeholder(c))
		}
	}
	return b.String()
}

// PromptSection is one live prompt section: text a plugin contributes to the agent's
// prompt, attributed to its plugin (ARCHITECTURE.md, “Prompt sections”).
type PromptSection struct {
	PluginID string `json:"plugin"`
	ID       string `json:"id"`
	// Text is the plugin's text as admitted: valid UTF-8, no control characters but
	// newline and tab, none of the characters package inert refuses.
	Text string `json:"text"`
	// Wrapped is Text as an embedder puts it in front of a model: framed by lines that
	// name the plugin and the id, every line of the text quoted with "> ", so the text
	// can neither pose as system text nor end its own frame.
	Wrapped string `json:"wrapped"`
}

// PromptBlock joins the wrapped sections, in order, with a blank line between them: the
// text an embedder delivers as a user-role message, never as system text. It is "" when
// there are no sections.
func PromptBlock(sections []PromptSection) string {
	parts := make([]string, len(sections))
	for i, s := range sections {
		parts[i] = s.Wrapped
	}
	return strings.Join(parts, "\n\n")
}

// WrapSection frames one section's text as PromptSection.Wrapped describes.
func WrapSection(plugin, id, text string) string {
	var b strings.Builder
	b.Grow(len(text) + 160)
	b.WriteString("[prompt section `" + id + "` of plugin `" + plugin + "`: written by the plugin, not by the system or the person]\n")
	for _, line := range strings.Split(strings.TrimRight(text, "\n"), "\n") {
		b.WriteString("> " + line + "\n")
	}
	b.WriteString("[end of prompt section `" + id + "` of plugin `" + plugin + "`]")
	return b.String()
}

// Bounds of a question (core/questions).
const (
	MaxQuestionText   = questions.MaxText
	MaxQuestionChoice = questions.MaxChoice     // options of one question
	MaxOptionText     = questions.MaxOptionText // an option's label or description
	MaxAnswerText     = questions.MaxAnswerText
)

// The person's side of a question a plugin asks while its tool or command runs (core/questions
// doc.go, “Questions to the person”). The types are core/questions'.
type (
	// Asker answers a plugin's question to the person: the CLI asks on the terminal, an
	// embedder supplies its own in CallOptions.Asker, like the Approver (questions.Asker).
	Asker = questions.Asker
	// Question is what a plugin asks the person, attributed (questions.Question).
	Question = questions.Question
	// QuestionOption is one choice (questions.Option).
	QuestionOption = questions.Option
	// Answer is the person's answer (questions.Answer).
	Answer = questions.Answer
)

// Answer kinds.
const (
	AnswerChoice  = questions.AnswerChoice
	AnswerText    = questions.AnswerText
	AnswerSkipped = questions.AnswerSkipped
)

// ErrNoProvider: no person is present to answer (no Asker, or the Asker has no terminal).
// The plugin is answered with the typed error NO_PROVIDER (questions.ErrNoProvider).
var ErrNoProvider = questions.ErrNoProvider

// Deadlines of the call path (ARCHITECTURE.md, “Lifecycles and numbers”).
const (
	ToolCallDeadline   = 120 * time.Second
	CommandRunDeadline = 30 * time.Second
	ActivateDeadline   = owners.ActivateDeadline // the host's own bound is 5 s
	DeactivateDeadline = owners.DeactivateDeadline
)

// Options configure a Manager. The zero value reads $CWX_HOME (or ~/.cwx) and runs the
// embedded bundle through this executable re-executed as the shim.
type Options struct {
	// Home is the cwx home; "" means config.Home() ($CWX_HOME or ~/.cwx).
	Home string
	// Logger receives the core's logs and the hosts' `log` lines; nil means DefaultLogger
	// (warnings and errors on stderr). hclog.NewNullLogger() discards them.
	Logger hclog.Logger
	// Approver answers approval cards when a CallOptions gives none; nil makes an `ask`
	// posture fail closed.
	Approver Approver
	// Approval is the posture flag (`--approve`): "ask", "auto" or "deny"; "" falls back to
	// [extension_host] approval, then ask.
	Approval string
	// Natives are the native tools the core runs itself, listed with origin native and
	// called through the gate like extension tools; their names are reserved. nil means
	// natives.BuiltinWith with the home and the hooks files protected; an embedder adds its own with natives.BuiltinWith(o).With(...), o naming the paths to protect, each
	// Spec saying whether it is auto-eligible (ARCHITECTURE.md, “Native tools”).
	Natives *natives.Set
	// BuiltinCommands are the embedder's own command names, reserved like the core's.
	BuiltinCommands []string
	// ShimPath is the cwx binary re-executed as `cwx nodeshim`; "" means this executable,
	// whose main must then hand that invocation to nodeshim.Main first (examples/embed).
	// Open checks it once per process when a plugin is enabled (ErrNoShim).
	ShimPath string
	// Bundle is the JS host bundle; the zero value is the embedded one.
	Bundle bundle.Bundle
	// PollInterval is how often the state generation is re-read once Reconcile has run;
	// 0 means plugins.PollInterval (1 s), negative disables the watcher.
	PollInterval time.Duration
	// Tier adjusts each tier's supervisor options before the tier is created (tests shorten
	// timings here).
	Tier func(*supervisor.Options)
	// Now is the clock of log rate limiting; nil means time.Now.
	Now func() time.Time
	// Lazy makes Reconcile leave inactive every plugin whose catalog entry (its last
	// successful activation with the same bytes, config and host bundle) holds no
	// pre-execute hook: Tools and Commands list those from the catalog (Cached), and the
	// first call to one of their names activates the plugin. The zero value, eager,
	// activates every desired plugin in Reconcile, as a long-lived embedder, `cwx repl` and
	// `cwx serve --mcp` want; `cwx tool list|call` and `cwx command list|run` are lazy
	// (ARCHITECTURE.md, “Catalog”).
	Lazy bool
	// Isolate names plugins that run in a host of their own whatever config.toml says (as
	// if each had isolation = "process"; `cwx plugin dev --inspect` debugs one this way, so
	// that no other plugin shares its unsandboxed host). Tier sees each one's host with
	// supervisor.Options.Group set to its id.
	Isolate []string
	// The agent services, each optional: a plugin's call of one the embedder leaves nil is
	// refused by name (core/services doc.go, “Agent services”).
	Sessions       Sessions
	Subagents      Subagents
	Skills         Skills
	GitReviewScope GitReviewScope
}

// Approver answers approval cards (gate.Approver).
type Approver = gate.Approver

// ApprovalCard is what an Approver is shown (gate.Card).
type ApprovalCard = gate.Card

// Decision is an Approver's answer: AllowOnce, AllowSession, AllowToolForSession or
// DenyDecision (gate.Decision).
type Decision = gate.Decision

// The decisions, so an Approver needs nothing below the Manager. AllowSession remembers the
// card's Key (this exact input) for the Manager's lifetime, AllowToolForSession its ToolKey
// (any input to that tool of that plugin build, from the same origin); a Forced card
// (shell) remembers neither and offers no ToolKey.
const (
	DenyDecision        = gate.DenyDecision
	AllowOnce           = gate.AllowOnce
	AllowSession        = gate.AllowSession
	AllowToolForSession = gate.AllowToolForSession
)

// ApproverFunc adapts a function to Approver (gate.ApproverFunc).
type ApproverFunc = gate.ApproverFunc

// CoreCallReceipt records one core/call an invocation made, in the tool result.
type CoreCallReceipt struct {
	Name string `json:"name"`
	// Decision is what let it run or stopped it: "auto" (auto-eligible, no card), "session
	// grant", "posture auto", "approver", "denied", "refused" or "cancelled".
	Decision string `json:"decision"`
	// Status is how it ended: "ok", "error" (the tool's error result), "refused", "denied",
	// "cancelled" or "failed".
	Status string `json:"status"`
	Bytes  int    `json:"bytes"` // the result's text
}

// The agent services (core/services doc.go, “Agent services”): what only the agent that
// embeds cwx owns, each optional in Options, reached by a plugin through core/call by one
// of the names below. The types are core/services'.
type (
	// ServiceCall names the live invocation a service call comes from, as the core knows
	// it from the ticket (services.Call).
	ServiceCall = services.Call
	// Sessions is the agent's session store (services.Sessions).
	Sessions = services.Sessions
	// Subagents is the agent's sub-agent manager (services.Subagents).
	Subagents = services.Subagents
	// ChildRequest is a child agent to start (services.ChildRequest).
	ChildRequest = services.ChildRequest
	// ChildResult is how a child settled (services.ChildResult).
	ChildResult = services.ChildResult
	// Skills names the agent's skills roots (services.Skills).
	Skills = services.Skills
	// SkillsRoots is a fixed list of roots as a Skills (services.SkillsRoots).
	SkillsRoots = services.SkillsRoots
	// GitReviewScope runs one bounded git metadata query (services.GitReviewScope).
	GitReviewScope = services.GitReviewScope
	// GitQuery is one bounded git metadata query (gitscope.Query).
	GitQuery = gitscope.Query
	// ToolFilter is what a plugin asks of a child's tools (services.ToolFilter).
	ToolFilter = services.ToolFilter
	// Skill is one skill the core discovered under the agent's roots (skills.Skill).
	Skill = skills.Skill
	// SkillProblem is one candidate skill the core refused, and why (skills.Problem).
	SkillProblem = skills.Problem
)

// The names a plugin calls the agent services by.
const (
	ServiceSessionFlush    = services.NameSessionFlush
	ServiceSubagentStart   = services.NameSubagentStart
	ServiceSubagentResult  = services.NameSubagentResult
	ServiceSubagentDispose = services.NameSubagentDispose
	ServiceSkillsList      = services.NameSkillsList
	ServiceGitReviewScope  = services.NameGitReviewScope
)

// Bounds of the agent services (core/services).
const (
	MaxPersona       = services.MaxPersona
	MaxChildPrompt   = services.MaxChildPrompt
	MaxChildren      = services.MaxChildren
	MaxChildResult   = services.MaxChildResult
	ChildDisposeWait = services.ChildDisposeWait
)

// ErrWiden: a child's tool filter names a tool its parent does not have (services.ErrWiden).
var ErrWiden = services.ErrWiden

// GitArgs is the argument list, after `git`, that runs q with hooks, paging and lazy fetch
// off (gitscope.Args); a GitReviewScope runs it with GitEnv. A query the core would not
// admit is an error.
func GitArgs(q GitQuery) ([]string, error) { return gitscope.Args(q) }

// GitEnv is what a GitReviewScope adds to a minimal environment (gitscope.Env).
func GitEnv() []string { return append([]string(nil), gitscope.Env...) }
