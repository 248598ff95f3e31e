package scripttools

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/cwx-dev/cwx/core/registry"
)

// scriptEnv is the allow-list of the core's environment a script tool sees (README.md,
// “Script tools”); nothing else of the core's environment reaches it.
var scriptEnv = []string{"PATH", "HOME", "USER", "LOGNAME", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "TMPDIR"}

// moduleTool is one tool in the module's config (nodeshim/jshost/src/builtin/script-tools.ts).
type moduleTool struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"input_schema"`
	Path        string          `json:"path"`
	SHA256      string          `json:"sha256"`
	TimeoutMS   int64           `json:"timeout_ms"`
}

type moduleConfig struct {
	Tools          []moduleTool      `json:"tools"`
	Env            map[string]string `json:"env"`
	MaxOutputBytes int               `json:"max_output_bytes"`
	MaxStderrBytes int               `json:"max_stderr_bytes"`
}

// Work is what the builtin module `script-tools` is given: whether it is needed at all, its
// config (the admitted tools, the environment, the output bounds), and a note per script
// refused or changed.
type Work struct {
	Needed bool
	Config json.RawMessage
	Notes  []string
}

// Module finds the script tools in dir and keeps out every one whose name is, in any spelling
// that folds to it (registry.Fold), a name in taken (folded, mapped to who has it: a native
// tool, a tool of a desired plugin), or reserved by the registry: a script tool never shadows
// another tool. A script's own `approval: auto` is ignored (approval comes only from the
// pinned table, which lists no script tool) and reported.
func Module(dir string, taken map[string]string) (Work, error) {
	scripts, problems, err := Discover(dir)
	if err != nil {
		return Work{}, err
	}
	var w Work
	for _, p := range problems {
		w.Notes = append(w.Notes, "script "+p.String())
	}
	cfg := moduleConfig{Tools: []moduleTool{}, Env: map[string]string{}, MaxOutputBytes: MaxOutputBytes, MaxStderrBytes: MaxStderrBytes}
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
		cfg.Tools = append(cfg.Tools, moduleTool{Name: s.Name, Description: s.Description, InputSchema: s.InputSchema,
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
		return Work{}, err
	}
	w.Needed, w.Config = true, b
	return w, nil
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
