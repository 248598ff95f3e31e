package config

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Command-hook events config.toml accepts as [[hooks.<event>]] tables, in Claude Code's
// spelling (ARCHITECTURE.md, “Command hooks”).
const (
	EventPreToolUse       = "PreToolUse"
	EventPostToolUse      = "PostToolUse"
	EventUserPromptSubmit = "UserPromptSubmit"
	// EventPostToolUseFailure follows a call whose result is an error (PostToolUse follows
	// only successes, as in Claude Code).
	EventPostToolUseFailure = "PostToolUseFailure"
	// EventSessionStart and EventSessionEnd open and close a session (a REPL, `plugin dev`,
	// `serve --mcp`, or a one-shot `tool call`); their matcher matches the source
	// ("startup") and the reason.
	EventSessionStart = "SessionStart"
	EventSessionEnd   = "SessionEnd"
	// EventNotification is raised when an approval card or a question waits for the person;
	// its matcher matches notification_type.
	EventNotification = "Notification"
)

// HookEvents lists the events in the order hooks are listed and run.
var HookEvents = []string{EventPreToolUse, EventPostToolUse, EventPostToolUseFailure, EventUserPromptSubmit,
	EventSessionStart, EventSessionEnd, EventNotification}

// Bounds of the command-hook configuration.
const (
	// DefaultHookTimeoutS is a hook's timeout when timeout_s is absent (seconds).
	DefaultHookTimeoutS = 60
	// MinHookTimeoutS and MaxHookTimeoutS bound timeout_s (seconds).
	MinHookTimeoutS = 1
	MaxHookTimeoutS = 120
	// MaxHookConfigBytes bounds the commands and matchers of all hooks together, and the
	// hooks file named by hooks_file.
	MaxHookConfigBytes = 64 << 10
	// MaxHooks bounds how many hooks config.toml and the hooks file configure together.
	MaxHooks = 128
)

// Hooks is the command-hook configuration of config.toml: the [[hooks.<event>]] tables in
// file order and the hooks file named by hooks_file.
type Hooks struct {
	// Files are hooks_file (one path or a list) made absolute (a relative path is taken from
	// the folder of config.toml), in Claude Code's precedence order: user settings
	// (~/.claude/settings.json) first, then a project's .claude/settings.json, then its
	// .claude/settings.local.json, then any other file (a plugin's hooks/hooks.json), each
	// kind in the order given ([SettingsKind]). The files are read by package cmdhooks.
	Files []string `json:"files,omitempty"`
	// Entries are the [[hooks.<event>]] tables, PreToolUse first, then PostToolUse, then
	// UserPromptSubmit, each event's tables in file order.
	Entries []HookEntry `json:"entries,omitempty"`
}

// HookEntry is one [[hooks.<event>]] table with its default applied.
type HookEntry struct {
	Event    string `json:"event"`
	Matcher  string `json:"matcher,omitempty"` // "" or "*" matches every tool
	Command  string `json:"command"`           // run with sh -c
	TimeoutS int    `json:"timeout_s"`         // MinHookTimeoutS..MaxHookTimeoutS
}

// hookTOML mirrors one [[hooks.<event>]] table.
type hookTOML struct {
	Matcher  *string `toml:"matcher"`
	Command  *string `toml:"command"`
	TimeoutS *int64  `toml:"timeout_s"`
}

// SettingsKind ranks a hooks file in Claude Code's precedence order: 0 user settings
// (<dir>/.claude/settings.json under the home folder), 1 a project's .claude/settings.json,
// 2 a project's .claude/settings.local.json, 3 any other file.
func SettingsKind(file, home string) int {
	dir, base := filepath.Dir(file), filepath.Base(file)
	switch {
	case filepath.Base(dir) != ".claude":
		return 3
	case base == "settings.local.json":
		return 2
	case base != "settings.json":
		return 3
	case home != "" && filepath.Dir(dir) == filepath.Clean(home):
		return 0
	}
	return 1
}

// resolveHooks checks the [hooks] tables and hooks_file (a string or a list of strings).
func resolveHooks(path string, file any, tables map[string][]hookTOML) (Hooks, error) {
	var out Hooks
	files, err := pathList(path, "hooks_file", file, "Claude Code settings.json-format files")
	if err != nil {
		return out, err
	}
	out.Files = files
	home, _ := os.UserHomeDir()
	slices.SortStableFunc(out.Files, func(a, b string) int { return SettingsKind(a, home) - SettingsKind(b, home) })
	for ev := range tables {
		if !slices.Contains(HookEvents, ev) {
			return out, &Error{Path: path, Key: "hooks." + ev, Reason: fmt.Sprintf("is not a hook event cwx runs; use %s", strings.Join(HookEvents, ", "))}
		}
	}
	size := 0
	for _, ev := range HookEvents {
		for i, t := range tables[ev] {
			key := fmt.Sprintf("hooks.%s[%d]", ev, i)
			e, err := resolveHook(path, key, ev, t)
			if err != nil {
				return out, err
			}
			size += len(e.Command) + len(e.Matcher)
			out.Entries = append(out.Entries, e)
		}
	}
	if len(out.Entries) > MaxHooks {
		return out, &Error{Path: path, Key: "hooks", Reason: fmt.Sprintf("configures %d hooks; the limit is %d", len(out.Entries), MaxHooks)}
	}
	if size > MaxHookConfigBytes {
		return out, &Error{Path: path, Key: "hooks", Reason: fmt.Sprintf("commands and matchers add up to %d bytes; the limit is %d", size, MaxHookConfigBytes)}
	}
	return out, nil
}

func resolveHook(path, key, ev string, t hookTOML) (HookEntry, error) {
	e := HookEntry{Event: ev, TimeoutS: DefaultHookTimeoutS}
	if t.Command == nil || strings.TrimSpace(*t.Command) == "" {
		return e, &Error{Path: path, Key: key + ".command", Reason: "is missing or empty; give the shell command the hook runs"}
	}
	e.Command = *t.Command
	if strings.ContainsRune(e.Command, 0) {
		return e, &Error{Path: path, Key: key + ".command", Reason: "holds a NUL byte, which no shell command can carry; remove it"}
	}
	if t.Matcher != nil {
		if ev == EventUserPromptSubmit && *t.Matcher != "" && *t.Matcher != "*" {
			return e, &Error{Path: path, Key: key + ".matcher", Reason: "UserPromptSubmit hooks match every prompt; remove the matcher"}
		}
		e.Matcher = *t.Matcher
	}
	if t.TimeoutS != nil {
		v := *t.TimeoutS
		if v < MinHookTimeoutS || v > MaxHookTimeoutS {
			return e, &Error{Path: path, Key: key + ".timeout_s", Reason: fmt.Sprintf("%d is out of range; use %d to %d (seconds)", v, MinHookTimeoutS, MaxHookTimeoutS)}
		}
		e.TimeoutS = int(v)
	}
	return e, nil
}

// pathList reads key, one path or a list of paths, each made absolute (a relative path is
// taken from the folder of config.toml at path) and cleaned, duplicates dropped; what names
// the files for the advice.
func pathList(path, key string, v any, what string) ([]string, error) {
	var names []string
	switch v := v.(type) {
	case nil:
		return nil, nil
	case string:
		names = []string{v}
	case []any:
		for _, e := range v {
			s, ok := e.(string)
			if !ok {
				return nil, &Error{Path: path, Key: key, Reason: "holds something other than a path; give a path or a list of paths"}
			}
			names = append(names, s)
		}
	default:
		return nil, &Error{Path: path, Key: key, Reason: "is not a path or a list of paths"}
	}
	if len(names) == 0 {
		return nil, &Error{Path: path, Key: key, Reason: "is an empty list; name " + what + " or remove the key"}
	}
	var out []string
	for _, n := range names {
		f := strings.TrimSpace(n)
		if f == "" {
			return nil, &Error{Path: path, Key: key, Reason: "is empty; name " + what + " or remove the key"}
		}
		if !filepath.IsAbs(f) {
			f = filepath.Join(filepath.Dir(path), f)
		}
		if f = filepath.Clean(f); !slices.Contains(out, f) {
			out = append(out, f)
		}
	}
	return out, nil
}
