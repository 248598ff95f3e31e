package cmdhooks

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cwx-dev/cwx/core/protocol"
)

// TestResponseShapes: tool_response is in Claude Code's shape for each native and MCP's
// CallToolResult for an extension tool.
func TestResponseShapes(t *testing.T) {
	text := func(s string) []protocol.ContentBlock {
		return []protocol.ContentBlock{{Type: protocol.ContentText, Text: s}}
	}
	for _, c := range []struct {
		tool string
		o    Outcome
		want string
	}{
		{"shell", Outcome{Content: text("hi\n"), Structured: json.RawMessage(`{"exit_code":0,"timed_out":false}`)}, `{"stdout":"hi\n","stderr":"","interrupted":false,"isImage":false}`},
		{"shell", Outcome{Content: text("x"), Structured: json.RawMessage(`{"exit_code":-1,"timed_out":true}`)}, `{"stdout":"x","stderr":"","interrupted":true,"isImage":false}`},
		{"shell", Outcome{Content: text("out\nerr\n"), Structured: json.RawMessage(`{"exit_code":0,"timed_out":false}`), Streams: &Streams{Stdout: "out\n", Stderr: "err\n"}}, `{"stdout":"out\n","stderr":"err\n","interrupted":false,"isImage":false}`},
		{"shell", Outcome{Content: text("o"), Streams: &Streams{Stdout: "o", Truncated: true}}, `{"stdout":"o","stderr":"","interrupted":false,"isImage":false,"truncated":true}`},
		{"read_file", Outcome{Content: text("     3\tgamma\n     4\tdelta\n")}, `{"type":"text","file":{"filePath":"","content":"gamma\ndelta","numLines":2,"startLine":3,"totalLines":4}}`},
		{"grep_files", Outcome{Content: text("a.go:1:x\na.go:4:y\nb/c.go:2:z\n")}, `{"mode":"content","numFiles":2,"filenames":["/w/a.go","/w/b/c.go"],"content":"a.go:1:x\na.go:4:y\nb/c.go:2:z","numLines":3}`},
		{"file_search", Outcome{Content: text("a.go\nb/c.go\n[more files match: narrow the pattern or the path]\n")}, `{"filenames":["/w/a.go","/w/b/c.go"],"durationMs":0,"numFiles":2,"truncated":true}`},
		{"file_search", Outcome{Content: text("")}, `{"filenames":[],"durationMs":0,"numFiles":0,"truncated":false}`},
		{"list_dir", Outcome{Content: text("a.go\nb/\n")}, `"a.go\nb/\n"`},
		{"my_tool", Outcome{Content: text("ok"), Structured: json.RawMessage(`{"n":1}`)}, `{"content":[{"type":"text","text":"ok"}],"structuredContent":{"n":1}}`},
		{"my_tool", Outcome{}, `{"content":[]}`},
	} {
		if got := string(Response(c.tool, "/w", c.o)); got != c.want {
			t.Errorf("%s: %s\nwant %s", c.tool, got, c.want)
		}
	}
	if got := string(Response("read_file", "/w", Outcome{Content: text("     1\ta\n[more lines after line 1: read on with offset 2]\n")})); !strings.Contains(got, `"truncated":true`) {
		t.Errorf("read cut: %s", got)
	}
}

func TestToolUseIDAndModes(t *testing.T) {
	a, b := ToolUseID("tool-1"), ToolUseID("tool-2")
	if a != ToolUseID("tool-1") || a == b || !strings.HasPrefix(a, "toolu_01") || len(a) != 30 {
		t.Fatalf("ids %q %q", a, b)
	}
	if id := ProcessSessionID(); len(id) != 36 || id[14] != '4' || id != ProcessSessionID() {
		t.Fatalf("session id %q", id)
	}
	for posture, want := range map[string]string{"ask": "default", "auto": "bypassPermissions", "deny": "dontAsk", "": "default"} {
		if got := PermissionMode(posture); got != want {
			t.Errorf("%q: %q, want %q", posture, got, want)
		}
	}
	ev, err := PreToolUseEvent(Session{ID: "s", Cwd: "/w", PermissionMode: PermissionDontAsk, TranscriptPath: "/t.jsonl"}, "shell", a, json.RawMessage(`{"command":"ls"}`))
	if err != nil || !strings.Contains(string(ev), `"transcript_path":"/t.jsonl","cwd":"/w","permission_mode":"dontAsk"`) {
		t.Fatalf("%s %v", ev, err)
	}
}

// TestPluginRoot: a hooks file at <plugin>/hooks/hooks.json runs with CLAUDE_PLUGIN_ROOT set
// to <plugin>, quoted for the shell (a quote in the folder's name does not break out).
func TestPluginRoot(t *testing.T) {
	for file, want := range map[string]string{
		"/p/my plugin/hooks/hooks.json": "/p/my plugin",
		"/p/hooks.json":                 "",
		"/p/.claude/settings.json":      "",
		"/p/x/hook/hooks.json":          "",
	} {
		if got := PluginRoot(file); got != want {
			t.Errorf("%s: %q, want %q", file, got, want)
		}
	}
	root := filepath.Join(t.TempDir(), "it's $(plugin)")
	if err := os.MkdirAll(filepath.Join(root, "hooks"), 0o700); err != nil {
		t.Fatal(err)
	}
	h := Hook{Command: `printf '%s' "${CLAUDE_PLUGIN_ROOT}"; sh -c 'printf " %s" "$CLAUDE_PLUGIN_ROOT"'`, PluginRoot: root}
	out, err := exec.Command("/bin/sh", "-c", h.ShellCommand()).Output()
	if err != nil || string(out) != root+" "+root {
		t.Fatalf("%q %v", out, err)
	}
	if h.PluginRoot = ""; h.ShellCommand() != h.Command {
		t.Fatal("a hook outside a plugin changed")
	}
}

// TestSystemMessage: a hook's systemMessage is kept, lines and all, for the person; a
// block's reason names it; a pass with one is an annotation of the card.
func TestSystemMessage(t *testing.T) {
	pre := Hook{ID: "PreToolUse[0]", Event: "PreToolUse", Command: "x"}
	d := Decide(pre, Result{Stdout: `{"systemMessage":"line one\nline two","hookSpecificOutput":{"permissionDecision":"deny"}}`})
	if d.Kind != Block || d.Message != "line one\nline two" || !strings.Contains(d.Said, "systemMessage") {
		t.Fatalf("%+v", d)
	}
	if a := d.Answers(); len(a) != 1 || !strings.Contains(a[0].Verdict.Reason, "the hook denied the call (command hook PreToolUse[0] `x`, exit 0, systemMessage, permissionDecision deny); the hook says: line one\nline two") {
		t.Fatalf("%+v", a)
	}
	d = Decide(pre, Result{Stdout: `{"systemMessage":"fyi"}`})
	if a := d.Answers(); d.Kind != Pass || len(a) != 1 || a[0].Verdict.Kind != protocol.HookAnnotate || a[0].Verdict.Text != "command hook PreToolUse[0] says: fyi" {
		t.Fatalf("%+v %+v", d, a)
	}
	post := Hook{ID: "PostToolUse[0]", Event: "PostToolUse"}
	ds := []Decision{Decide(post, Result{Stdout: `{"systemMessage":"a\nb"}`}), Decide(post, Result{Stdout: `{}`})}
	if m := Messages(ds); len(m) != 1 || m[0] != "PostToolUse hook PostToolUse[0]: a\nb" {
		t.Fatalf("%q", m)
	}
}
