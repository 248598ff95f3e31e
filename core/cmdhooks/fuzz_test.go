package cmdhooks

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/cwx-dev/cwx/core/config"
	"github.com/cwx-dev/cwx/core/hooks"
	"github.com/cwx-dev/cwx/core/inert"
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

// FuzzDecide: whatever a hook prints and however it exits, the decision's reason is one inert
// line the fold accepts, its context is inert and bounded, and updatedInput is an object.
func FuzzDecide(f *testing.F) {
	f.Add(2, "", "Blocked\nnow")
	f.Add(0, `{"hookSpecificOutput":{"permissionDecision":"deny","permissionDecisionReason":"x\u202e"}}`, "")
	f.Add(0, `{"hookSpecificOutput":{"updatedInput":{"a":1},"additionalContext":"c"}}`, "")
	f.Add(0, `{"continue":false}`, "")
	f.Add(1, "", "\x1b[31merr")
	f.Fuzz(func(t *testing.T, code int, stdout, stderr string) {
		for _, h := range []Hook{pre, post, prompt} {
			d := Decide(h, Result{ExitCode: code, Stdout: stdout, Stderr: stderr})
			if d.Kind != Pass {
				if d.Reason == "" || strings.ContainsRune(d.Reason, '\n') || len(d.Reason) > hooks.MaxText || inert.Check(d.Reason) != nil || !utf8.ValidString(d.Reason) {
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
