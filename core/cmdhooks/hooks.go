package cmdhooks

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/cwx-dev/cwx/core/config"
	"github.com/cwx-dev/cwx/core/errdefs"
	"github.com/cwx-dev/cwx/core/internal/boundedfile"
)

// Owner is the plugin id of the builtin module that runs command hooks.
const Owner = "host:hooks"

// Hook is one configured command hook.
type Hook struct {
	// ID names the hook in logs, listings and reasons: "PreToolUse[0]", counted per event
	// over config.toml's hooks first, then the hooks file's.
	ID      string        `json:"id"`
	Event   string        `json:"event"`
	Matcher string        `json:"matcher"`
	Command string        `json:"command"`
	Timeout time.Duration `json:"-"`
	// TimeoutS is Timeout in seconds, for listings.
	TimeoutS int `json:"timeout_s"`
	// Source is "config.toml" or the hooks file's path.
	Source string `json:"source"`
	// PluginRoot is the plugin folder of a hooks file at <folder>/hooks/hooks.json, the
	// layout of a Claude Code plugin: the hook runs with CLAUDE_PLUGIN_ROOT set to it
	// ([Hook.ShellCommand]). "" for any other source.
	PluginRoot string `json:"plugin_root,omitempty"`
	// Plugin is the id of the installed Claude Code plugin the hook comes from ("" for a
	// configured hook).
	Plugin string `json:"plugin,omitempty"`

	m matcher
}

// PluginHooks are the hooks of an installed, trusted Claude Code plugin: its
// hooks/hooks.json, already read (ParseSettings), from its staged folder Root.
type PluginHooks struct {
	ID, Root string
	Entries  []config.HookEntry
	Notes    []string
}

// Set is the loaded command hooks.
type Set struct {
	Hooks []Hook `json:"hooks"`
	// Notes say what of the hooks file was left out (an event cwx does not run, a hook of a
	// type other than command) or adjusted (a timeout clamped), one line each.
	Notes []string `json:"notes,omitempty"`
	// Sources are where the hooks were read, in the order they were merged.
	Sources []Source `json:"sources,omitempty"`
}

// Source is one place hooks were read from.
type Source struct {
	// Path is "config.toml" or a hooks file.
	Path string `json:"path"`
	// Kind is "config.toml", "user settings", "project settings", "local project settings"
	// or "hooks file" (Claude Code's precedence, config.SettingsKind), then "plugin" for an
	// installed Claude Code plugin's hooks.
	Kind string `json:"kind"`
	// PluginRoot is the plugin folder of a plugin's hooks/hooks.json (CLAUDE_PLUGIN_ROOT).
	PluginRoot string `json:"plugin_root,omitempty"`
	// Plugin is the installed Claude Code plugin of Kind "plugin" ("" otherwise).
	Plugin string `json:"plugin,omitempty"`
	// Hooks counts the hooks read from it.
	Hooks int `json:"hooks"`
}

var kindNames = []string{"user settings", "project settings", "local project settings", "hooks file"}

// Empty reports whether s configures no hook.
func (s *Set) Empty() bool { return s == nil || len(s.Hooks) == 0 }

// Without returns s without the hook named id (the hooks of s otherwise, in order).
func (s *Set) Without(id string) *Set {
	if s == nil {
		return nil
	}
	out := &Set{Notes: s.Notes}
	for _, h := range s.Hooks {
		if h.ID != id {
			out.Hooks = append(out.Hooks, h)
		}
	}
	return out
}

// Matching returns the hooks of event that match tool (the cwx name of the tool; for
// SessionStart the source, for SessionEnd the reason, for Notification the
// notification_type; ignored for UserPromptSubmit), in configuration order.
func (s *Set) Matching(event, tool string) []Hook {
	if s == nil {
		return nil
	}
	var out []Hook
	for _, h := range s.Hooks {
		if h.Event == event && (event == config.EventUserPromptSubmit || h.m.match(tool)) {
			out = append(out, h)
		}
	}
	return out
}

// Load builds the Set from config.toml's hooks, the hooks files it names and then the
// hooks of the installed Claude Code plugins ps. An error (a hooks file that cannot be
// read, is over the bound or is not Claude Code's shape, a matcher that does not compile)
// matches errdefs.ErrRefused and names the hook at fault.
func Load(c config.Hooks, ps ...PluginHooks) (*Set, error) {
	s := &Set{}
	count := map[string]int{}
	add := func(ev, matcher, command string, timeoutS int, source, root, plugin string) error {
		id := fmt.Sprintf("%s[%d]", ev, count[ev])
		m, err := compile(matcher)
		if err != nil {
			return errdefs.Newf(errdefs.ErrRefused, "%s hook %s in %s: %w", ev, id, source, err)
		}
		s.Hooks = append(s.Hooks, Hook{
			ID: id, Event: ev, Matcher: matcher, Command: command,
			Timeout: time.Duration(timeoutS) * time.Second, TimeoutS: timeoutS, Source: source, PluginRoot: root, Plugin: plugin, m: m,
		})
		count[ev]++
		return nil
	}
	for _, e := range c.Entries {
		if err := add(e.Event, e.Matcher, e.Command, e.TimeoutS, "config.toml", "", ""); err != nil {
			return nil, err
		}
	}
	if len(c.Entries) > 0 {
		s.Sources = append(s.Sources, Source{Path: "config.toml", Kind: "config.toml", Hooks: len(c.Entries)})
	}
	home, _ := os.UserHomeDir()
	for _, file := range c.Files {
		data, err := readBounded(file)
		if err != nil {
			return nil, err
		}
		entries, notes, err := ParseSettings(data)
		if err != nil {
			return nil, errdefs.Newf(errdefs.ErrRefused, "hooks file %s: %w", file, err)
		}
		for _, n := range notes {
			if len(c.Files) > 1 {
				n = file + ": " + n
			}
			s.Notes = append(s.Notes, n)
		}
		for _, e := range entries {
			if err := add(e.Event, e.Matcher, e.Command, e.TimeoutS, file, PluginRoot(file), ""); err != nil {
				return nil, err
			}
		}
		s.Sources = append(s.Sources, Source{Path: file, Kind: kindNames[config.SettingsKind(file, home)], PluginRoot: PluginRoot(file), Hooks: len(entries)})
	}
	for _, p := range ps {
		file := filepath.Join(p.Root, "hooks", "hooks.json")
		for _, n := range p.Notes {
			s.Notes = append(s.Notes, "plugin "+p.ID+": "+n)
		}
		for _, e := range p.Entries {
			if err := add(e.Event, e.Matcher, e.Command, e.TimeoutS, "plugin "+p.ID, p.Root, p.ID); err != nil {
				return nil, err
			}
		}
		s.Sources = append(s.Sources, Source{Path: file, Kind: "plugin", PluginRoot: p.Root, Plugin: p.ID, Hooks: len(p.Entries)})
	}
	if len(s.Hooks) > config.MaxHooks {
		return nil, errdefs.Newf(errdefs.ErrRefused, "%d command hooks are configured; the limit is %d", len(s.Hooks), config.MaxHooks)
	}
	return s, nil
}

// PluginRoot returns the plugin folder of a hooks file laid out as a Claude Code plugin's
// (<folder>/hooks/hooks.json), "" for any other path.
func PluginRoot(file string) string {
	dir := filepath.Dir(file)
	if filepath.Base(file) != "hooks.json" || filepath.Base(dir) != "hooks" {
		return ""
	}
	return filepath.Dir(dir)
}

// ShellCommand is what `sh -c` runs for h: its command, after an export of
// CLAUDE_PLUGIN_ROOT (quoted for the shell) when h comes from a plugin's hooks file, so
// `python3 ${CLAUDE_PLUGIN_ROOT}/hooks/pretooluse.py` names the plugin's script. The
// export is on a line of its own: the command's text is left exactly as written.
func (h Hook) ShellCommand() string {
	if h.PluginRoot == "" {
		return h.Command
	}
	return "CLAUDE_PLUGIN_ROOT=" + shellQuote(h.PluginRoot) + "\nexport CLAUDE_PLUGIN_ROOT\n" + h.Command
}

// shellQuote quotes s as one word for a POSIX shell.
func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

func readBounded(path string) ([]byte, error) {
	// Never blocks: a FIFO, a device or a folder is refused (a symlink, as dotfile managers
	// make, is followed to a regular file).
	data, err := boundedfile.Read(path, config.MaxHookConfigBytes, true)
	switch {
	case errors.Is(err, boundedfile.ErrTooLarge):
		return nil, errdefs.Newf(errdefs.ErrRefused, "hooks file %s is over %d bytes", path, config.MaxHookConfigBytes)
	case errors.Is(err, boundedfile.ErrNotRegular):
		return nil, errdefs.Newf(errdefs.ErrRefused, "hooks file %s is not a regular file (%w); point hooks_file at a settings.json", path, err)
	case err != nil:
		return nil, errdefs.Newf(errdefs.ErrRefused, "hooks file: %w", err)
	}
	return data, nil
}

// settingsJSON is the part of a Claude Code settings file that holds hooks.
type settingsJSON struct {
	Hooks map[string][]struct {
		Matcher *string `json:"matcher"`
		Hooks   []struct {
			Type    string   `json:"type"`
			Command string   `json:"command"`
			Timeout *float64 `json:"timeout"`
		} `json:"hooks"`
	} `json:"hooks"`
}

// ParseSettings reads the hooks of a Claude Code settings.json-format file: the events cwx
// runs become entries (PreToolUse first, then PostToolUse, then UserPromptSubmit, each in
// file order); other events and hook types are left out with a note, and a timeout outside
// 1–120 s is clamped with a note. Keys other than "hooks" are ignored, so a whole
// settings.json can be named.
func ParseSettings(data []byte) ([]config.HookEntry, []string, error) {
	var f settingsJSON
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&f); err != nil {
		return nil, nil, fmt.Errorf("not a Claude Code settings file: %w", err)
	}
	if dec.More() {
		return nil, nil, errors.New("not a Claude Code settings file: more than one JSON value")
	}
	var out []config.HookEntry
	var notes []string
	for ev := range f.Hooks {
		if !known(ev) {
			why := "cwx does not have this event"
			if slices.Contains(agentLoopEvents, ev) {
				why = "the event comes from an agent loop, which cwx is not"
			}
			notes = append(notes, fmt.Sprintf("%s hooks are not run by cwx: %s (it runs %s)", ev, why, strings.Join(config.HookEvents, ", ")))
		}
	}
	for _, ev := range config.HookEvents {
		for gi, g := range f.Hooks[ev] {
			matcher := ""
			if g.Matcher != nil {
				matcher = *g.Matcher
			}
			for hi, h := range g.Hooks {
				where := fmt.Sprintf("hooks.%s[%d].hooks[%d]", ev, gi, hi)
				if h.Type != "command" {
					notes = append(notes, fmt.Sprintf("%s: hooks of type %q are not run by cwx (only command)", where, h.Type))
					continue
				}
				if h.Command == "" {
					return nil, nil, fmt.Errorf("%s: the command is empty", where)
				}
				t := config.DefaultHookTimeoutS
				if h.Timeout != nil {
					// a fraction of a second rounds up; clamped first, so the int cannot overflow
					t = int(math.Ceil(min(max(*h.Timeout, -1), config.MaxHookTimeoutS+1)))
					switch {
					case t < config.MinHookTimeoutS:
						notes = append(notes, fmt.Sprintf("%s: timeout %gs raised to %ds", where, *h.Timeout, config.MinHookTimeoutS))
						t = config.MinHookTimeoutS
					case t > config.MaxHookTimeoutS:
						notes = append(notes, fmt.Sprintf("%s: timeout %gs lowered to %ds, the most cwx allows", where, *h.Timeout, config.MaxHookTimeoutS))
						t = config.MaxHookTimeoutS
					}
				}
				out = append(out, config.HookEntry{Event: ev, Matcher: matcher, Command: h.Command, TimeoutS: t})
			}
		}
	}
	slices.Sort(notes)
	return out, notes, nil
}

// agentLoopEvents are Claude Code's events that only an agent loop raises.
var agentLoopEvents = []string{"Stop", "SubagentStop", "PreCompact"}

func known(ev string) bool { return slices.Contains(config.HookEvents, ev) }
