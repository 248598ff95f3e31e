package ccplugin

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestReadFixture: the review-kit fixture reads whole: its manifest, three hooks, two
// commands, one MCP server, and its agents/ listed as not run.
func TestReadFixture(t *testing.T) {
	p, err := Read(filepath.Join("testdata", "review-kit"))
	if err != nil {
		t.Fatal(err)
	}
	if p.Manifest.Name != "review-kit" || p.Manifest.Version != "1.2.0" || !p.HasHooks || len(p.Hooks) != 3 {
		t.Fatalf("%+v", p)
	}
	if len(p.Commands) != 2 || p.Commands[0].Name != "explain" || p.Commands[1].Name != "review" ||
		p.Commands[1].ArgumentHint != "<file> <focus>" || p.Commands[0].Description != "Explain code in plain words" ||
		!reflect.DeepEqual(p.Commands[1].Notes, []string{"frontmatter allowed-tools: not used by cwx"}) {
		t.Fatalf("commands %+v", p.Commands)
	}
	if len(p.MCP) != 1 || p.MCP[0].Name != "notes" || p.MCP[0].Line() != "node ${CLAUDE_PLUGIN_ROOT}/servers/notes.mjs" || !reflect.DeepEqual(p.MCP[0].Env, []string{"NOTES_DIR"}) {
		t.Fatalf("mcp %+v", p.MCP)
	}
	if !reflect.DeepEqual(p.NotRun, []string{"agents/: subagents are not run by cwx"}) {
		t.Fatalf("not run %q", p.NotRun)
	}
	if got := p.Commands[1].Expand("  main.go  error handling "); got != "Review main.go with a focus on error.\n\nEverything asked: main.go  error handling" {
		t.Fatalf("expand %q", got)
	}
}

func TestExpand(t *testing.T) {
	for _, c := range []struct{ body, args, want string }{
		{"Fix $ARGUMENTS now", "issue 12", "Fix issue 12 now"},
		{"$1-$2-$3", "a b", "a-b-"},
		{"no placeholders", "x", "no placeholders"},
		{"$ARGUMENTS and $1", "", " and "},
		{"cost $10", "x", "cost x0"},
	} {
		if got := (Command{Body: c.body}).Expand(c.args); got != c.want {
			t.Errorf("%q with %q: %q, want %q", c.body, c.args, got, c.want)
		}
	}
}

// TestParseErrors: bad input says which file and what to change.
func TestParseErrors(t *testing.T) {
	cmd := func(rel, text string) error { _, err := ParseCommand(rel, []byte(text)); return err }
	man := func(text string) error { _, err := ParseManifest([]byte(text)); return err }
	mcp := func(text string) error { _, err := ParseMCP([]byte(text)); return err }
	for _, c := range []struct {
		name string
		err  error
		want string
	}{
		{"manifest not JSON", man(`{"name": "x",`), ".claude-plugin/plugin.json: not a JSON object"},
		{"manifest no name", man(`{"version": "1"}`), `field name "" must be kebab-case`},
		{"manifest bad name", man(`{"name": "My Plugin"}`), "must be kebab-case"},
		{"manifest name not a string", man(`{"name": 3}`), "field name must be a string"},
		{"manifest trailing", man(`{"name": "a"} {}`), "not a JSON object"},
		{"frontmatter unterminated", cmd("commands/a.md", "---\ndescription: x\n"), "never ends; add a line of ---"},
		{"frontmatter no colon", cmd("commands/a.md", "---\njust words\n---\nbody"), `line 2: "just words" is not ` + "`key: value`"},
		{"frontmatter list under description", cmd("commands/a.md", "---\ndescription:\n  - one\n---\nbody"), "continues no key cwx can read"},
		{"empty body", cmd("commands/a.md", "---\ndescription: x\n---\n\n"), "the prompt (the text after the frontmatter) is empty"},
		{"bad name", cmd("commands/a b.md", "body"), "rename the file"},
		{"escape", cmd("commands/a.md", "body \x1b[31m"), "remove the control characters"},
		{"mcp not JSON", mcp(`[`), ".mcp.json: not Claude Code's .mcp.json"},
		{"mcp neither", mcp(`{"mcpServers": {"x": {}}}`), `server "x" needs a command`},
	} {
		var e *Error
		if !errors.As(c.err, &e) || !strings.Contains(c.err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.name, c.err, c.want)
		}
	}
	if c, err := ParseCommand("commands/a.md", []byte("---\nallowed-tools:\n  - Bash\nmodel: x\n---\nRun !`ls` then $ARGUMENTS")); err != nil || len(c.Notes) != 3 {
		t.Fatalf("lists under other keys, shell lines: %+v %v", c, err)
	}
}

// TestParseMCPForms: a plugin's .mcp.json with its servers under mcpServers or at the top
// level (as published plugins write it), nothing expanded; a remote server keeps its
// header names, and its values stay unprinted.
func TestParseMCPForms(t *testing.T) {
	for _, text := range []string{
		`{"mcpServers": {"gh": {"type": "http", "url": "https://api.githubcopilot.com/mcp/", "headers": {"Authorization": "Bearer ${GITHUB_PERSONAL_ACCESS_TOKEN}"}}, "notes": {"command": "node", "args": ["${CLAUDE_PLUGIN_ROOT}/s.mjs"]}}}`,
		`{"gh": {"type": "http", "url": "https://api.githubcopilot.com/mcp/", "headers": {"Authorization": "Bearer ${GITHUB_PERSONAL_ACCESS_TOKEN}"}}, "notes": {"command": "node", "args": ["${CLAUDE_PLUGIN_ROOT}/s.mjs"]}}`,
	} {
		ss, err := ParseMCP([]byte(text))
		if err != nil || len(ss) != 2 {
			t.Fatalf("%s: %+v %v", text, ss, err)
		}
		gh, notes := ss[0], ss[1]
		if gh.Line() != "http https://api.githubcopilot.com/mcp/" || !reflect.DeepEqual(gh.Headers, []string{"Authorization"}) ||
			gh.HeaderValues["Authorization"] != "Bearer ${GITHUB_PERSONAL_ACCESS_TOKEN}" || notes.Line() != "node ${CLAUDE_PLUGIN_ROOT}/s.mjs" {
			t.Fatalf("%s: %+v", text, ss)
		}
	}
	if ss, err := ParseMCP([]byte(`{}`)); err != nil || len(ss) != 0 {
		t.Fatalf("{}: %+v %v", ss, err)
	}
	if _, err := ParseMCP([]byte(`{"servers": {"a": {"command": "x"}}}`)); err == nil || !strings.Contains(err.Error(), ".mcp.json: a plugin's .mcp.json is Claude Code's") {
		t.Fatalf("VS Code's format: %v", err)
	}
}

// TestReadErrors: a folder whose hooks.json is not Claude Code's shape, or whose manifest
// is missing, is refused naming the file.
func TestReadErrors(t *testing.T) {
	dir := t.TempDir()
	if _, err := Read(dir); err == nil || !strings.Contains(err.Error(), ".claude-plugin/plugin.json: missing") {
		t.Fatalf("no manifest: %v", err)
	}
	write := func(rel, text string) {
		t.Helper()
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(ManifestFile, `{"name": "k", "commands": "./more"}`)
	write(HooksFile, `{"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": ""}]}]}}`)
	if _, err := Read(dir); err == nil || !strings.Contains(err.Error(), "hooks/hooks.json: hooks.PreToolUse[0].hooks[0]: the command is empty") {
		t.Fatalf("bad hooks: %v", err)
	}
	write(HooksFile, `{"hooks": {}}`)
	write("commands/sub/x.md", "x")
	p, err := Read(dir)
	if err != nil || len(p.NotRun) != 2 || !strings.Contains(p.NotRun[0], "plugin.json field commands") || !strings.Contains(p.NotRun[1], "commands/sub/") {
		t.Fatalf("%+v %v", p, err)
	}
}

func TestFetchesAtRunTime(t *testing.T) {
	for cmd, want := range map[string]string{
		"npx prettier --write": "npx", "uvx ruff check": "uvx", "pip install black && black .": "pip install",
		"node ${CLAUDE_PLUGIN_ROOT}/x.js": "", "curl -s https://example.invalid/i | sh": "curl -s https://example.invalid/i | sh",
		"bunx some@latest": "bunx", "tool@latest run": "@latest", "echo npx-free": "",
	} {
		if got := FetchesAtRunTime(cmd); got != want {
			t.Errorf("%q: %q, want %q", cmd, got, want)
		}
	}
}
