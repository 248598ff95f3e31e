package cmdhooks

import (
	"bytes"
	"encoding/json"
	"fmt"
	"unicode/utf8"

	"github.com/cwx-dev/cwx/core/config"
	"github.com/cwx-dev/cwx/core/errdefs"
	"github.com/cwx-dev/cwx/core/internal/jsjson"
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

// Session is what the core tells hooks of where they run.
type Session struct {
	// ID is the session label (CallOptions' session id), "" when none was given.
	ID string
	// Cwd is the call's workspace, also the hook's working folder and CWX_PROJECT_DIR.
	Cwd string
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
	ToolResponse   *ToolResponse   `json:"tool_response,omitempty"`
	Prompt         *string         `json:"prompt,omitempty"`
}

// ToolResponse is what a PostToolUse hook is told of the call's result.
type ToolResponse struct {
	Content    string          `json:"content"`
	IsError    bool            `json:"is_error"`
	Structured json.RawMessage `json:"structured,omitempty"`
	// Truncated says the content was cut (and structured left out) to keep the stdin
	// within MaxStdin.
	Truncated bool `json:"truncated,omitempty"`
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

// PreToolUseEvent is the stdin of a PreToolUse hook for a call of tool (its cwx name);
// tool_input is ToolInput(input).
func PreToolUseEvent(s Session, tool, callID string, input json.RawMessage) ([]byte, error) {
	seen, err := ToolInput(input)
	if err != nil {
		return nil, err
	}
	return encode(eventJSON{HookEventName: config.EventPreToolUse, ToolName: ToolName(tool), ToolInput: seen, ToolUseID: callID}, s)
}

// PostToolUseEvent is the stdin of a PostToolUse hook (tool_input is ToolInput(input)). A
// response that would take the stdin over MaxStdin is cut (content shortened, structured
// left out, Truncated set).
func PostToolUseEvent(s Session, tool, callID string, raw json.RawMessage, resp ToolResponse) ([]byte, error) {
	input, err := ToolInput(raw)
	if err != nil {
		return nil, err
	}
	ev := eventJSON{HookEventName: config.EventPostToolUse, ToolName: ToolName(tool), ToolInput: input, ToolUseID: callID, ToolResponse: &resp}
	out, err := encode(ev, s)
	if err == nil || resp.Truncated {
		return out, err
	}
	cut := resp
	cut.Structured, cut.Truncated, cut.Content = nil, true, ""
	base, err := encode(eventJSON{HookEventName: ev.HookEventName, ToolName: ev.ToolName, ToolInput: input, ToolUseID: callID, ToolResponse: &cut}, s)
	if err != nil {
		return nil, err // the input alone is over the bound
	}
	// every byte of content costs at most six in JSON (\u00XX)
	cut.Content = cutUTF8(resp.Content, (MaxStdin-len(base))/6)
	return encode(eventJSON{HookEventName: ev.HookEventName, ToolName: ev.ToolName, ToolInput: input, ToolUseID: callID, ToolResponse: &cut}, s)
}

// UserPromptSubmitEvent is the stdin of a UserPromptSubmit hook.
func UserPromptSubmitEvent(s Session, prompt string) ([]byte, error) {
	return encode(eventJSON{HookEventName: config.EventUserPromptSubmit, Prompt: &prompt}, s)
}

// ErrStdinTooLarge is why an event over MaxStdin is not sent; it matches errdefs.ErrTooLarge.
var ErrStdinTooLarge = errdefs.New(errdefs.ErrTooLarge, "the event is too large for command hooks")

func encode(ev eventJSON, s Session) ([]byte, error) {
	ev.SessionID, ev.Cwd, ev.PermissionMode = s.ID, s.Cwd, "default"
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
