package core

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/cwx-dev/cwx/core/config"
	"github.com/cwx-dev/cwx/core/owners"
	"github.com/cwx-dev/cwx/core/plugins"
	"github.com/cwx-dev/cwx/core/protocol"
	"github.com/cwx-dev/cwx/core/registry"
	"github.com/cwx-dev/cwx/core/scripttools"
)

// ScriptToolsModule is the builtin module that runs $CWX_HOME/tools/ (owner host:script-tools).
const ScriptToolsModule = "script-tools"

// ScriptToolsDir is the directory of the script tools under a cwx home.
func ScriptToolsDir(home string) string { return filepath.Join(home, "tools") }

// scriptEnv is the allow-list of the core's environment a script tool sees (README.md,
// “Script tools”); nothing else of the core's environment reaches it.
var scriptEnv = []string{"PATH", "HOME", "USER", "LOGNAME", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "TMPDIR"}

// scriptTool is one tool in the module's config (nodeshim/jshost/src/builtin/script-tools.ts).
type scriptTool struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"input_schema"`
	Path        string          `json:"path"`
	SHA256      string          `json:"sha256"`
	TimeoutMS   int64           `json:"timeout_ms"`
}

type scriptToolsConfig struct {
	Tools          []scriptTool      `json:"tools"`
	Env            map[string]string `json:"env"`
	MaxOutputBytes int               `json:"max_output_bytes"`
	MaxStderrBytes int               `json:"max_stderr_bytes"`
}

// scriptToolsWork finds the script tools and keeps out every one whose name is, in any
// spelling that folds to it, a native tool, a reserved name, or a tool of a desired plugin
// (claimed, or live now): a script tool never shadows another tool. A script's own
// `approval: auto` is ignored (approval comes only from the pinned table, which lists no
// script tool) and reported.
func (m *Manager) scriptToolsWork(_ *config.Config, want map[string]plugins.Desired) (owners.BuiltinWork, error) {
	scripts, problems, err := scripttools.Discover(ScriptToolsDir(m.home))
	if err != nil {
		return owners.BuiltinWork{}, err
	}
	var w owners.BuiltinWork
	for _, p := range problems {
		w.Notes = append(w.Notes, "script "+p.String())
	}
	taken := m.takenToolNames(want)
	cfg := scriptToolsConfig{Tools: []scriptTool{}, Env: map[string]string{},
		MaxOutputBytes: scripttools.MaxOutputBytes, MaxStderrBytes: scripttools.MaxStderrBytes}
	for _, s := range scripts {
		if by, ok := taken[registry.Fold(s.Name)]; ok {
			w.Notes = append(w.Notes, fmt.Sprintf("script %s: refused: tool name `%s` would shadow %s", s.File, s.Name, by))
			continue
		}
		if why := reservedToolName(s.Name); why != "" {
			w.Notes = append(w.Notes, fmt.Sprintf("script %s: refused: %s", s.File, why))
			continue
		}
		if s.AskedAuto {
			w.Notes = append(w.Notes, fmt.Sprintf("script %s: `approval: auto` ignored: a script tool always needs approval", s.File))
		}
		cfg.Tools = append(cfg.Tools, scriptTool{Name: s.Name, Description: s.Description, InputSchema: s.InputSchema,
			Path: s.Path, SHA256: s.SHA256, TimeoutMS: s.Timeout.Milliseconds()})
	}
	if len(cfg.Tools) == 0 {
		return w, nil
	}
	for _, k := range scriptEnv {
		if v, ok := os.LookupEnv(k); ok {
			cfg.Env[k] = v
		}
	}
	if cfg.Env["PATH"] == "" {
		cfg.Env["PATH"] = "/usr/local/bin:/usr/bin:/bin"
	}
	b, err := json.Marshal(cfg)
	if err != nil {
		return owners.BuiltinWork{}, err
	}
	w.Needed, w.Config = true, b
	return w, nil
}

// takenToolNames maps every folded tool name a script may not take to who has it: the natives
// and the tools of desired plugins, claimed at their last activation or registered now.
func (m *Manager) takenToolNames(want map[string]plugins.Desired) map[string]string {
	taken := map[string]string{}
	for _, n := range m.nat.set.Names() {
		taken[registry.Fold(n)] = "the built-in tool `" + n + "`"
	}
	for id, d := range want {
		if d.Record != nil && d.Record.Claims != nil && owners.TierOf(id) == protocol.TierPlugin {
			for _, n := range d.Record.Claims.Tools {
				taken[registry.Fold(n)] = "the tool of plugin `" + id + "`"
			}
		}
	}
	for _, t := range m.reg.Tools() {
		if owners.TierOf(t.PluginID) == protocol.TierPlugin {
			taken[registry.Fold(t.Name)] = "the tool of plugin `" + t.PluginID + "`"
		}
	}
	return taken
}

// reservedToolName applies the registry's reserved names, prefixes and infixes
// (ARCHITECTURE.md, “Registry rules”) before the module is asked, so one reserved script does
// not fail the others' activation.
func reservedToolName(name string) string {
	key := registry.Fold(name)
	for _, n := range registry.NativeToolNames {
		if key == registry.Fold(n) {
			return fmt.Sprintf("tool name `%s` is a reserved name (`%s`)", name, n)
		}
	}
	for _, p := range append(append([]string{}, registry.ReservedToolPrefixes...), registry.SpecialToolPrefixes...) {
		if strings.HasPrefix(key, p) {
			return fmt.Sprintf("tool name `%s` uses the reserved prefix `%s`", name, p)
		}
	}
	for _, s := range registry.SpecialToolInfixes {
		if strings.Contains(key, s) {
			return fmt.Sprintf("tool name `%s` contains the reserved `%s`", name, s)
		}
	}
	return ""
}
