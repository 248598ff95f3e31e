package plugins

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func claudeFixture(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs(filepath.Join("..", "ccplugin", "testdata", "review-kit"))
	must(t, err)
	return dir
}

// TestClaudeCodePlugin: a Claude Code plugin folder installs with no entries, its review
// lists its parts, Desired never lists it (no host runs it), ClaudeCode lists it once it
// is trusted and enabled, and a changed byte of its staged copy (a hook script) stops it.
func TestClaudeCodePlugin(t *testing.T) {
	s := newStore(t, t.TempDir(), nil)
	res, err := s.Install(claudeFixture(t))
	must(t, err)
	r, err := s.Get("review-kit")
	must(t, err)
	if r.Kind != KindClaudeCode || len(r.Entries) != 0 || res.Version != "1.2.0" {
		t.Fatalf("record %+v", r)
	}
	rv, err := s.Review("review-kit")
	must(t, err)
	if rv.Claude == nil || len(rv.Claude.Hooks) != 3 || rv.Claude.Hooks[2].Fetches != "npx" || rv.Claude.Hooks[0].Fetches != "" ||
		len(rv.Claude.Commands) != 2 || len(rv.Claude.MCP) != 1 || rv.Claude.MCP[0].Status != "not run until reviewed and trusted: `cwx mcp review` names it" ||
		rv.Warning != RunsHookCommands || len(rv.Entries) != 0 {
		t.Fatalf("review %+v", rv.Claude)
	}
	must(t, s.Trust("review-kit", rv.Token))
	must(t, s.Enable("review-kit"))
	ds, _, _, err := s.Desired(nil)
	must(t, err)
	if len(ds) != 0 {
		t.Fatalf("a Claude Code plugin is desired as a host plugin: %+v", ds)
	}
	cc, blocked, err := s.ClaudeCode()
	must(t, err)
	if len(cc) != 1 || len(blocked) != 0 || cc[0].Root != res.StageDir || len(cc[0].Plugin.Hooks) != 3 {
		t.Fatalf("ClaudeCode %+v %+v", cc, blocked)
	}

	script := filepath.Join(res.StageDir, "hooks", "guard.sh")
	must(t, os.Chmod(filepath.Dir(script), 0o755))
	must(t, os.Chmod(script, 0o644))
	must(t, os.WriteFile(script, []byte("exit 0\n"), 0o644))
	cc, blocked, err = s.ClaudeCode()
	must(t, err)
	if len(cc) != 0 || len(blocked) != 1 || !errors.Is(blocked[0].Err, ErrContentChanged) {
		t.Fatalf("after a change: %+v %+v", cc, blocked)
	}
}

// TestClaudeCodePluginRefused: malformed parts refuse the install, naming the file.
func TestClaudeCodePluginRefused(t *testing.T) {
	dir := t.TempDir()
	must(t, os.MkdirAll(filepath.Join(dir, ".claude-plugin"), 0o700))
	must(t, os.WriteFile(filepath.Join(dir, ".claude-plugin", "plugin.json"), []byte(`{"name": "ok"}`), 0o600))
	must(t, os.MkdirAll(filepath.Join(dir, "commands"), 0o700))
	must(t, os.WriteFile(filepath.Join(dir, "commands", "x.md"), []byte("---\ndescription: never closed\n"), 0o600))
	_, err := newStore(t, t.TempDir(), nil).Install(dir)
	if !errors.Is(err, ErrManifest) || !strings.Contains(err.Error(), filepath.Join(dir, "commands", "x.md")+": the frontmatter that starts on line 1 never ends") {
		t.Fatalf("%v", err)
	}
}
