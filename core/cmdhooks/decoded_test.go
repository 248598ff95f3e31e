package cmdhooks

import (
	"bytes"
	"encoding/json"
	"errors"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestEventsCarryTheDecodedInput: tool_input is the value the tool acts on, written as
// Claude Code's JSON.stringify(JSON.parse(x)) writes it, in PreToolUse and PostToolUse
// events alike; input that is not JSON is not given to a hook at all.
func TestEventsCarryTheDecodedInput(t *testing.T) {
	s := Session{ID: "s", Cwd: "/w"}
	for _, c := range []struct{ tool, in, want string }{
		{"read_file", `{"file_path":"\u002eenv"}`, `"tool_input":{"file_path":"/w/.env"}`},
		{"read_file", `{"limit":2,"file_path":"/w/a\u2028"}`, "\"tool_input\":{\"limit\":2,\"file_path\":\"/w/a\u2028\"}"},
		{"list_dir", `{"path":"sub/../x\u2028"}`, "\"tool_input\":{\"path\":\"/w/x\u2028\"}"},
		{"shell", `{"command":"rm -r\u0066 build"}`, `"tool_input":{"command":"rm -rf build"}`},
		{"shell", `{"command":"x","command":"rm -rf /"}`, `"tool_input":{"command":"rm -rf /"}`},
		{"my_tool", `{"b":1,"2":"two","a":[1e21,-0,1.50],"1":"one"}`, `"tool_input":{"1":"one","2":"two","b":1,"a":[1e+21,0,1.5]}`},
		{"my_tool", `{"s":"\u2028\u2029\ud83d\ude00\ud800"}`, "\"tool_input\":{\"s\":\"\u2028\u2029\U0001F600\\ud800\"}"},
	} {
		pre, err := PreToolUseEvent(s, c.tool, "c1", json.RawMessage(c.in))
		if err != nil || !bytes.Contains(pre, []byte(c.want)) {
			t.Errorf("PreToolUse %s: %s, %v; want %s", c.in, pre, err, c.want)
		}
		post, err := PostToolUseEvent(s, c.tool, "c1", json.RawMessage(c.in), json.RawMessage(`"ok"`))
		if err != nil || !bytes.Contains(post, []byte(c.want)) {
			t.Errorf("PostToolUse %s: %s, %v; want %s", c.in, post, err, c.want)
		}
	}
	if _, err := PreToolUseEvent(s, "shell", "c1", json.RawMessage(`{"command":`)); err == nil {
		t.Error("an input that is not JSON was given to the hooks")
	}
}

// TestReadmeGuardSeesTheDecodedCommand runs the README's block-rm-rf.sh on the events of
// commands that spell `rm -rf` with \u escapes: each is blocked (exit 2).
func TestReadmeGuardSeesTheDecodedCommand(t *testing.T) {
	script, err := filepath.Abs(filepath.Join("testdata", "block-rm-rf.sh"))
	if err != nil {
		t.Fatal(err)
	}
	for _, in := range []string{`{"command":"rm -r\u0066 build"}`, `{"command":"rm -\u0072f build"}`, `{"command":"\u0072\u006d -rf build"}`,
		`{"command":"rm -rf build"}`} {
		stdin, err := PreToolUseEvent(Session{Cwd: t.TempDir()}, "shell", "c1", json.RawMessage(in))
		if err != nil {
			t.Fatal(err)
		}
		cmd := exec.CommandContext(t.Context(), "/bin/sh", script)
		cmd.Stdin = bytes.NewReader(stdin)
		var stderr strings.Builder
		cmd.Stderr = &stderr
		err = cmd.Run()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 2 || !strings.Contains(stderr.String(), "rm -rf build") {
			t.Errorf("%s: %v, stderr %q; want exit 2 naming rm -rf build", in, err, stderr.String())
		}
	}
}
