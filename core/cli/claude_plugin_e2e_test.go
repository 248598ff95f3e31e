package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cwx-dev/cwx/shared/testenv"
)

// claudePluginFixture is a Claude Code plugin folder written for these tests
// (core/ccplugin/testdata/review-kit): a PreToolUse guard and two PostToolUse hooks, two
// commands, one MCP server and an agents/ folder.
func claudePluginFixture(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs(filepath.Join("..", "ccplugin", "testdata", "review-kit"))
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestClaudeCodePluginE2E: `cwx plugin install` takes a Claude Code plugin folder; the
// review lists each hook command (unsandboxed, and a run-time fetch as not covered), each
// command and the MCP server (not run yet); once trusted and enabled its hooks run in the
// builtin hooks module with CLAUDE_PLUGIN_ROOT its staged folder, `cwx hooks list` names
// the plugin, and its commands expand to prompts on `cwx command run` and as MCP prompts of
// `serve --mcp`.
func TestClaudeCodePluginE2E(t *testing.T) {
	bin := testenv.BuildCWX(t, "")
	for _, want := range testenv.Runtimes() {
		t.Run(want.Name, func(t *testing.T) {
			rt := want.Get(t)
			home := t.TempDir()
			conf := fmt.Sprintf("[extension_host]\nruntime = %q\n%s = %q\n", rt.Name, rt.Name, rt.Path)
			if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(conf), 0o600); err != nil {
				t.Fatal(err)
			}
			inst := e2eMust(t, bin, home, "plugin", "install", claudePluginFixture(t))
			if !strings.Contains(inst.stdout, "installed review-kit 1.2.0, disabled and not trusted") {
				t.Fatalf("install:\n%s", inst.stdout)
			}
			rv := e2eMust(t, bin, home, "plugin", "review", "review-kit").stdout
			for _, s := range []string{
				"source   " + claudePluginFixture(t) + " (claude-code)",
				"covers   the whole folder",
				"unsandboxed, on every matching call",
				`PreToolUse Bash (10s): sh "${CLAUDE_PLUGIN_ROOT}/hooks/guard.sh"`,
				`PostToolUse Bash|Read (60s): sh "${CLAUDE_PLUGIN_ROOT}/hooks/record.sh"`,
				"PostToolUse Write|Edit (60s): npx prettier-fixture@latest --write\n    WARNING: fetches code when it runs (npx): that code is not in the closure",
				"/review <file> <focus>: Review one file with a focus (commands/review.md)",
				"/explain: Explain code in plain words (commands/explain.md)",
				"notes: node ${CLAUDE_PLUGIN_ROOT}/servers/notes.mjs (sets NOTES_DIR): not run until reviewed and trusted: `cwx mcp review` names it",
				"not run  agents/: subagents are not run by cwx",
				"Its hook commands run on your computer with your user permissions, unsandboxed",
			} {
				if !strings.Contains(rv, s) {
					t.Errorf("review lacks %q:\n%s", s, rv)
				}
			}
			var review struct {
				Token   string `json:"token"`
				Closure string `json:"closure_sha256"`
			}
			if err := json.Unmarshal([]byte(e2eMust(t, bin, home, "plugin", "review", "review-kit", "--json").stdout), &review); err != nil {
				t.Fatal(err)
			}
			// before trust nothing of it runs
			if l := e2eMust(t, bin, home, "hooks", "list").stdout; strings.Contains(l, "review-kit") {
				t.Fatalf("an untrusted plugin's hooks are listed:\n%s", l)
			}
			e2eMust(t, bin, home, "plugin", "trust", "review-kit", "--token", review.Token)
			e2eMust(t, bin, home, "plugin", "enable", "review-kit")

			list := e2eMust(t, bin, home, "hooks", "list").stdout
			for _, s := range []string{"PreToolUse[0]", "plugin review-kit", "(Claude Code plugin review-kit, 3 hooks, CLAUDE_PLUGIN_ROOT "} {
				if !strings.Contains(list, s) {
					t.Errorf("hooks list lacks %q:\n%s", s, list)
				}
			}
			var l HooksListJSON
			if err := json.Unmarshal([]byte(e2eMust(t, bin, home, "hooks", "list", "--json").stdout), &l); err != nil || len(l.Hooks) != 3 || l.Hooks[0].Plugin != "review-kit" {
				t.Fatalf("hooks list --json: %+v %v", l, err)
			}
			staged := l.Sources[0].PluginRoot
			if !strings.HasPrefix(staged, filepath.Join(home, "plugins")+string(filepath.Separator)) || !strings.HasSuffix(staged, review.Closure) {
				t.Fatalf("CLAUDE_PLUGIN_ROOT %q is not the staged copy", staged)
			}

			// the guard blocks through the builtin hooks module, from the staged folder
			ws := t.TempDir()
			if err := os.WriteFile(filepath.Join(ws, "main.go"), []byte("package main\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			call := e2eCWX(t, bin, home, "", "tool", "call", "shell", "--workspace", ws, "--input", `{"command":"rm -rf build"}`)
			if call.code != ExitDenied || !strings.Contains(call.stderr, "review-kit refuses rm -rf (guard at "+staged+")") {
				t.Fatalf("shell rm -rf: exit %d\n%s%s", call.code, call.stdout, call.stderr)
			}
			env, err := os.ReadFile(filepath.Join(ws, ".review-kit", "pre.env"))
			if err != nil || string(env) != "CLAUDE_PLUGIN_ROOT="+staged+"\n" {
				t.Fatalf("the guard's environment: %q %v", env, err)
			}
			read := e2eMust(t, bin, home, "tool", "call", "read_file", "--workspace", ws, "--input", `{"file_path":"main.go"}`)
			if !strings.Contains(read.stderr, "hook context: review-kit saw the command\n") {
				t.Fatalf("read_file:\n%s%s", read.stdout, read.stderr)
			}
			var post hookEvent
			if raw, err := os.ReadFile(filepath.Join(ws, ".review-kit", "post.json")); err != nil || json.Unmarshal(raw, &post) != nil ||
				post.HookEventName != "PostToolUse" || post.ToolName != "Read" || post.ToolInput["file_path"] != filepath.Join(ws, "main.go") {
				t.Fatalf("PostToolUse event: %+v %v", post, err)
			}

			// the commands: listed with the plugin, expanded to the prompt
			cl := e2eMust(t, bin, home, "command", "list").stdout
			if !strings.Contains(cl, "/review <file> <focus>") || !strings.Contains(cl, "review-kit") {
				t.Fatalf("command list:\n%s", cl)
			}
			var run CommandRunOutput
			raw := e2eMust(t, bin, home, "command", "run", "--json", "review", "main.go", "errors").stdout
			if err := json.Unmarshal([]byte(raw), &run); err != nil || run.Kind != "submit" || run.Plugin != "review-kit" ||
				run.Prompt != "Review main.go with a focus on errors.\n\nEverything asked: main.go errors" {
				t.Fatalf("command run --json: %s %v", raw, err)
			}
			if out := e2eMust(t, bin, home, "command", "run", "explain", "the", "cache").stdout; !strings.Contains(out, "Explain the cache in plain words, for a newcomer.") {
				t.Fatalf("command run explain:\n%s", out)
			}

			if repl := e2eCWX(t, bin, home, "/review a.go naming\n", "repl", "--workspace", ws); !strings.Contains(repl.stdout, "Review a.go with a focus on naming.") {
				t.Fatalf("repl /review:\n%s%s", repl.stdout, repl.stderr)
			}

			// serve --mcp exposes them as prompts
			srv := startServe(t, bin, home, false, "--workspace", ws)
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			prompts, err := srv.session.ListPrompts(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, p := range prompts.Prompts {
				names = append(names, p.Name)
			}
			if !strings.Contains(strings.Join(names, ","), "explain") || !strings.Contains(strings.Join(names, ","), "review") {
				t.Fatalf("prompts %q", names)
			}
			got, err := srv.session.GetPrompt(ctx, &mcp.GetPromptParams{Name: "review", Arguments: map[string]string{"input": "a.go naming"}})
			if err != nil || len(got.Messages) != 1 || !strings.Contains(fmt.Sprint(got.Messages[0].Content.(*mcp.TextContent).Text), "Review a.go with a focus on naming.") {
				t.Fatalf("get prompt: %+v %v", got, err)
			}
			srv.stop(t)

			show := e2eMust(t, bin, home, "plugin", "show", "review-kit").stdout
			for _, s := range []string{"status   enabled", "not run until reviewed and trusted: `cwx mcp review` names it", "not run  agents/", "live     not started: a Claude Code plugin runs no host code"} {
				if !strings.Contains(show, s) {
					t.Errorf("plugin show lacks %q:\n%s", s, show)
				}
			}
		})
	}
}

// TestClaudeCodePluginBadInput: a folder whose plugin.json, hooks.json or a command's
// frontmatter is malformed is refused at install, naming the file and what to change.
func TestClaudeCodePluginBadInput(t *testing.T) {
	bin := testenv.BuildCWX(t, "")
	for _, c := range []struct {
		name, file, text, want string
	}{
		{"plugin.json", ".claude-plugin/plugin.json", `{"name": "Review Kit"}`, `plugin.json: field name "Review Kit" must be kebab-case`},
		{"plugin.json not JSON", ".claude-plugin/plugin.json", `{"name": `, `plugin.json: not a JSON object`},
		{"hooks.json", "hooks/hooks.json", `{"hooks": {"PreToolUse": [{"hooks": [{"type": "command"}]}]}}`, "hooks/hooks.json: hooks.PreToolUse[0].hooks[0]: the command is empty"},
		{"frontmatter", "commands/review.md", "---\ndescription: x\nnot a pair\n---\nbody", `commands/review.md: frontmatter line 3: "not a pair" is not ` + "`key: value`; fix the line"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "kit")
			files := map[string]string{".claude-plugin/plugin.json": `{"name": "kit"}`, c.file: c.text}
			for rel, text := range files {
				p := filepath.Join(dir, filepath.FromSlash(rel))
				if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			r := e2eCWX(t, bin, t.TempDir(), "", "plugin", "install", dir)
			if r.code != ExitInvalid || !strings.Contains(r.stderr, c.want) {
				t.Fatalf("exit %d, want %d with %q:\n%s", r.code, ExitInvalid, c.want, r.stderr)
			}
		})
	}
}

// TestClaudeCodePluginRemoteMCP: a Claude Code plugin folder's Streamable HTTP server runs
// once the plugin and the server are trusted, reached from the core with the plugin's own
// header; a server whose header names one of the user's variables never runs, even with
// the variable set, and no output holds the header's value.
func TestClaudeCodePluginRemoteMCP(t *testing.T) {
	bin := testenv.BuildCWX(t, "")
	url := docsServer(t)
	t.Setenv("CWX_TEST_DOCS_TOKEN", docsToken)
	dir := t.TempDir()
	files := map[string]string{
		".claude-plugin/plugin.json": `{"name": "docs-kit", "version": "0.3.0", "description": "A remote docs server (a cwx test fixture)."}`,
		".mcp.json": fmt.Sprintf(`{"mcpServers": {
  "docs": {"type": "http", "url": %q, "headers": {"Authorization": "Bearer %s"}},
  "leaky": {"type": "http", "url": %q, "headers": {"Authorization": "Bearer ${CWX_TEST_DOCS_TOKEN}"}}
}}`, url, docsToken, url),
	}
	for name, body := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	home := e2eHome(t, testenv.Node(t), "")
	rec := &e2eRecorder{t: t, bin: bin, home: home}
	run := rec.run
	if r := run("plugin", "install", dir); r.code != 0 {
		t.Fatalf("install: %d %s %s", r.code, r.stdout, r.stderr)
	}
	var pr struct {
		Token string `json:"token"`
	}
	if r := run("plugin", "review", "docs-kit", "--json"); r.code != 0 || json.Unmarshal([]byte(r.stdout), &pr) != nil {
		t.Fatalf("plugin review: %d %s %s", r.code, r.stdout, r.stderr)
	}
	if r := run("plugin", "review", "docs-kit"); !strings.Contains(r.stdout, "docs: http "+url+": not run until reviewed and trusted") {
		t.Errorf("plugin review text:\n%s", r.stdout)
	}
	run("plugin", "trust", "docs-kit", "--token", pr.Token)
	run("plugin", "enable", "docs-kit")

	if r := run("tool", "call", "mcp_docs_lookup", "--approve", "auto", "--input", `{"q":"x"}`); r.code == 0 {
		t.Fatalf("an untrusted plugin server answered: %s", r.stdout)
	}
	var rv struct {
		Token, Plugin, URL, Transport string
		Headers                       []string
	}
	if r := run("mcp", "review", "docs", "--json"); r.code != 0 || json.Unmarshal([]byte(r.stdout), &rv) != nil ||
		rv.Plugin != "docs-kit" || rv.URL != url || rv.Transport != "http" || strings.Join(rv.Headers, ",") != "Authorization" || rv.Token == "" {
		t.Fatalf("mcp review docs: %d %s %s", r.code, r.stdout, r.stderr)
	}
	if r := run("mcp", "trust", "docs", "--token", rv.Token); r.code != 0 {
		t.Fatalf("mcp trust docs: %s", r.stderr)
	}
	if r := run("tool", "call", "mcp_docs_lookup", "--approve", "auto", "--input", `{"q":"gate"}`); r.code != 0 || strings.TrimSpace(r.stdout) != "found gate" {
		t.Fatalf("the plugin's http server: %d %q %q", r.code, r.stdout, r.stderr)
	}

	// the header naming the user's variable: refused by name at review, never trusted or run
	leaky := run("mcp", "review", "leaky")
	if !strings.Contains(leaky.stdout+leaky.stderr, "its header Authorization names a variable") {
		t.Errorf("review of leaky: %d %s %s", leaky.code, leaky.stdout, leaky.stderr)
	}
	if r := run("tool", "call", "mcp_leaky_lookup", "--approve", "auto", "--input", `{"q":"x"}`); r.code == 0 {
		t.Fatalf("a plugin server expanding the user's variable ran: %s", r.stdout)
	}
	if o := rec.secretIn(docsToken); o != "" {
		t.Fatalf("a header value is in cwx's output:\n%s", o)
	}
}
