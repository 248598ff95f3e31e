package natives

import (
	"path"
	"path/filepath"
	"strings"
)

// protectedDirs are folders whose files run, or configure what runs, without a tool call:
// git's hooks and config, editors' and agents' settings. A write anywhere below one (at
// any depth, so a submodule's .git too) is protected.
var protectedDirs = map[string]string{
	".git":    "git's hooks and config run on every git command",
	".claude": "agent settings and hooks",
	".vscode": "editor tasks and settings run code",
}

// protectedName says why a file name (folded to lower case) is protected, or "".
func protectedName(name string) string {
	switch {
	case name == ".envrc":
		return "direnv runs it on entering the folder"
	case name == ".env" || strings.HasPrefix(name, ".env"):
		return "environment files hold secrets and configure tools"
	case name == ".mcp.json":
		return "it starts MCP servers"
	case name == "package.json":
		return "its scripts run on install and on every npm run"
	}
	return ""
}

// protection says why writing the workspace path rel is protected, or "". abs are the
// file's absolute names (as given, and with links resolved); extra are further protected
// files and folders (the configured hooks files, $CWX_HOME), absolute.
func protection(rel string, abs []string, extra []string) string {
	parts := strings.Split(strings.ToLower(path.Clean(rel)), "/")
	for _, p := range parts[:len(parts)-1] {
		if why, ok := protectedDirs[p]; ok {
			return p + "/ is protected: " + why
		}
	}
	last := parts[len(parts)-1]
	if why, ok := protectedDirs[last]; ok {
		return last + " is protected: " + why
	}
	if why := protectedName(last); why != "" {
		return last + " is protected: " + why
	}
	for _, e := range extra {
		if e == "" {
			continue
		}
		forms := []string{filepath.Clean(e)}
		if real, err := filepath.EvalSymlinks(e); err == nil {
			forms = append(forms, real)
		}
		for _, a := range abs {
			for _, f := range forms {
				if _, ok := within(f, a); ok {
					return rel + " is protected: it is, or lies in, " + f + " (cwx's configuration)"
				}
			}
		}
	}
	return ""
}
