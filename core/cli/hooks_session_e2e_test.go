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

// sessionEvent is what testdata/claude-session's record.sh kept of one session event.
type sessionEvent struct {
	SessionID        string `json:"session_id"`
	TranscriptPath   string `json:"transcript_path"`
	Cwd              string `json:"cwd"`
	HookEventName    string `json:"hook_event_name"`
	Source           string `json:"source"`
	Reason           string `json:"reason"`
	Message          string `json:"message"`
	NotificationType string `json:"notification_type"`
}

func readSessionEvent(t *testing.T, ws, name string) sessionEvent {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(ws, ".hooklog", name+".json"))
	if err != nil {
		t.Fatalf("the %s hook did not run: %v", name, err)
	}
	var ev sessionEvent
	if err := json.Unmarshal(raw, &ev); err != nil {
		t.Fatalf("%s event: %v\n%s", name, err, raw)
	}
	return ev
}

// TestSessionHooksE2E: the session hooks of testdata/claude-session (Claude Code's shapes) on
// a plain `cwx tool call`, in a REPL and through `serve --mcp`: SessionStart before the
// session's first call (source startup) and SessionEnd after it (reason other, or
// prompt_input_exit when the REPL's input ends), in one session; SessionStart's plain stdout
// is the session's prompt section, shown to the person, and its suppressOutput hook's
// additionalContext reaches only the section; a PreToolUse reason keeps its lines in the
// error and in --json; a card raises Notification (permission_prompt); a SessionStart
// `continue: false` stops the session with its stopReason, the tool not run.
func TestSessionHooksE2E(t *testing.T) {
	bin := testenv.BuildCWX(t, "")
	root, err := filepath.Abs(filepath.Join("..", "cmdhooks", "testdata", "claude-session"))
	if err != nil {
		t.Fatal(err)
	}
	const shown = "Project rule: run make test before you commit.\n  Branch: main"
	const reason = "Blocked: rm -rf is not allowed here.\n  - use trash-put instead\n  - or ask a maintainer"
	for _, want := range testenv.Runtimes() {
		t.Run(want.Name, func(t *testing.T) {
			rt := want.Get(t)
			home := t.TempDir()
			conf := fmt.Sprintf("hooks_file = %q\n\n[extension_host]\nruntime = %q\n%s = %q\n", filepath.Join(root, "hooks", "hooks.json"), rt.Name, rt.Name, rt.Path)
			if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(conf), 0o600); err != nil {
				t.Fatal(err)
			}
			ws := t.TempDir()
			if err := os.WriteFile(filepath.Join(ws, "a.txt"), []byte("alpha\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			reset := func() {
				t.Helper()
				if err := os.RemoveAll(filepath.Join(ws, ".hooklog")); err != nil {
					t.Fatal(err)
				}
			}

			// a one-shot call is a session of its own
			read := e2eMust(t, bin, home, "tool", "call", "read_file", "--workspace", ws, "--input", `{"file_path":"a.txt"}`)
			if !strings.Contains(read.stderr, "session context (the session's prompt section, for the model):\n  "+shown+"\n") || strings.Contains(read.stderr, "Token budget") ||
				strings.Contains(read.stderr, "resumed-never-run") {
				t.Fatalf("tool call:\n%s%s", read.stdout, read.stderr)
			}
			start, end := readSessionEvent(t, ws, "start"), readSessionEvent(t, ws, "end")
			if start.HookEventName != "SessionStart" || start.Source != "startup" || start.SessionID == "" || start.Cwd != ws ||
				end.HookEventName != "SessionEnd" || end.Reason != "other" || end.SessionID != start.SessionID || end.TranscriptPath != start.TranscriptPath {
				t.Fatalf("session events: %+v %+v", start, end)
			}
			var o ToolCallOutput
			raw := e2eMust(t, bin, home, "tool", "call", "read_file", "--json", "--workspace", ws, "--input", `{"file_path":"a.txt"}`).stdout
			if err := json.Unmarshal([]byte(raw), &o); err != nil || o.SessionSection == nil || o.SessionSection.PluginID != "host:hooks" ||
				o.SessionSection.Text != "Project rule: run make test before you commit.\nBranch: main\n\nToken budget: 4 calls." ||
				!strings.Contains(o.SessionSection.Wrapped, "> Token budget: 4 calls.") {
				t.Fatalf("tool call --json: %s %v", raw, err)
			}

			// a reason of several lines is kept as written, in the error and in --json
			rm := e2eCWX(t, bin, home, "", "tool", "call", "shell", "--workspace", ws, "--input", `{"command":"rm -rf /tmp/none"}`)
			if rm.code != ExitDenied || !strings.Contains(rm.stderr, "denied the call: "+reason+" (command hook PreToolUse[0]") {
				t.Fatalf("shell rm -rf: exit %d\n%s", rm.code, rm.stderr)
			}
			rmj := e2eCWX(t, bin, home, "", "tool", "call", "shell", "--json", "--workspace", ws, "--input", `{"command":"rm -rf /tmp/none"}`)
			var failure struct {
				Error struct {
					Message string `json:"message"`
				} `json:"error"`
			}
			if err := json.Unmarshal([]byte(rmj.stdout), &failure); err != nil || !strings.Contains(failure.Error.Message, reason) {
				t.Fatalf("shell rm -rf --json: %v\n%s", err, rmj.stdout)
			}

			// a card raises Notification, and the card still answers (refused: no terminal)
			reset()
			echo := e2eCWX(t, bin, home, "", "tool", "call", "shell", "--workspace", ws, "--input", `{"command":"echo hi"}`)
			n := readSessionEvent(t, ws, "notification")
			if echo.code != ExitDenied || n.HookEventName != "Notification" || n.NotificationType != "permission_prompt" || n.Message != "cwx needs your permission to use shell" ||
				n.SessionID != readSessionEvent(t, ws, "start").SessionID {
				t.Fatalf("notification: exit %d %+v\n%s", echo.code, n, echo.stderr)
			}

			// a REPL is one session; its input ending is prompt_input_exit
			reset()
			repl := e2eCWX(t, bin, home, "/call read_file {\"file_path\":\"a.txt\"}\n", "repl", "--workspace", ws)
			rs, re := readSessionEvent(t, ws, "start"), readSessionEvent(t, ws, "end")
			if repl.code != 0 || !strings.Contains(repl.stdout, shown) || !strings.Contains(repl.stdout, "alpha") || re.Reason != "prompt_input_exit" || rs.SessionID != re.SessionID || rs.SessionID == start.SessionID {
				t.Fatalf("repl: exit %d %+v %+v\n%s%s", repl.code, rs, re, repl.stdout, repl.stderr)
			}

			// serve --mcp: the section is the initialize result's instructions
			reset()
			srv := startServe(t, bin, home, false, "--workspace", ws)
			if ins := srv.session.InitializeResult().Instructions; !strings.Contains(ins, "> Project rule: run make test before you commit.") || !strings.Contains(ins, "> Token budget: 4 calls.") {
				t.Fatalf("serve --mcp instructions %q\n%s", ins, srv.stderr)
			}
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			res, err := srv.call(t, ctx, "shell", map[string]any{"command": "rm -rf /tmp/none"})
			if err != nil || !res.IsError || !strings.Contains(mcpText(res), reason) {
				t.Fatalf("serve --mcp shell: %v %+v", err, orEmpty(res))
			}
			if code, _ := srv.stop(t); code != 0 {
				t.Fatalf("serve exit %d\n%s", code, srv.stderr)
			}
			if ss, se := readSessionEvent(t, ws, "start"), readSessionEvent(t, ws, "end"); se.Reason != "other" || ss.SessionID != se.SessionID {
				t.Fatalf("serve session events: %+v %+v", ss, se)
			}

			// continue false stops the session: the tool does not run, the stopReason is shown
			reset()
			if err := os.WriteFile(filepath.Join(ws, ".stop"), nil, 0o600); err != nil {
				t.Fatal(err)
			}
			defer os.Remove(filepath.Join(ws, ".stop"))
			stop := e2eCWX(t, bin, home, "", "tool", "call", "read_file", "--workspace", ws, "--input", `{"file_path":"a.txt"}`)
			if stop.code != ExitDenied || strings.Contains(stop.stdout, "alpha") || !strings.Contains(stop.stderr, "a SessionStart hook stopped the session: The project is frozen.\nAsk the release manager.") ||
				!strings.Contains(stop.stderr, "hook message: SessionStart hook SessionStart[0]: session refused") || readSessionEvent(t, ws, "end").Reason != "other" {
				t.Fatalf("stopped session: exit %d\n%s%s", stop.code, stop.stdout, stop.stderr)
			}
			rstop := e2eCWX(t, bin, home, "/call read_file {\"file_path\":\"a.txt\"}\n", "repl", "--workspace", ws)
			if rstop.code != ExitDenied || strings.Contains(rstop.stdout, "alpha") || !strings.Contains(rstop.stdout+rstop.stderr, "The project is frozen.") {
				t.Fatalf("stopped repl: exit %d\n%s%s", rstop.code, rstop.stdout, rstop.stderr)
			}
		})
	}
}
