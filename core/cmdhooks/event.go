package cmdhooks

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"unicode/utf8"

	"github.com/cwx-dev/cwx/core/config"
	"github.com/cwx-dev/cwx/core/errdefs"
	"github.com/cwx-dev/cwx/core/internal/jsjson"
	"github.com/cwx-dev/cwx/core/protocol"
)

// Bounds of what a hook is given and what it may give back.
const (
	// MaxStdin bounds the event JSON written to a hook's stdin.
	MaxStdin = 64 << 10
	// MaxOutput bounds a hook's stdout and, separately, its stderr; the module keeps the
	// first MaxOutput bytes of each and says when it cut.
	MaxOutput = 16 << 10
	// MaxContext bounds the context one hook adds (additionalContext, or a
	// UserPromptSubmit hook's plain stdout); MaxContextTotal bounds the context of all the
	// hooks of one event together.
	MaxContext      = 8 << 10
	MaxContextTotal = 16 << 10
)

// Session is what the core tells hooks of where they run (README.md, “Command hooks”).
type Session struct {
	// ID is the session_id: the caller's session label, else the process's own
	// ([ProcessSessionID]), never "".
	ID string
	// Cwd is the call's workspace, also the hook's working folder and CLAUDE_PROJECT_DIR.
	Cwd string
	// PermissionMode is permission_mode, Claude Code's name of the approval posture
	// ([PermissionMode]); "" is written as "default".
	PermissionMode string
	// TranscriptPath is transcript_path, the session's transcript ("" when none is kept).
	TranscriptPath string
}

// eventJSON is the stdin of a hook, in Claude Code's field names.
type eventJSON struct {
	SessionID      string          `json:"session_id"`
	TranscriptPath string          `json:"transcript_path"`
	Cwd            string          `json:"cwd"`
	PermissionMode string          `json:"permission_mode"`
	HookEventName  string          `json:"hook_event_name"`
	ToolName       string          `json:"tool_name,omitempty"`
	ToolInput      json.RawMessage `json:"tool_input,omitempty"`
	ToolUseID      string          `json:"tool_use_id,omitempty"`
	ToolResponse   json.RawMessage `json:"tool_response,omitempty"`
	Error          *string         `json:"error,omitempty"`
	IsInterrupt    *bool           `json:"is_interrupt,omitempty"`
	Prompt         *string         `json:"prompt,omitempty"`
	Source         string          `json:"source,omitempty"`
	Reason         string          `json:"reason,omitempty"`
	Message        *string         `json:"message,omitempty"`
	NotifType      string          `json:"notification_type,omitempty"`
}

// ToolInput is the tool_input a hook is given for the call's input: the value the tool
// acts on, decoded and written again as Claude Code's JSON.stringify(JSON.parse(input))
// does (package jsjson), so that a hook matching text sees `.env`, never `\u002eenv`.
// Input that is not JSON is refused, and the hook then counts as not run.
func ToolInput(input json.RawMessage) (json.RawMessage, error) {
	out, err := jsjson.Reencode(input)
	if err != nil {
		return nil, fmt.Errorf("the tool input cannot be decoded for the hooks: %w", err)
	}
	return out, nil
}

// hookInput is ToolInput(input) with, for a native file tool, its path field made
// absolute against cwd, as Claude Code's file tools always carry absolute paths.
func hookInput(tool, cwd string, input json.RawMessage) (json.RawMessage, error) {
	out, err := ToolInput(input)
	if err != nil {
		return nil, err
	}
	field, ok := pathFields[tool]
	if !ok || cwd == "" {
		return out, nil
	}
	return absolutize(out, field, cwd), nil
}

// pathFields names the path field of each native file tool.
var pathFields = map[string]string{"read_file": "file_path", "grep_files": "path", "file_search": "path", "list_dir": "path",
	"write_file": "file_path", "edit_file": "file_path"}

// absolutize rewrites the top-level string member field of the JSON object obj (as
// ToolInput writes it) to an absolute path against cwd, leaving every other byte as it is.
func absolutize(obj json.RawMessage, field, cwd string) json.RawMessage {
	dec := json.NewDecoder(bytes.NewReader(obj))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return obj
	}
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			return obj
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return obj
		}
		end := int(dec.InputOffset())
		var p string
		if k != field || json.Unmarshal(v, &p) != nil || p == "" || filepath.IsAbs(p) {
			continue
		}
		b, err := json.Marshal(filepath.Join(cwd, p))
		if err != nil {
			return obj
		}
		if b, err = jsjson.Reencode(b); err != nil {
			return obj
		}
		start := end - len(v)
		return slices.Concat(obj[:start], b, obj[end:])
	}
	return obj
}

// PreToolUseEvent is the stdin of a PreToolUse hook for a call of tool (its cwx name);
// tool_input is ToolInput(input), with a native file tool's path made absolute.
func PreToolUseEvent(s Session, tool, toolUseID string, input json.RawMessage) ([]byte, error) {
	seen, err := hookInput(tool, s.Cwd, input)
	if err != nil {
		return nil, err
	}
	return encode(eventJSON{HookEventName: config.EventPreToolUse, ToolName: ToolName(tool), ToolInput: seen, ToolUseID: toolUseID}, s)
}

// PostToolUseEvent is the stdin of a PostToolUse hook (tool_input as PreToolUseEvent's)
// given the tool_response already in its shape ([Response]; `cwx hooks test` passes the
// one it was given). An event over MaxStdin is refused.
func PostToolUseEvent(s Session, tool, toolUseID string, raw, resp json.RawMessage) ([]byte, error) {
	input, err := hookInput(tool, s.Cwd, raw)
	if err != nil {
		return nil, err
	}
	return encode(eventJSON{HookEventName: config.EventPostToolUse, ToolName: ToolName(tool), ToolInput: input, ToolUseID: toolUseID, ToolResponse: resp}, s)
}

// PostToolUseFailureEvent is the stdin of a PostToolUseFailure hook: error is what the
// failed call said.
func PostToolUseFailureEvent(s Session, tool, toolUseID string, raw json.RawMessage, errText string) ([]byte, error) {
	input, err := hookInput(tool, s.Cwd, raw)
	if err != nil {
		return nil, err
	}
	f := false
	return encode(eventJSON{HookEventName: config.EventPostToolUseFailure, ToolName: ToolName(tool), ToolInput: input, ToolUseID: toolUseID, Error: &errText, IsInterrupt: &f}, s)
}

// OutcomeEvent is the stdin of the hooks that follow a call whose result is o: a
// PostToolUse event with o in the tool's shape ([Response]) for a success, a
// PostToolUseFailure event for a result that is an error. A result that would take the
// stdin over MaxStdin is cut (its text shortened, structured left out) until it fits.
func OutcomeEvent(s Session, tool, toolUseID string, raw json.RawMessage, o Outcome) ([]byte, error) {
	build := func(o Outcome) ([]byte, error) {
		if o.IsError {
			return PostToolUseFailureEvent(s, tool, toolUseID, raw, o.text())
		}
		return PostToolUseEvent(s, tool, toolUseID, raw, Response(tool, s.Cwd, o))
	}
	out, err := build(o)
	if !errors.Is(err, ErrStdinTooLarge) {
		return out, err
	}
	base, err := build(Outcome{IsError: o.IsError, Truncated: true})
	if err != nil {
		return nil, err // the input alone is over the bound
	}
	text := o.text()
	// every byte of text costs at most six in JSON (\u00XX), and a shape may hold it twice
	for n := (MaxStdin - len(base)) / 6; ; n /= 2 {
		cut := Outcome{IsError: o.IsError, Truncated: true, Content: []protocol.ContentBlock{{Type: protocol.ContentText, Text: cutUTF8(text, n)}}}
		if st := o.Streams; st != nil {
			out := cutUTF8(st.Stdout, n)
			cut.Streams = &Streams{Stdout: out, Stderr: cutUTF8(st.Stderr, n-len(out)), Truncated: true}
		}
		if out, err := build(cut); err == nil || n == 0 {
			return out, err
		}
	}
}

// UserPromptSubmitEvent is the stdin of a UserPromptSubmit hook.
func UserPromptSubmitEvent(s Session, prompt string) ([]byte, error) {
	return encode(eventJSON{HookEventName: config.EventUserPromptSubmit, Prompt: &prompt}, s)
}

// Session sources and end reasons, in Claude Code's spelling. cwx starts every session
// fresh, so its source is always SourceStartup; a session ends with ReasonPromptInputExit
// when the person left the REPL (/exit, end of input) and ReasonOther otherwise (a
// one-shot's call returned, an MCP client went away, a signal, a SessionStart hook's
// `continue: false`).
const (
	SourceStartup         = "startup"
	ReasonPromptInputExit = "prompt_input_exit"
	ReasonOther           = "other"
)

// Claude Code's notification types cwx raises: an approval card waits (permission_prompt),
// a plugin's question waits (elicitation_dialog).
const (
	NotifyPermission  = "permission_prompt"
	NotifyElicitation = "elicitation_dialog"
)

// SessionStartEvent is the stdin of a SessionStart hook.
func SessionStartEvent(s Session, source string) ([]byte, error) {
	return encode(eventJSON{HookEventName: config.EventSessionStart, Source: source}, s)
}

// SessionEndEvent is the stdin of a SessionEnd hook.
func SessionEndEvent(s Session, reason string) ([]byte, error) {
	return encode(eventJSON{HookEventName: config.EventSessionEnd, Reason: reason}, s)
}

// NotificationEvent is the stdin of a Notification hook: message is what waits, for the
// person, and typ its notification_type.
func NotificationEvent(s Session, message, typ string) ([]byte, error) {
	return encode(eventJSON{HookEventName: config.EventNotification, Message: &message, NotifType: typ}, s)
}

// ErrStdinTooLarge is why an event over MaxStdin is not sent; it matches errdefs.ErrTooLarge.
var ErrStdinTooLarge = errdefs.New(errdefs.ErrTooLarge, "the event is too large for command hooks")

func encode(ev eventJSON, s Session) ([]byte, error) {
	ev.SessionID, ev.Cwd, ev.PermissionMode, ev.TranscriptPath = s.ID, s.Cwd, s.PermissionMode, s.TranscriptPath
	if ev.PermissionMode == "" {
		ev.PermissionMode = PermissionDefault
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(ev); err != nil {
		return nil, fmt.Errorf("encoding the hook event: %w", err)
	}
	if b.Len() > MaxStdin {
		return nil, fmt.Errorf("%w (%d bytes; the limit is %d)", ErrStdinTooLarge, b.Len(), MaxStdin)
	}
	return b.Bytes(), nil
}

// cutUTF8 returns at most n bytes of s, cut at a rune boundary.
func cutUTF8(s string, n int) string {
	if n < 0 {
		n = 0
	}
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
