package cmdhooks

import (
	"bytes"
	"encoding/json"
	"fmt"
	"unicode/utf8"

	"github.com/cwx-dev/cwx/core/config"
	"github.com/cwx-dev/cwx/core/errdefs"
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

// PreToolUseEvent is the stdin of a PreToolUse hook for a call of tool (its cwx name).
func PreToolUseEvent(s Session, tool, callID string, input json.RawMessage) ([]byte, error) {
	return encode(eventJSON{HookEventName: config.EventPreToolUse, ToolName: ToolName(tool), ToolInput: input, ToolUseID: callID}, s)
}

// PostToolUseEvent is the stdin of a PostToolUse hook. A response that would take the
// stdin over MaxStdin is cut (content shortened, structured left out, Truncated set).
func PostToolUseEvent(s Session, tool, callID string, input json.RawMessage, resp ToolResponse) ([]byte, error) {
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
