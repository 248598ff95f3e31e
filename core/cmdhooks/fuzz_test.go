package cmdhooks

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/cwx-dev/cwx/core/config"
	"github.com/cwx-dev/cwx/core/hooks"
	"github.com/cwx-dev/cwx/core/inert"
	"github.com/cwx-dev/cwx/core/protocol"
)

// FuzzParseSettings: any hooks file either loads into entries within the bounds cwx runs, or
// is refused; it never panics.
func FuzzParseSettings(f *testing.F) {
	f.Add([]byte(`{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "x", "timeout": 10}]}]}}`))
	f.Add([]byte(`{"hooks": {"Stop": [], "PostToolUse": [{"hooks": [{"type": "prompt"}, {"type": "command", "command": "y", "timeout": -3}]}]}}`))
	f.Add([]byte(`{"permissions": {}, "hooks": null}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		entries, _, err := ParseSettings(data)
		if err != nil {
			return
		}
		for _, e := range entries {
			if e.Command == "" || e.TimeoutS < config.MinHookTimeoutS || e.TimeoutS > config.MaxHookTimeoutS {
				t.Fatalf("entry out of bounds: %+v", e)
			}
		}
	})
}

// FuzzDecide: whatever a hook prints and however it exits, a session or notification hook
// never blocks, and the decision's reason is inert
// text (its lines kept, no carriage return) the fold accepts from a builtin answer, its context is inert and bounded, and updatedInput is an object.
func FuzzDecide(f *testing.F) {
	f.Add(2, "", "Blocked\nnow")
	f.Add(0, `{"hookSpecificOutput":{"permissionDecision":"deny","permissionDecisionReason":"x\u202e"}}`, "")
	f.Add(0, `{"hookSpecificOutput":{"updatedInput":{"a":1},"additionalContext":"c"}}`, "")
	f.Add(0, `{"continue":false}`, "")
	f.Add(1, "", "\x1b[31merr")
	f.Fuzz(func(t *testing.T, code int, stdout, stderr string) {
		for _, h := range []Hook{pre, post, prompt, start, end, notify} {
			d := Decide(h, Result{ExitCode: code, Stdout: stdout, Stderr: stderr})
			if !blocks(h.Event) && d.Kind != Pass {
				t.Fatalf("a %s hook decided %s: %+v", h.Event, d.Kind, d)
			}
			if d.Kind != Pass {
				if d.Reason == "" || strings.ContainsRune(d.Reason, '\r') || strings.HasSuffix(d.Reason, "\n") || len(d.Reason) > hooks.MaxText || inert.Check(d.Reason) != nil || !utf8.ValidString(d.Reason) {
					t.Fatalf("reason %q", d.Reason)
				}
			}
			if len(d.Context) > MaxContext || inert.Check(d.Context) != nil {
				t.Fatalf("context of %d bytes: %q", len(d.Context), d.Context)
			}
			if d.Input != nil && (!json.Valid(d.Input) || d.Input[0] != '{') {
				t.Fatalf("updatedInput %s", d.Input)
			}
			if h.Event == config.EventPreToolUse {
				if out := hooks.Fold(d.Answers(), nil); d.Kind == Block && out.Decision != hooks.Deny || d.Kind == Pass && out.Decision == hooks.Deny {
					t.Fatalf("fold of %+v: %+v", d, out)
				}
			}
		}
	})
}

// FuzzHookInput: for any input, the tool_input of a native file tool is JSON whenever the
// input is, and its path, when rewritten, is absolute; the shapes built from any result text
// are JSON.
func FuzzHookInput(f *testing.F) {
	f.Add("read_file", `{"file_path":"a.txt","limit":2}`, "     1\ta\n")
	f.Add("list_dir", `{"path":"\u002e\u002e"}`, "a\n[more]\n")
	f.Add("grep_files", `{"pattern":"x","path":"/abs"}`, "a:1:x\n")
	f.Fuzz(func(t *testing.T, tool, input, text string) {
		out, err := hookInput(tool, "/w", json.RawMessage(input))
		if err != nil {
			return
		}
		if !json.Valid(out) {
			t.Fatalf("%q -> %q is not JSON", input, out)
		}
		var v struct {
			FilePath *string `json:"file_path"`
			Path     *string `json:"path"`
		}
		if _, ok := pathFields[tool]; ok && json.Unmarshal(out, &v) == nil {
			for _, p := range []*string{v.FilePath, v.Path} {
				if p != nil && *p != "" && !strings.HasPrefix(*p, "/") {
					t.Fatalf("%q -> %q has a relative path", input, out)
				}
			}
		}
		if r := Response(tool, "/w", Outcome{Content: []protocol.ContentBlock{{Type: protocol.ContentText, Text: text}}}); !json.Valid(r) {
			t.Fatalf("response %q", r)
		}
	})
}
