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

	"github.com/cwx-dev/cwx/shared/testenv"
)

// hookEvent is what the test plugin's record.sh kept of one event.
type hookEvent struct {
	SessionID      string          `json:"session_id"`
	TranscriptPath string          `json:"transcript_path"`
	Cwd            string          `json:"cwd"`
	PermissionMode string          `json:"permission_mode"`
	HookEventName  string          `json:"hook_event_name"`
	ToolName       string          `json:"tool_name"`
	ToolInput      map[string]any  `json:"tool_input"`
	ToolUseID      string          `json:"tool_use_id"`
	ToolResponse   json.RawMessage `json:"tool_response"`
	Error          *string         `json:"error"`
}

func readHookLog(t *testing.T, ws, name string) (hookEvent, string) {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(ws, ".hooklog", name+".json"))
	if err != nil {
		t.Fatalf("the %s hook did not run: %v", name, err)
	}
	var ev hookEvent
	if err := json.Unmarshal(raw, &ev); err != nil {
		t.Fatalf("%s event: %v\n%s", name, err, raw)
	}
	env, err := os.ReadFile(filepath.Join(ws, ".hooklog", name+".env"))
	if err != nil {
		t.Fatal(err)
	}
	return ev, string(env)
}

// claudePluginHome is a CWX_HOME whose hooks_file is the test plugin's hooks/hooks.json
// (testdata/claude-plugin, in the shape of a Claude Code plugin's), and the plugin folder.
func claudePluginHome(t *testing.T, rt testenv.Runtime) (home, root string) {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", "cmdhooks", "testdata", "claude-plugin"))
	if err != nil {
		t.Fatal(err)
	}
	home = t.TempDir()
	conf := fmt.Sprintf("hooks_file = %q\n\n[extension_host]\nruntime = %q\n%s = %q\n", filepath.Join(root, "hooks", "hooks.json"), rt.Name, rt.Name, rt.Path)
	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	return home, root
}

// TestHooksFileListE2E: hooks_file as a list is merged in Claude Code's precedence order
// (project settings before local project settings before a plugin's hooks file, whatever the
// order written), hook ids counted over them in that order, each source listed.
func TestHooksFileListE2E(t *testing.T) {
	bin := testenv.BuildCWX(t, "")
	rt := testenv.Runtimes()[0].Get(t)
	home, root := claudePluginHome(t, rt)
	proj := filepath.Join(t.TempDir(), ".claude")
	if err := os.MkdirAll(proj, 0o700); err != nil {
		t.Fatal(err)
	}
	for name, cmd := range map[string]string{"settings.json": "echo project", "settings.local.json": "echo local"} {
		if err := os.WriteFile(filepath.Join(proj, name), []byte(fmt.Sprintf(`{"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":%q}]}]}}`, cmd)), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	conf := fmt.Sprintf("hooks_file = [%q, %q, %q]\n\n[extension_host]\nruntime = %q\n%s = %q\n", filepath.Join(root, "hooks", "hooks.json"),
		filepath.Join(proj, "settings.local.json"), filepath.Join(proj, "settings.json"), rt.Name, rt.Name, rt.Path)
	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	var l HooksListJSON
	raw := e2eMust(t, bin, home, "hooks", "list", "--json").stdout
	if err := json.Unmarshal([]byte(raw), &l); err != nil || len(l.Sources) != 3 || l.Sources[0].Kind != "project settings" || l.Sources[1].Kind != "local project settings" ||
		l.Sources[2].PluginRoot != root || len(l.Hooks) != 5 || l.Hooks[0].Command != "echo project" || l.Hooks[1].Command != "echo local" || l.Hooks[1].ID != "PreToolUse[1]" {
		t.Fatalf("hooks list --json: %s %v", raw, err)
	}
	text := e2eMust(t, bin, home, "hooks", "list").stdout
	for _, s := range []string{"source: " + filepath.Join(proj, "settings.json") + " (project settings, 1 hooks)", "source: " + filepath.Join(proj, "settings.local.json") + " (local project settings, 1 hooks)"} {
		if !strings.Contains(text, s) {
			t.Errorf("hooks list lacks %q:\n%s", s, text)
		}
	}
}

// TestClaudePluginHooksE2E: a Claude Code plugin's hooks/hooks.json named by hooks_file
// runs unmodified on a plain `cwx tool call`: its commands find their scripts through
// CLAUDE_PLUGIN_ROOT (unset, `sh /hooks/pretooluse.sh` fails and the old cwx blocked every
// call), CLAUDE_PROJECT_DIR is the workspace, and the events carry Claude Code's fields: a
// session id, permission_mode, a toolu_ id shared by PreToolUse and PostToolUse, Read's
// absolute file_path and Read's tool_response shape; a failed call runs PostToolUseFailure,
// not PostToolUse; the Stop hook is listed as not run.
func TestClaudePluginHooksE2E(t *testing.T) {
	bin := testenv.BuildCWX(t, "")
	for _, want := range testenv.Runtimes() {
		t.Run(want.Name, func(t *testing.T) {
			rt := want.Get(t)
			home, root := claudePluginHome(t, rt)
			list := e2eMust(t, bin, home, "hooks", "list")
			for _, s := range []string{"PreToolUse[0]", "PostToolUseFailure[0]", "note: Stop hooks are not run by cwx: the event comes from an agent loop, which cwx is not",
				`note: hooks.PreToolUse[0].hooks[1]: hooks of type "prompt" are not run by cwx (only command)`,
				"source: " + filepath.Join(root, "hooks", "hooks.json") + " (hooks file, 3 hooks, CLAUDE_PLUGIN_ROOT " + root + ")"} {
				if !strings.Contains(list.stdout, s) {
					t.Errorf("hooks list lacks %q:\n%s", s, list.stdout)
				}
			}

			ws := t.TempDir()
			if err := os.WriteFile(filepath.Join(ws, "secret.txt"), []byte("API_KEY=abc\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			read := e2eMust(t, bin, home, "tool", "call", "read_file", "--workspace", ws, "--input", `{"file_path":"secret.txt"}`)
			if !strings.Contains(read.stdout, "API_KEY=abc") || !strings.Contains(read.stderr, "The file holds an API key; do not repeat it.") ||
				!strings.Contains(read.stderr, "hook message: PostToolUse hook PostToolUse[0]: hookify: a secret was read\n") {
				t.Fatalf("read_file:\n%s%s", read.stdout, read.stderr)
			}
			pre, env := readHookLog(t, ws, "pre")
			for _, s := range []string{"CLAUDE_PLUGIN_ROOT=" + root + "\n", "CLAUDE_PROJECT_DIR=" + ws + "\n", "CLAUDE_ENV_FILE=unset\n", "PWD=" + ws + "\n"} {
				if !strings.Contains(env, s) {
					t.Errorf("PreToolUse environment lacks %q:\n%s", s, env)
				}
			}
			if pre.SessionID == "" || pre.Cwd != ws || pre.PermissionMode != "default" || pre.HookEventName != "PreToolUse" || pre.ToolName != "Read" ||
				pre.ToolInput["file_path"] != filepath.Join(ws, "secret.txt") || !strings.HasPrefix(pre.ToolUseID, "toolu_01") || len(pre.ToolUseID) != 30 {
				t.Errorf("PreToolUse event: %+v", pre)
			}
			if pre.TranscriptPath != filepath.Join(home, "transcripts", pre.SessionID+".jsonl") {
				t.Errorf("transcript_path %q", pre.TranscriptPath)
			}
			if st, err := os.Stat(pre.TranscriptPath); err != nil || st.Mode().Perm() != 0o600 {
				t.Errorf("transcript: %v %v", st, err)
			} else if tr, _ := os.ReadFile(pre.TranscriptPath); !strings.Contains(string(tr), `"type":"tool_use","id":"`+pre.ToolUseID+`","name":"Read"`) ||
				!strings.Contains(string(tr), `"type":"tool_result","tool_use_id":"`+pre.ToolUseID+`"`) {
				t.Errorf("transcript:\n%s", tr)
			}
			post, _ := readHookLog(t, ws, "post")
			var resp struct {
				Type string `json:"type"`
				File struct {
					FilePath   string `json:"filePath"`
					Content    string `json:"content"`
					NumLines   int    `json:"numLines"`
					StartLine  int    `json:"startLine"`
					TotalLines int    `json:"totalLines"`
				} `json:"file"`
			}
			if err := json.Unmarshal(post.ToolResponse, &resp); err != nil || resp.Type != "text" || resp.File.Content != "API_KEY=abc" || resp.File.NumLines != 1 || resp.File.StartLine != 1 {
				t.Errorf("PostToolUse tool_response: %s %v", post.ToolResponse, err)
			}
			if post.HookEventName != "PostToolUse" || post.ToolUseID != pre.ToolUseID || post.SessionID != pre.SessionID {
				t.Errorf("PostToolUse event: %+v (PreToolUse %+v)", post, pre)
			}

			// another process is another session, and another call another tool_use_id
			if err := os.RemoveAll(filepath.Join(ws, ".hooklog")); err != nil {
				t.Fatal(err)
			}
			miss := e2eCWX(t, bin, home, "", "tool", "call", "read_file", "--workspace", ws, "--input", `{"file_path":"missing.txt"}`)
			fail, _ := readHookLog(t, ws, "failure")
			if fail.HookEventName != "PostToolUseFailure" || fail.Error == nil || !strings.Contains(*fail.Error, "missing.txt") || fail.SessionID == pre.SessionID || fail.ToolUseID == pre.ToolUseID {
				t.Errorf("PostToolUseFailure event: %+v\n%s", fail, miss.stderr)
			}
			if _, err := os.Stat(filepath.Join(ws, ".hooklog", "post.json")); err == nil {
				t.Error("PostToolUse ran for a failed call")
			}

			push := e2eCWX(t, bin, home, "", "tool", "call", "shell", "--workspace", ws, "--input", `{"command":"git push --force"}`)
			if push.code != ExitDenied || !strings.Contains(push.stderr, "Force push rewrites shared history.") ||
				!strings.Contains(push.stderr, "the hook says: hookify: force pushes are blocked in this project") {
				t.Fatalf("shell git push --force: exit %d\n%s%s", push.code, push.stdout, push.stderr)
			}
			var o ToolCallOutput
			raw := e2eMust(t, bin, home, "tool", "call", "read_file", "--json", "--workspace", ws, "--input", `{"file_path":"secret.txt"}`).stdout
			if err := json.Unmarshal([]byte(raw), &o); err != nil || len(o.HookMessages) != 1 || o.HookMessages[0] != "PostToolUse hook PostToolUse[0]: hookify: a secret was read" {
				t.Fatalf("tool call --json: %s %v", raw, err)
			}

			// the same in a REPL: one session for its calls, the message beside the result
			if err := os.RemoveAll(filepath.Join(ws, ".hooklog")); err != nil {
				t.Fatal(err)
			}
			repl := e2eCWX(t, bin, home, "/call read_file {\"file_path\":\"secret.txt\"}\n/call shell {\"command\":\"git push --force\"}\n", "repl", "--workspace", ws)
			if !strings.Contains(repl.stdout, "hook message: PostToolUse hook PostToolUse[0]: hookify: a secret was read") ||
				!strings.Contains(repl.stdout+repl.stderr, "the hook says: hookify: force pushes are blocked in this project") {
				t.Fatalf("repl:\n%s%s", repl.stdout, repl.stderr)
			}
			rpre, _ := readHookLog(t, ws, "pre")
			rpost, _ := readHookLog(t, ws, "post")
			if rpre.SessionID == "" || rpre.SessionID == pre.SessionID || rpre.ToolInput["command"] != "git push --force" || rpost.SessionID != rpre.SessionID {
				t.Errorf("repl events: %+v %+v", rpre, rpost)
			}

			// and through serve --mcp: the message is a text block of the result
			srv := startServe(t, bin, home, false, "--workspace", ws)
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			res, err := srv.call(t, ctx, "read_file", map[string]any{"file_path": "secret.txt"})
			if err != nil || !strings.Contains(mcpText(res), "hook message: PostToolUse hook PostToolUse[0]: hookify: a secret was read") ||
				!strings.Contains(mcpText(res), "PostToolUse hook context: PostToolUse hook PostToolUse[0] blocked: The file holds an API key") {
				t.Fatalf("serve --mcp read_file: %v %+v\n%s", err, orEmpty(res), srv.stderr)
			}
			spost, _ := readHookLog(t, ws, "post")
			if spost.SessionID == "" || spost.SessionID == rpre.SessionID || spost.ToolInput["file_path"] != filepath.Join(ws, "secret.txt") {
				t.Errorf("serve events: %+v", spost)
			}
			res, err = srv.call(t, ctx, "shell", map[string]any{"command": "git push --force"})
			if err != nil || !res.IsError || !strings.Contains(mcpText(res), "the hook says: hookify: force pushes are blocked in this project") {
				t.Fatalf("serve --mcp shell: %v %+v", err, orEmpty(res))
			}
			srv.stop(t)
		})
	}
}
