package cmdhooks

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/cwx-dev/cwx/core/config"
	"github.com/cwx-dev/cwx/core/errdefs"
	"github.com/cwx-dev/cwx/core/hooks"
	"github.com/cwx-dev/cwx/core/inert"
	"github.com/cwx-dev/cwx/core/protocol"
)

// Result is what the hooks module reports of one run of a hook's command.
type Result struct {
	// ExitCode is the command's exit status, -1 when a signal ended it or it never ran.
	ExitCode int    `json:"exit_code"`
	Signal   string `json:"signal,omitempty"`
	// TimedOut says the hook's timeout passed and its process tree was killed.
	TimedOut bool   `json:"timed_out"`
	Stdout   string `json:"stdout"`
	Stderr   string `json:"stderr"`
	// StdoutTruncated and StderrTruncated say the module kept only the first MaxOutput bytes.
	StdoutTruncated bool `json:"stdout_truncated"`
	StderrTruncated bool `json:"stderr_truncated"`
	// Error says why the command could not be started ("" when it ran).
	Error string `json:"error,omitempty"`
}

// DecodeResult decodes the module's answer strictly: an unknown field, or a stdout or stderr
// over MaxOutput, is a protocol violation (errdefs.ErrViolation), never trusted.
func DecodeResult(raw json.RawMessage) (Result, error) {
	var r Result
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&r); err != nil {
		return Result{}, errdefs.Newf(errdefs.ErrViolation, "the hooks module answered harness/run with something other than a hook result: %w", err)
	}
	if len(r.Stdout) > MaxOutput || len(r.Stderr) > MaxOutput {
		return Result{}, errdefs.Newf(errdefs.ErrViolation, "the hooks module answered a hook output over %d bytes", MaxOutput)
	}
	return r, nil
}

// Kind is what a hook decided.
type Kind int

// Kinds of decision.
const (
	Pass  Kind = iota // nothing to stop: the call (or prompt) goes on as without the hook
	Block             // PreToolUse: denied; PostToolUse: feedback; UserPromptSubmit: prompt refused
	Ask               // PreToolUse only: a card is forced
)

func (k Kind) String() string {
	switch k {
	case Block:
		return "block"
	case Ask:
		return "ask"
	}
	return "pass"
}

// Decision is what one run of a hook decided, and what it said, for the log.
type Decision struct {
	Hook   Hook
	Kind   Kind
	Reason string // inert, its lines kept, at most hooks.MaxText bytes (Block and Ask)
	// Context is additionalContext (or a UserPromptSubmit hook's plain stdout), inert, at
	// most MaxContext bytes.
	Context string
	// Message is the hook's systemMessage, for the person (never the model): inert, its
	// lines kept, at most MaxContext bytes.
	Message string
	// Input is PreToolUse's updatedInput: the core validates and gates it as a revise.
	Input json.RawMessage
	// Said is how the hook answered: "exit 2", "permissionDecision deny", "allow (does not
	// approve)", ...
	Said string
	// Stop says the hook answered `continue: false`: the call is stopped (a PreToolUse
	// hook's is a Block) and a session event's session should end; StopReason is its
	// stopReason for the person (inert, its lines kept).
	Stop       bool
	StopReason string
	// Suppress says the hook answered `suppressOutput: true`: its context (a session
	// event's, a PostToolUse hook's) is kept from the person (SessionOutcome.Shown,
	// AfterCallOutcome.Shown); the model still gets it.
	Suppress bool
	// Failed is a non-blocking error (an exit other than 0 and 2, a timeout, JSON that does
	// not parse): logged, and the hook decides nothing.
	Failed string
}

// output is the JSON a hook may print on stdout with exit 0 (Claude Code's fields; others
// are ignored).
type output struct {
	Continue           *bool  `json:"continue"`
	StopReason         string `json:"stopReason"`
	SuppressOutput     bool   `json:"suppressOutput"`
	Decision           string `json:"decision"`
	Reason             string `json:"reason"`
	SystemMessage      string `json:"systemMessage"`
	HookSpecificOutput *struct {
		PermissionDecision       string          `json:"permissionDecision"`
		PermissionDecisionReason string          `json:"permissionDecisionReason"`
		UpdatedInput             json.RawMessage `json:"updatedInput"`
		AdditionalContext        string          `json:"additionalContext"`
	} `json:"hookSpecificOutput"`
}

// Decide turns one run of h into its decision (package doc).
func Decide(h Hook, r Result) Decision {
	d := Decision{Hook: h}
	switch {
	case r.Error != "":
		return d.unrun(r.Error)
	case r.TimedOut:
		d.Said, d.Failed = "timed out", fmt.Sprintf("timed out after %ds; its process tree was killed", h.TimeoutS)
		return d
	case r.ExitCode == 2 && !blocks(h.Event):
		d.Said = "exit 2"
		d.Failed = fmt.Sprintf("exit 2 (%s hooks cannot block): %s", h.Event, reason(r.Stderr, "no stderr"))
		return d
	case r.ExitCode == 2:
		d.Said = "exit 2"
		d.Kind, d.Reason = Block, reason(r.Stderr, "the hook exited with status 2")
		return d
	case r.ExitCode != 0:
		d.Said = fmt.Sprintf("exit %d", r.ExitCode)
		if r.Signal != "" {
			d.Said = "killed by " + r.Signal
		}
		d.Failed = fmt.Sprintf("%s (non-blocking): %s", d.Said, reason(r.Stderr, "no stderr"))
		return d
	}
	out := strings.TrimSpace(r.Stdout)
	if !strings.HasPrefix(out, "{") {
		d.Said = "exit 0"
		if takesStdout(h.Event) && out != "" {
			d.Context = contextText(out, r.StdoutTruncated)
		}
		return d
	}
	var o output
	if r.StdoutTruncated {
		d.Said, d.Failed = "exit 0", fmt.Sprintf("its JSON output is over %d bytes and was not read", MaxOutput)
		return d
	}
	if err := json.Unmarshal([]byte(out), &o); err != nil {
		d.Said, d.Failed = "exit 0", fmt.Sprintf("its output is not JSON: %v", err)
		return d
	}
	return d.fromJSON(o)
}

func (d Decision) fromJSON(o output) Decision {
	var said []string
	if strings.TrimSpace(o.SystemMessage) != "" {
		d.Message = contextText(o.SystemMessage, false)
		said = append(said, "systemMessage")
	}
	if o.SuppressOutput {
		d.Suppress = true
		said = append(said, "suppressOutput")
	}
	if o.Continue != nil && !*o.Continue {
		said = append(said, "continue false")
		d.Stop, d.StopReason = true, reason(o.StopReason, "the hook asked to stop")
		if blocks(d.Hook.Event) || d.Hook.Event == config.EventPostToolUse {
			d.Kind, d.Reason = Block, d.StopReason
		}
	}
	perm, permReason := "", ""
	if hs := o.HookSpecificOutput; hs != nil {
		perm, permReason = hs.PermissionDecision, hs.PermissionDecisionReason
		if hs.AdditionalContext != "" {
			d.Context = contextText(hs.AdditionalContext, false)
		}
		if in := bytes.TrimSpace(hs.UpdatedInput); len(in) > 0 && string(in) != "null" && d.Hook.Event == config.EventPreToolUse {
			if in[0] != '{' {
				d.Failed = "updatedInput is not a JSON object; it was ignored"
			} else {
				d.Input = append(json.RawMessage(nil), in...)
				said = append(said, "updatedInput")
			}
		}
	}
	switch {
	case d.Kind == Block, d.Stop:
	case perm != "" && d.Hook.Event == config.EventPreToolUse:
		said = append(said, "permissionDecision "+perm)
		switch perm {
		case "deny":
			d.Kind, d.Reason = Block, reason(permReason, "the hook denied the call")
		case "ask":
			d.Kind, d.Reason = Ask, reason(permReason, "the hook asks for approval")
		case "allow":
			said[len(said)-1] += " (does not approve: the gate decides)"
		default:
			d.Failed = fmt.Sprintf("unknown permissionDecision %q; it was ignored", perm)
		}
	case o.Decision != "" && blocks(d.Hook.Event):
		said = append(said, "decision "+o.Decision)
		switch o.Decision {
		case "block", "deny":
			d.Kind, d.Reason = Block, reason(o.Reason, "the hook blocked it")
		case "approve", "allow":
			said[len(said)-1] += " (does not approve: the gate decides)"
		default:
			d.Failed = fmt.Sprintf("unknown decision %q; it was ignored", o.Decision)
		}
	}
	if d.Context != "" {
		said = append(said, "additionalContext")
	}
	d.Said = "exit 0"
	if len(said) > 0 {
		d.Said += ", " + strings.Join(said, ", ")
	}
	return d
}

// notRun is the decision for a hook that could not be run (the module unavailable, the
// event over MaxStdin): PreToolUse and UserPromptSubmit fail closed with a block naming
// why, PostToolUse records the failure.
func notRun(h Hook, err error) Decision { return Decision{Hook: h}.unrun(err.Error()) }

func (d Decision) unrun(why string) Decision {
	d.Said = "not run"
	if !failsClosed(d.Hook.Event) {
		d.Failed = "could not run: " + why
		return d
	}
	d.Kind, d.Reason = Block, reason("the hook could not run: "+why, "")
	return d
}

// blocks says whether a hook of event can block what it follows (exit 2, decision
// block): the session and notification events cannot, as in Claude Code (exit 2 there is a
// non-blocking error, its stderr logged).
func blocks(event string) bool {
	switch event {
	case config.EventSessionStart, config.EventSessionEnd, config.EventNotification:
		return false
	}
	return true
}

// takesStdout says whether a hook of event that exits 0 with plain text on stdout adds it
// as context, as Claude Code does for UserPromptSubmit and SessionStart.
func takesStdout(event string) bool {
	return event == config.EventUserPromptSubmit || event == config.EventSessionStart
}

// failsClosed says whether a hook of event that cannot run blocks: PreToolUse and
// UserPromptSubmit guard what is about to happen; the other events follow it.
func failsClosed(event string) bool {
	return event == config.EventPreToolUse || event == config.EventUserPromptSubmit
}

// reason makes s an inert text of at most hooks.MaxText-256 bytes (room for the hook's
// name), its lines kept as written: escapes and control characters other than newline and
// tab are stripped (a carriage return too, so "\r\n" ends a line), and blank lines at either
// end and trailing blanks go; def when s is blank.
func reason(s, def string) string {
	lines := strings.Split(strings.ReplaceAll(inert.Strip(s), "\r", ""), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " \t")
	}
	for len(lines) > 0 && lines[0] == "" {
		lines = lines[1:]
	}
	for len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	if len(lines) == 0 {
		return def
	}
	return cutText(strings.Join(lines, "\n"), hooks.MaxText-256)
}

// oneLine folds s into one inert line ("a / b"), for what must stay on one line: a hook's
// command in its name, a card's note.
func oneLine(s string) string {
	var lines []string
	for _, l := range strings.Split(inert.Strip(s), "\n") {
		if l = strings.TrimSpace(strings.ReplaceAll(l, "\t", " ")); l != "" {
			lines = append(lines, l)
		}
	}
	return cutText(strings.Join(lines, " / "), hooks.MaxText-256)
}

// contextText makes s inert text of at most MaxContext bytes.
func contextText(s string, cut bool) string {
	s = strings.TrimSpace(inert.Strip(s))
	if len(s) > MaxContext {
		s, cut = cutUTF8(s, MaxContext-len(" …[cut]")), true
	}
	if cut {
		s += " …[cut]"
	}
	return s
}

func cutText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return cutUTF8(s, n-len("…")) + "…"
}

// Answers turns a PreToolUse decision into what package hooks folds, attributed to the hooks
// module: a block is a deny and an ask an ask, both naming the hook; updatedInput is a
// revise; additionalContext is an annotation for the card. A pass with nothing else abstains.
func (d Decision) Answers() []hooks.Answer {
	h := hooks.Hook{PluginID: Owner, Name: d.Hook.ID}
	name := fmt.Sprintf("%s `%s`", d.Hook.ID, cutText(oneLine(d.Hook.Command), 200))
	var out []hooks.Answer
	add := func(v protocol.HookVerdict) { out = append(out, hooks.Answer{Hook: h, Verdict: v}) }
	switch d.Kind {
	case Block:
		add(protocol.HookVerdict{Kind: protocol.HookDeny, Reason: cutText(fmt.Sprintf("%s (command hook %s, %s)%s", d.Reason, name, d.Said, d.messageTail()), hooks.MaxText)})
	case Ask:
		add(protocol.HookVerdict{Kind: protocol.HookAsk, Reason: cutText(fmt.Sprintf("%s (command hook %s)%s", d.Reason, name, d.messageTail()), hooks.MaxText)})
	default:
		if d.Message != "" {
			add(protocol.HookVerdict{Kind: protocol.HookAnnotate, Text: cutText(fmt.Sprintf("command hook %s says: %s", d.Hook.ID, oneLine(d.Message)), hooks.MaxText)})
		}
	}
	if d.Input != nil {
		add(protocol.HookVerdict{Kind: protocol.HookRevise, Input: d.Input})
	}
	if d.Context != "" {
		add(protocol.HookVerdict{Kind: protocol.HookAnnotate, Text: cutText(fmt.Sprintf("command hook %s: %s", d.Hook.ID, oneLine(d.Context)), hooks.MaxText)})
	}
	if len(out) == 0 {
		add(protocol.HookVerdict{Kind: protocol.HookAbstain})
	}
	return out
}

// messageTail is the systemMessage of a hook that blocked or asked, for the reason the
// person reads ("" when it gave none).
func (d Decision) messageTail() string {
	if d.Message == "" {
		return ""
	}
	return "; the hook says: " + d.Message
}

// Messages gathers the systemMessage of several decisions in order, each naming its hook,
// lines kept, within MaxContextTotal: what the person is shown beside the result.
func Messages(ds []Decision) []string {
	var out []string
	total := 0
	for _, d := range ds {
		if d.Message == "" {
			continue
		}
		l := fmt.Sprintf("%s hook %s: %s", d.Hook.Event, d.Hook.ID, d.Message)
		if total+len(l) > MaxContextTotal {
			return append(out, fmt.Sprintf("(more hook messages were left out: the limit is %d bytes)", MaxContextTotal))
		}
		total += len(l)
		out = append(out, l)
	}
	return out
}

// Contexts gathers the context of several decisions in order, each line naming its hook,
// within MaxContextTotal; for PostToolUse a block's reason is given as feedback too.
func Contexts(ds []Decision) []string {
	var out []string
	total := 0
	for _, d := range ds {
		var lines []string
		if d.Kind == Block && !failsClosed(d.Hook.Event) {
			lines = append(lines, fmt.Sprintf("%s hook %s blocked: %s", d.Hook.Event, d.Hook.ID, d.Reason))
		}
		if d.Context != "" {
			lines = append(lines, d.Context)
		}
		for _, l := range lines {
			if total+len(l) > MaxContextTotal {
				out = append(out, fmt.Sprintf("(more hook context was left out: the limit is %d bytes)", MaxContextTotal))
				return out
			}
			total += len(l)
			out = append(out, l)
		}
	}
	return out
}

// LogArgs are the hclog key-value pairs that record what a hook saw and decided.
func (d Decision) LogArgs(tool string) []any {
	args := []any{"hook", d.Hook.ID, "event", d.Hook.Event, "command", d.Hook.Command, "said", d.Said, "decision", d.Kind.String()}
	if tool != "" {
		args = append(args, "tool", tool, "tool_name", ToolName(tool))
	}
	if d.Reason != "" {
		args = append(args, "reason", d.Reason)
	}
	if d.Failed != "" {
		args = append(args, "error", d.Failed)
	}
	if d.Input != nil {
		args = append(args, "updated_input", string(d.Input))
	}
	if d.Message != "" {
		args = append(args, "system_message", d.Message)
	}
	return args
}
