package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cwx-dev/cwx/shared/testenv"
)

// TestHooksE2E: a Claude Code hooks file with the jq-free rm -rf guard, named by hooks_file,
// is listed by `cwx hooks list`, judged by `cwx hooks test`, and blocks `cwx tool call shell`
// through the builtin hooks module, on every one-shot run (the catalog never leaves the
// hooks module inactive), before any approval is asked.
func TestHooksE2E(t *testing.T) {
	bin := testenv.BuildCWX(t, "")
	for _, want := range testenv.Runtimes() {
		t.Run(want.Name, func(t *testing.T) {
			rt := want.Get(t)
			home := t.TempDir()
			guard, err := filepath.Abs(filepath.Join("..", "cmdhooks", "testdata", "block-rm-rf.sh"))
			if err != nil {
				t.Fatal(err)
			}
			settings := fmt.Sprintf(`{"permissions": {}, "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": %q, "timeout": 10}]}], "PermissionRequest": []}}`, guard)
			if err := os.WriteFile(filepath.Join(home, "settings.json"), []byte(settings), 0o600); err != nil {
				t.Fatal(err)
			}
			conf := fmt.Sprintf("hooks_file = \"settings.json\"\n\n[extension_host]\nruntime = %q\n%s = %q\n\n[[hooks.UserPromptSubmit]]\ncommand = \"echo ok\"\ntimeout_s = 5\n\n[[hooks.PostToolUse]]\nmatcher = \"Read\"\ncommand = \"echo '{\\\"hookSpecificOutput\\\":{\\\"additionalContext\\\":\\\"read seen\\\"}}'\"\n\n[[hooks.PostToolUse]]\nmatcher = \"Read\"\ncommand = \"echo '{\\\"suppressOutput\\\":true,\\\"hookSpecificOutput\\\":{\\\"additionalContext\\\":\\\"quietly seen\\\"}}'\"\n", rt.Name, rt.Name, rt.Path)
			if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(conf), 0o600); err != nil {
				t.Fatal(err)
			}

			list := e2eMust(t, bin, home, "hooks", "list")
			for _, s := range []string{"PreToolUse[0]", "Bash", "10s", "block-rm-rf.sh", "UserPromptSubmit[0]", "note: PermissionRequest hooks are not run by cwx"} {
				if !strings.Contains(list.stdout, s) {
					t.Errorf("hooks list lacks %q:\n%s", s, list.stdout)
				}
			}
			var l HooksListJSON
			if err := json.Unmarshal([]byte(e2eMust(t, bin, home, "hooks", "list", "--json").stdout), &l); err != nil || len(l.Hooks) != 4 || l.Hooks[3].ID != "PreToolUse[0]" {
				t.Fatalf("hooks list --json: %+v %v", l, err)
			}

			test := e2eMust(t, bin, home, "hooks", "test", "PreToolUse", "--input", `{"tool_name":"Bash","tool_input":{"command":"rm -rf build"}}`)
			if !strings.Contains(test.stdout, "exit 2 -> block: Blocked by block-rm-rf.sh") || !strings.Contains(test.stdout, "PreToolUse: the call is denied before approval is asked") {
				t.Fatalf("hooks test:\n%s%s", test.stdout, test.stderr)
			}
			var r HooksTestJSON
			raw := e2eMust(t, bin, home, "hooks", "test", "PreToolUse", "--json", "--input", `{"tool_name":"shell","tool_input":{"command":"ls"}}`).stdout
			if err := json.Unmarshal([]byte(raw), &r); err != nil || len(r.Decisions) != 1 || r.Decisions[0].Decision != "pass" || !strings.Contains(r.Outcome, "never approves") {
				t.Fatalf("hooks test --json: %s %v", raw, err)
			}
			if bad := e2eCWX(t, bin, home, "", "hooks", "test", "Stop"); bad.code != ExitUsage {
				t.Fatalf("unknown event: exit %d %s", bad.code, bad.stderr)
			}

			// PostToolUse context: on stderr beside the result, and in --json; a hook that
			// answered suppressOutput only in --json (for the model)
			ws := t.TempDir()
			if err := os.WriteFile(filepath.Join(ws, "a.txt"), []byte("alpha\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			read := e2eMust(t, bin, home, "tool", "call", "read_file", "--workspace", ws, "--input", `{"file_path":"a.txt"}`)
			if !strings.Contains(read.stdout, "alpha") || !strings.Contains(read.stderr, "hook context: read seen\n") || strings.Contains(read.stderr, "quietly seen") {
				t.Fatalf("read_file with a PostToolUse hook:\n%s%s", read.stdout, read.stderr)
			}
			var o ToolCallOutput
			raw = e2eMust(t, bin, home, "tool", "call", "read_file", "--json", "--workspace", ws, "--input", `{"file_path":"a.txt"}`).stdout
			if err := json.Unmarshal([]byte(raw), &o); err != nil || len(o.HookContext) != 2 || o.HookContext[0] != "read seen" || o.HookContext[1] != "quietly seen" {
				t.Fatalf("tool call --json: %s %v", raw, err)
			}

			// twice: the second run finds the hooks module in the catalog and must start it anyway
			for i := range 2 {
				ws := t.TempDir()
				if err := os.Mkdir(filepath.Join(ws, "build"), 0o700); err != nil {
					t.Fatal(err)
				}
				call := e2eCWX(t, bin, home, "", "tool", "call", "shell", "--workspace", ws, "--input", `{"command":"rm -rf build"}`)
				if call.code != ExitDenied || !strings.Contains(call.stderr, "pre-execute hook of plugin `host:hooks` denied the call: Blocked by block-rm-rf.sh: recursive forced removal is not allowed (rm -rf build)") {
					t.Fatalf("run %d: tool call shell: exit %d\n%s%s", i, call.code, call.stdout, call.stderr)
				}
				if strings.Contains(call.stderr, "Allow") {
					t.Fatalf("run %d: a card was shown for a denied call:\n%s", i, call.stderr)
				}
				if _, err := os.Stat(filepath.Join(ws, "build")); err != nil {
					t.Fatalf("run %d: the denied command ran: %v", i, err)
				}
			}
		})
	}
}
