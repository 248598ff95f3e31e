package config

import (
	"errors"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestHooks(t *testing.T) {
	for _, c := range []struct {
		name string
		toml string
		want Hooks
		err  string // substring of the error; "" means it loads
	}{
		{name: "none", toml: ``},
		{name: "tables", toml: `
hooks_file = "claude/settings.json"
[[hooks.PostToolUse]]
command = "post"
[[hooks.PreToolUse]]
matcher = "Bash"
command = "./block.sh"
timeout_s = 5
[[hooks.PreToolUse]]
command = "second"
[[hooks.UserPromptSubmit]]
command = "prompt"
timeout_s = 120
`, want: Hooks{Files: []string{"/home/c/claude/settings.json"}, Entries: []HookEntry{
			{Event: EventPreToolUse, Matcher: "Bash", Command: "./block.sh", TimeoutS: 5},
			{Event: EventPreToolUse, Command: "second", TimeoutS: DefaultHookTimeoutS},
			{Event: EventPostToolUse, Command: "post", TimeoutS: DefaultHookTimeoutS},
			{Event: EventUserPromptSubmit, Command: "prompt", TimeoutS: 120},
		}}},
		{name: "absolute file", toml: `hooks_file = "/etc/cwx/hooks.json"`, want: Hooks{Files: []string{"/etc/cwx/hooks.json"}}},
		{name: "empty file", toml: `hooks_file = " "`, err: "hooks_file: is empty"},
		{name: "list in precedence order", toml: `hooks_file = ["/p/plugin/hooks/hooks.json", "/p/.claude/settings.local.json", "/p/.claude/settings.json", "/p/.claude/settings.json"]`,
			want: Hooks{Files: []string{"/p/.claude/settings.json", "/p/.claude/settings.local.json", "/p/plugin/hooks/hooks.json"}}},
		{name: "empty list", toml: `hooks_file = []`, err: "hooks_file: is an empty list"},
		{name: "list of numbers", toml: `hooks_file = [1]`, err: "hooks_file: holds something other than a path"},
		{name: "number", toml: `hooks_file = 1`, err: "hooks_file: is not a path or a list of paths"},
		{name: "unknown event", toml: "[[hooks.Stop]]\ncommand = \"x\"", err: "hooks.Stop: is not a hook event cwx runs"},
		{name: "unknown key", toml: "[[hooks.PreToolUse]]\ncommand = \"x\"\ntimeout = 5", err: "hooks.PreToolUse.timeout: unknown key (a [[hooks.<event>]] table knows matcher, command, timeout_s)"},
		{name: "no command", toml: "[[hooks.PreToolUse]]\nmatcher = \"Bash\"", err: "hooks.PreToolUse[0].command: is missing or empty"},
		{name: "NUL in command", toml: "[[hooks.PreToolUse]]\ncommand = \"a\\u0000b\"", err: "hooks.PreToolUse[0].command: holds a NUL byte, which no shell command can carry; remove it"},
		{name: "blank command", toml: "[[hooks.PreToolUse]]\ncommand = \"  \"", err: "hooks.PreToolUse[0].command: is missing"},
		{name: "timeout zero", toml: "[[hooks.PreToolUse]]\ncommand = \"x\"\ntimeout_s = 0", err: "timeout_s: 0 is out of range; use 1 to 120"},
		{name: "timeout over", toml: "[[hooks.PostToolUse]]\ncommand = \"x\"\ntimeout_s = 121", err: "hooks.PostToolUse[0].timeout_s: 121 is out of range"},
		{name: "prompt matcher", toml: "[[hooks.UserPromptSubmit]]\ncommand = \"x\"\nmatcher = \"Bash\"", err: "UserPromptSubmit hooks match every prompt"},
		{name: "prompt star", toml: "[[hooks.UserPromptSubmit]]\ncommand = \"x\"\nmatcher = \"*\"",
			want: Hooks{Entries: []HookEntry{{Event: EventUserPromptSubmit, Matcher: "*", Command: "x", TimeoutS: 60}}}},
		{name: "too many", toml: strings.Repeat("[[hooks.PreToolUse]]\ncommand = \"x\"\n", MaxHooks+1), err: "configures 129 hooks; the limit is 128"},
		{name: "too big", toml: "[[hooks.PreToolUse]]\ncommand = \"" + strings.Repeat("x", MaxHookConfigBytes+1) + "\"\n", err: "add up to 65537 bytes; the limit is 65536"},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg, err := Parse(filepath.FromSlash("/home/c/config.toml"), []byte(c.toml))
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) || !errors.Is(err, ErrInvalid) {
					t.Fatalf("err %v, want %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(cfg.Hooks, c.want) {
				t.Fatalf("hooks %+v, want %+v", cfg.Hooks, c.want)
			}
		})
	}
}

// TestSettingsKind: Claude Code's precedence of settings files, user first.
func TestSettingsKind(t *testing.T) {
	for file, want := range map[string]int{
		"/home/me/.claude/settings.json":       0,
		"/p/.claude/settings.json":             1,
		"/p/.claude/settings.local.json":       2,
		"/home/me/.claude/settings.local.json": 2,
		"/p/plugin/hooks/hooks.json":           3,
		"/p/.claude/other.json":                3,
	} {
		if got := SettingsKind(file, "/home/me"); got != want {
			t.Errorf("%s: %d, want %d", file, got, want)
		}
	}
}
