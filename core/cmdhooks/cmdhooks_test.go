package cmdhooks

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"regexp/syntax"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/cwx-dev/cwx/core/config"
	"github.com/cwx-dev/cwx/core/errdefs"
	"github.com/cwx-dev/cwx/core/hooks"
	"github.com/cwx-dev/cwx/core/protocol"
)

func TestMatcher(t *testing.T) {
	for _, c := range []struct {
		matcher string
		yes, no []string
	}{
		{matcher: "", yes: []string{"shell", "read_file", "my_tool"}},
		{matcher: "*", yes: []string{"shell", "mcp__x__y"}},
		{matcher: "Bash", yes: []string{"shell"}, no: []string{"read_file", "Bash2", "bash"}},
		{matcher: "shell", yes: []string{"shell"}, no: []string{"read_file"}}, // the cwx name works for an exact matcher
		{matcher: "Read|Grep", yes: []string{"read_file", "grep_files"}, no: []string{"shell", "file_search"}},
		{matcher: "Glob|LS", yes: []string{"file_search", "list_dir"}, no: []string{"read_file"}},
		{matcher: "my_tool", yes: []string{"my_tool"}, no: []string{"my_tool2", "x_my_tool"}},
		{matcher: "Notebook.*", yes: []string{"NotebookEdit"}, no: []string{"shell"}},
		{matcher: "mcp__.*__write", yes: []string{"mcp__fs__write"}, no: []string{"mcp__fs__read"}},
		{matcher: "^(Bash|Read)$", yes: []string{"shell", "read_file"}, no: []string{"grep_files"}},
		{matcher: "sh", no: []string{"shell"}},    // literal, exact
		{matcher: "She.l", no: []string{"shell"}}, // a regex sees Claude Code's name for a native
	} {
		m, err := compile(c.matcher)
		if err != nil {
			t.Fatalf("%q: %v", c.matcher, err)
		}
		for _, tool := range c.yes {
			if !m.match(tool) {
				t.Errorf("matcher %q does not match %q", c.matcher, tool)
			}
		}
		for _, tool := range c.no {
			if m.match(tool) {
				t.Errorf("matcher %q matches %q", c.matcher, tool)
			}
		}
	}
	if _, err := compile("(?=Bash)"); err == nil || !strings.Contains(err.Error(), "RE2") {
		t.Fatalf("look-ahead compiled: %v", err)
	}
}

func TestParseSettings(t *testing.T) {
	data, err := os.ReadFile("testdata/claude-settings.json")
	if err != nil {
		t.Fatal(err)
	}
	entries, notes, err := ParseSettings(data)
	if err != nil {
		t.Fatal(err)
	}
	want := []config.HookEntry{
		{Event: "PreToolUse", Matcher: "Bash", Command: `"$CLAUDE_PROJECT_DIR"/.claude/hooks/block-rm-rf.sh`, TimeoutS: 10},
		{Event: "PreToolUse", Matcher: "Edit|Write", Command: "echo edit", TimeoutS: 60},
		{Event: "PostToolUse", Matcher: "mcp__.*", Command: "echo post", TimeoutS: 120},
	}
	if !reflect.DeepEqual(entries, want) {
		t.Fatalf("entries %+v\nwant %+v", entries, want)
	}
	wantNotes := []string{
		"Stop hooks are not run by cwx: the event comes from an agent loop, which cwx is not (it runs PreToolUse, PostToolUse, PostToolUseFailure, UserPromptSubmit, SessionStart, SessionEnd, Notification)",
		"hooks.PostToolUse[0].hooks[0]: timeout 600s lowered to 120s, the most cwx allows",
		`hooks.PostToolUse[0].hooks[1]: hooks of type "prompt" are not run by cwx (only command)`,
	}
	if !reflect.DeepEqual(notes, wantNotes) {
		t.Fatalf("notes %q", notes)
	}
	for _, c := range []struct{ data, err string }{
		{`[]`, "not a Claude Code settings file"},
		{`{"hooks": {"PreToolUse": {"matcher": "x"}}}`, "not a Claude Code settings file"},
		{`{} {}`, "more than one JSON value"},
		{`{"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": ""}]}]}}`, "hooks.PreToolUse[0].hooks[0]: the command is empty"},
	} {
		if _, _, err := ParseSettings([]byte(c.data)); err == nil || !strings.Contains(err.Error(), c.err) {
			t.Errorf("%s: err %v, want %q", c.data, err, c.err)
		}
	}
	for in, want := range map[string]int{"0.5": 1, "1.5": 2, "119.2": 120, "1e300": 120, "-1e300": 1, "0": 1} {
		e, _, err := ParseSettings([]byte(`{"hooks": {"UserPromptSubmit": [{"hooks": [{"type": "command", "command": "x", "timeout": ` + in + `}]}]}}`))
		if err != nil || len(e) != 1 || e[0].TimeoutS != want {
			t.Errorf("timeout %s: %+v %v, want %ds", in, e, err, want)
		}
	}
}

func TestLoad(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "settings.json")
	if err := os.WriteFile(file, []byte(`{"hooks": {"PreToolUse": [{"matcher": "Read", "hooks": [{"type": "command", "command": "from-file"}]}]}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	s, err := Load(config.Hooks{Files: []string{file}, Entries: []config.HookEntry{
		{Event: "PreToolUse", Matcher: "Bash", Command: "from-toml", TimeoutS: 5},
		{Event: "UserPromptSubmit", Command: "prompt", TimeoutS: 60},
	}})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, h := range s.Hooks {
		ids = append(ids, h.ID+"="+h.Command+"@"+filepath.Base(h.Source))
	}
	if got := strings.Join(ids, " "); got != "PreToolUse[0]=from-toml@config.toml UserPromptSubmit[0]=prompt@config.toml PreToolUse[1]=from-file@settings.json" {
		t.Fatalf("hooks %s", got)
	}
	if m := s.Matching("PreToolUse", "read_file"); len(m) != 1 || m[0].Command != "from-file" {
		t.Fatalf("matching read_file: %+v", m)
	}
	if m := s.Matching("UserPromptSubmit", ""); len(m) != 1 || m[0].Timeout != time.Minute {
		t.Fatalf("matching the prompt: %+v", m)
	}

	big := filepath.Join(dir, "big.json")
	if err := os.WriteFile(big, []byte(`{"x": "`+strings.Repeat("a", config.MaxHookConfigBytes)+`"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		h   config.Hooks
		err string
	}{
		{config.Hooks{Files: []string{filepath.Join(dir, "missing.json")}}, "no such file"},
		{config.Hooks{Files: []string{big}}, "is over 65536 bytes"},
		{config.Hooks{Entries: []config.HookEntry{{Event: "PreToolUse", Matcher: "(?!x)", Command: "c", TimeoutS: 1}}}, "PreToolUse hook PreToolUse[0] in config.toml: matcher"},
	} {
		if _, err := Load(c.h); err == nil || !strings.Contains(err.Error(), c.err) || !errors.Is(err, errdefs.ErrRefused) {
			t.Errorf("err %v, want %q", err, c.err)
		}
	}
}

// TestLoadKeepsCauses checks that a refused configuration still wraps what refused it (a
// missing file, a matcher's syntax error, the file's JSON error), not only its text.
func TestLoadKeepsCauses(t *testing.T) {
	dir := t.TempDir()
	notJSON := filepath.Join(dir, "settings.json")
	if err := os.WriteFile(notJSON, []byte(`{"hooks": `), 0o600); err != nil {
		t.Fatal(err)
	}
	var syn *syntax.Error
	var js *json.SyntaxError
	for _, c := range []struct {
		name  string
		h     config.Hooks
		cause func(error) bool
	}{
		{"missing file", config.Hooks{Files: []string{filepath.Join(dir, "missing.json")}}, func(err error) bool { return errors.Is(err, fs.ErrNotExist) }},
		{"bad matcher", config.Hooks{Entries: []config.HookEntry{{Event: "PreToolUse", Matcher: "(?!x)", Command: "c", TimeoutS: 1}}},
			func(err error) bool { return errors.As(err, &syn) }},
		{"not JSON", config.Hooks{Files: []string{notJSON}}, func(err error) bool { return errors.Is(err, io.ErrUnexpectedEOF) || errors.As(err, &js) }},
	} {
		_, err := Load(c.h)
		if err == nil || !errors.Is(err, errdefs.ErrRefused) || !c.cause(err) {
			t.Errorf("%s: err %v does not wrap its cause", c.name, err)
		}
	}
}

var (
	pre    = Hook{ID: "PreToolUse[0]", Event: "PreToolUse", Command: "./guard.sh", TimeoutS: 60, Timeout: time.Minute}
	post   = Hook{ID: "PostToolUse[0]", Event: "PostToolUse", Command: "./post.sh", TimeoutS: 60, Timeout: time.Minute}
	prompt = Hook{ID: "UserPromptSubmit[0]", Event: "UserPromptSubmit", Command: "./prompt.sh", TimeoutS: 60, Timeout: time.Minute}
)

func TestDecide(t *testing.T) {
	for _, c := range []struct {
		name    string
		hook    Hook
		res     Result
		kind    Kind
		reason  string
		context string
		input   string
		said    string
		failed  string // substring
	}{
		{name: "exit 0", hook: pre, res: Result{}, said: "exit 0"},
		{name: "exit 0 text ignored", hook: pre, res: Result{Stdout: "checked\n"}, said: "exit 0"},
		{name: "exit 2 stderr", hook: pre, res: Result{ExitCode: 2, Stderr: "Blocked: rm -rf\nuse trash\n", Stdout: `{"decision":"approve"}`},
			kind: Block, reason: "Blocked: rm -rf\nuse trash", said: "exit 2"},
		{name: "exit 2 lines kept as written", hook: pre, res: Result{ExitCode: 2, Stderr: "\n  Blocked:\r\n\t- rm -rf /\n\n  use trash \x1b[2J\n\n"},
			kind: Block, reason: "  Blocked:\n\t- rm -rf /\n\n  use trash", said: "exit 2"},
		{name: "exit 2 silent", hook: pre, res: Result{ExitCode: 2}, kind: Block, reason: "the hook exited with status 2", said: "exit 2"},
		{name: "exit 2 escapes stripped", hook: pre, res: Result{ExitCode: 2, Stderr: "\x1b[31mno\x1b[0m\u202e"}, kind: Block, reason: "no", said: "exit 2"},
		{name: "exit 1 non-blocking", hook: pre, res: Result{ExitCode: 1, Stderr: "jq: not found"}, said: "exit 1", failed: "exit 1 (non-blocking): jq: not found"},
		{name: "exit 127", hook: pre, res: Result{ExitCode: 127}, said: "exit 127", failed: "no stderr"},
		{name: "signal", hook: pre, res: Result{ExitCode: -1, Signal: "SIGKILL"}, said: "killed by SIGKILL", failed: "non-blocking"},
		{name: "timeout", hook: pre, res: Result{ExitCode: -1, Signal: "SIGKILL", TimedOut: true}, said: "timed out", failed: "timed out after 60s"},
		{name: "spawn failed blocks", hook: pre, res: Result{ExitCode: -1, Error: "spawn sh ENOENT"}, kind: Block, reason: "the hook could not run: spawn sh ENOENT", said: "not run"},
		{name: "spawn failed post", hook: post, res: Result{ExitCode: -1, Error: "spawn sh ENOENT"}, said: "not run", failed: "could not run"},
		{name: "deny", hook: pre, res: Result{Stdout: `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"not here"}}`},
			kind: Block, reason: "not here", said: "exit 0, permissionDecision deny"},
		{name: "deny no reason", hook: pre, res: Result{Stdout: `{"hookSpecificOutput":{"permissionDecision":"deny"}}`}, kind: Block, reason: "the hook denied the call", said: "exit 0, permissionDecision deny"},
		{name: "ask", hook: pre, res: Result{Stdout: `{"hookSpecificOutput":{"permissionDecision":"ask","permissionDecisionReason":"sure?"}}`},
			kind: Ask, reason: "sure?", said: "exit 0, permissionDecision ask"},
		{name: "allow does not approve", hook: pre, res: Result{Stdout: `{"hookSpecificOutput":{"permissionDecision":"allow","permissionDecisionReason":"fine"}}`},
			said: "exit 0, permissionDecision allow (does not approve: the gate decides)"},
		{name: "legacy approve", hook: pre, res: Result{Stdout: `{"decision":"approve","reason":"ok"}`}, said: "exit 0, decision approve (does not approve: the gate decides)"},
		{name: "legacy block", hook: pre, res: Result{Stdout: ` {"decision":"block","reason":"policy"}`}, kind: Block, reason: "policy", said: "exit 0, decision block"},
		{name: "permissionDecision wins over decision", hook: pre, res: Result{Stdout: `{"decision":"block","hookSpecificOutput":{"permissionDecision":"ask"}}`},
			kind: Ask, reason: "the hook asks for approval", said: "exit 0, permissionDecision ask"},
		{name: "continue false", hook: pre, res: Result{Stdout: `{"continue":false,"stopReason":"stop now","hookSpecificOutput":{"permissionDecision":"allow"}}`},
			kind: Block, reason: "stop now", said: "exit 0, continue false"},
		{name: "unknown decision", hook: pre, res: Result{Stdout: `{"decision":"maybe"}`}, said: "exit 0, decision maybe", failed: `unknown decision "maybe"`},
		{name: "unknown permission", hook: pre, res: Result{Stdout: `{"hookSpecificOutput":{"permissionDecision":"yes"}}`}, said: "exit 0, permissionDecision yes", failed: "unknown permissionDecision"},
		{name: "bad JSON", hook: pre, res: Result{Stdout: `{"decision":`}, said: "exit 0", failed: "not JSON"},
		{name: "truncated JSON", hook: pre, res: Result{Stdout: `{"decision":"block"`, StdoutTruncated: true}, said: "exit 0", failed: "over 16384 bytes"},
		{name: "updatedInput", hook: pre, res: Result{Stdout: `{"hookSpecificOutput":{"permissionDecision":"allow","updatedInput":{"command":"ls"}}}`},
			input: `{"command":"ls"}`, said: "exit 0, updatedInput, permissionDecision allow (does not approve: the gate decides)"},
		{name: "updatedInput not object", hook: pre, res: Result{Stdout: `{"hookSpecificOutput":{"updatedInput":[1]}}`}, said: "exit 0", failed: "not a JSON object"},
		{name: "pre context", hook: pre, res: Result{Stdout: `{"hookSpecificOutput":{"additionalContext":"tests run in CI"}}`},
			context: "tests run in CI", said: "exit 0, additionalContext"},
		{name: "post exit 2", hook: post, res: Result{ExitCode: 2, Stderr: "lint failed"}, kind: Block, reason: "lint failed", said: "exit 2"},
		{name: "post context", hook: post, res: Result{Stdout: `{"decision":"block","reason":"fix it","hookSpecificOutput":{"hookEventName":"PostToolUse","additionalContext":"line 3"}}`},
			kind: Block, reason: "fix it", context: "line 3", said: "exit 0, decision block, additionalContext"},
		{name: "post updatedInput ignored", hook: post, res: Result{Stdout: `{"hookSpecificOutput":{"updatedInput":{"a":1}}}`}, said: "exit 0"},
		{name: "post permission ignored", hook: post, res: Result{Stdout: `{"hookSpecificOutput":{"permissionDecision":"deny"}}`}, said: "exit 0"},
		{name: "prompt text is context", hook: prompt, res: Result{Stdout: "today is Tuesday\n"}, context: "today is Tuesday", said: "exit 0"},
		{name: "prompt text cut", hook: prompt, res: Result{Stdout: "abc", StdoutTruncated: true}, context: "abc …[cut]", said: "exit 0"},
		{name: "prompt block", hook: prompt, res: Result{Stdout: `{"decision":"block","reason":"no secrets"}`}, kind: Block, reason: "no secrets", said: "exit 0, decision block"},
		{name: "prompt exit 2", hook: prompt, res: Result{ExitCode: 2, Stderr: "refused"}, kind: Block, reason: "refused", said: "exit 2"},
	} {
		t.Run(c.name, func(t *testing.T) {
			d := Decide(c.hook, c.res)
			if d.Kind != c.kind || d.Reason != c.reason || d.Context != c.context || string(d.Input) != c.input || d.Said != c.said {
				t.Fatalf("got kind %s reason %q context %q input %s said %q\nwant kind %s reason %q context %q input %s said %q",
					d.Kind, d.Reason, d.Context, d.Input, d.Said, c.kind, c.reason, c.context, c.input, c.said)
			}
			if (c.failed == "") != (d.Failed == "") || !strings.Contains(d.Failed, c.failed) {
				t.Fatalf("failed %q, want %q", d.Failed, c.failed)
			}
		})
	}
}

func TestDecideBounds(t *testing.T) {
	long := strings.Repeat("é", 4*1024) // 8 KiB of two-byte runes
	d := Decide(pre, Result{ExitCode: 2, Stderr: long})
	if len(d.Reason) > hooks.MaxText-256 || !strings.HasSuffix(d.Reason, "…") {
		t.Fatalf("reason of %d bytes", len(d.Reason))
	}
	d = Decide(prompt, Result{Stdout: long + long})
	if len(d.Context) > MaxContext || !strings.HasSuffix(d.Context, "…[cut]") {
		t.Fatalf("context of %d bytes", len(d.Context))
	}
	// the fold accepts what Answers makes of the longest reason
	out := hooks.Fold(Decide(pre, Result{ExitCode: 2, Stderr: long}).Answers(), nil)
	if out.Decision != hooks.Deny {
		t.Fatalf("%+v", out)
	}
	for _, r := range []json.RawMessage{
		json.RawMessage(`{"exit_code":0,"timed_out":false,"stdout":"` + strings.Repeat("a", MaxOutput+1) + `","stderr":"","stdout_truncated":true,"stderr_truncated":false}`),
		json.RawMessage(`{"exit_code":0,"timed_out":false,"stdout":"","stderr":"` + strings.Repeat("a", MaxOutput+1) + `","stdout_truncated":false,"stderr_truncated":true}`),
		json.RawMessage(`{"exit_code":0,"approved":true}`),
		json.RawMessage(`[]`),
	} {
		if _, err := DecodeResult(r); !errors.Is(err, errdefs.ErrViolation) {
			t.Errorf("%.60s: %v", r, err)
		}
	}
	if r, err := DecodeResult(json.RawMessage(`{"exit_code":2,"timed_out":false,"stdout":"","stderr":"x","stdout_truncated":false,"stderr_truncated":false}`)); err != nil || r.ExitCode != 2 {
		t.Fatalf("%+v %v", r, err)
	}
	var typ *json.UnmarshalTypeError // the decoder's error stays reachable
	if _, err := DecodeResult(json.RawMessage(`{"exit_code":"2"}`)); !errors.Is(err, errdefs.ErrViolation) || !errors.As(err, &typ) {
		t.Errorf("a mistyped field: %v", err)
	}
}

// TestAnswers holds the fold of command hooks: a block denies naming the hook, an allow
// abstains (the gate still decides), an ask forces a card, updatedInput revises.
func TestAnswers(t *testing.T) {
	fold := func(r Result) hooks.Outcome { return hooks.Fold(Decide(pre, r).Answers(), nil) }
	out := fold(Result{ExitCode: 2, Stderr: "no rm -rf"})
	if out.Decision != hooks.Deny || out.Reason != "pre-execute hook of plugin `host:hooks` denied the call: no rm -rf (command hook PreToolUse[0] `./guard.sh`, exit 2)" {
		t.Fatalf("%+v", out)
	}
	out = fold(Result{Stdout: `{"hookSpecificOutput":{"permissionDecision":"allow"}}`})
	if out.Decision != hooks.Proceed || out.Input != nil || len(out.Notes) != 0 {
		t.Fatalf("allow: %+v", out)
	}
	out = fold(Result{Stdout: `{"hookSpecificOutput":{"permissionDecision":"ask","permissionDecisionReason":"prod db"}}`})
	if out.Decision != hooks.Ask || len(out.Notes) != 1 || !strings.Contains(out.Notes[0].String(), "prod db (command hook PreToolUse[0]") {
		t.Fatalf("ask: %+v", out)
	}
	out = fold(Result{Stdout: `{"hookSpecificOutput":{"updatedInput":{"command":"ls"},"additionalContext":"rewrote it"}}`})
	if out.Decision != hooks.Proceed || string(out.Input) != `{"command":"ls"}` || out.RevisedBy != Owner ||
		len(out.Notes) != 1 || out.Notes[0].Kind != protocol.HookAnnotate || !strings.Contains(out.Notes[0].Text, "rewrote it") {
		t.Fatalf("revise: %+v", out)
	}
	// command hooks fold first: their deny is named even when a plugin denies too
	plugin := []hooks.Answer{{Hook: hooks.Hook{PluginID: "p"}, Verdict: protocol.HookVerdict{Kind: protocol.HookDeny, Reason: "mine"}}}
	if out := hooks.Fold(Decide(pre, Result{ExitCode: 2, Stderr: "first"}).Answers(), plugin); !strings.Contains(out.Reason, "`host:hooks` denied the call: first") {
		t.Fatalf("order: %+v", out)
	}
}

func TestEvents(t *testing.T) {
	s := Session{ID: "s1", Cwd: "/work/p"}
	b, err := PreToolUseEvent(s, "shell", "c7", json.RawMessage(`{"command": "rm -rf /tmp/x"}`))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"session_id":"s1","transcript_path":"","cwd":"/work/p","permission_mode":"default","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"rm -rf /tmp/x"},"tool_use_id":"c7"}` + "\n"
	if string(b) != want {
		t.Fatalf("pre\n%s\nwant\n%s", b, want)
	}
	b, err = UserPromptSubmitEvent(s, "fix <b> & go")
	if err != nil || string(b) != `{"session_id":"s1","transcript_path":"","cwd":"/work/p","permission_mode":"default","hook_event_name":"UserPromptSubmit","prompt":"fix <b> & go"}`+"\n" {
		t.Fatalf("prompt %s %v", b, err)
	}
	b, err = OutcomeEvent(s, "my_tool", "c8", json.RawMessage(`{}`), Outcome{Content: []protocol.ContentBlock{{Type: protocol.ContentText, Text: "ok"}}, Structured: json.RawMessage(`{"n":1}`)})
	if err != nil || !strings.Contains(string(b), `"hook_event_name":"PostToolUse","tool_name":"my_tool","tool_input":{},"tool_use_id":"c8","tool_response":{"content":[{"type":"text","text":"ok"}],"structuredContent":{"n":1}}`) {
		t.Fatalf("post %s %v", b, err)
	}
	b, err = OutcomeEvent(s, "my_tool", "c8", json.RawMessage(`{}`), Outcome{Content: []protocol.ContentBlock{{Type: protocol.ContentText, Text: "no\nway"}}, IsError: true})
	if err != nil || !strings.Contains(string(b), `"hook_event_name":"PostToolUseFailure","tool_name":"my_tool","tool_input":{},"tool_use_id":"c8","error":"no\nway","is_interrupt":false}`) {
		t.Fatalf("failure %s %v", b, err)
	}

	big := json.RawMessage(`{"command":"` + strings.Repeat("x", MaxStdin) + `"}`)
	if _, err := PreToolUseEvent(s, "shell", "c9", big); !errors.Is(err, ErrStdinTooLarge) || !errors.Is(err, errdefs.ErrTooLarge) {
		t.Fatalf("big pre: %v", err)
	}
	if _, err := UserPromptSubmitEvent(s, strings.Repeat("p", MaxStdin)); !errors.Is(err, ErrStdinTooLarge) {
		t.Fatalf("big prompt: %v", err)
	}
	for _, tool := range []string{"shell", "grep_files", "my_tool"} {
		text := strings.Repeat("a.go:1:\x01\n", MaxStdin/4)
		b, err = OutcomeEvent(s, tool, "c9", json.RawMessage(`{"command":"cat big"}`), Outcome{Content: []protocol.ContentBlock{{Type: protocol.ContentText, Text: text}}, Structured: json.RawMessage(`{"exit_code":0}`)})
		if err != nil || len(b) > MaxStdin {
			t.Fatalf("big post %s: %d bytes, %v", tool, len(b), err)
		}
		var ev struct {
			ToolResponse struct {
				Truncated  bool            `json:"truncated"`
				Structured json.RawMessage `json:"structuredContent"`
			} `json:"tool_response"`
		}
		if err := json.Unmarshal(b, &ev); err != nil || !ev.ToolResponse.Truncated || ev.ToolResponse.Structured != nil {
			t.Fatalf("big post response %s: %+v %v", tool, ev.ToolResponse, err)
		}
	}
	// shell's two streams apart are cut too, until the event fits
	half := strings.Repeat("\x01", MaxStdin/2)
	b, err = OutcomeEvent(s, "shell", "c10", json.RawMessage(`{"command":"cat big"}`), Outcome{Content: []protocol.ContentBlock{{Type: protocol.ContentText, Text: half + half}},
		Streams: &Streams{Stdout: half, Stderr: half}})
	var bash struct {
		ToolResponse struct {
			Stdout, Stderr string
			Truncated      bool
		} `json:"tool_response"`
	}
	if err != nil || len(b) > MaxStdin || json.Unmarshal(b, &bash) != nil || !bash.ToolResponse.Truncated || bash.ToolResponse.Stdout == "" {
		t.Fatalf("big shell post: %d bytes, %v, %+v", len(b), err, bash.ToolResponse)
	}
}

// fakeRunner answers by command: "hang" waits for its context, "fail" cannot run.
type fakeRunner map[string]Result

func (f fakeRunner) Run(ctx context.Context, h Hook, stdin []byte, s Session) (Result, error) {
	switch h.Command {
	case "hang":
		<-ctx.Done()
		return Result{}, ctx.Err()
	case "fail":
		return Result{}, errdefs.New(errdefs.ErrNotAvailable, "the builtin tier is down")
	case "echo-stdin":
		return Result{ExitCode: 2, Stderr: string(stdin)}, nil
	}
	return f[h.Command], nil
}

func TestRun(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		set, err := Load(config.Hooks{Entries: []config.HookEntry{
			{Event: "PreToolUse", Matcher: "Bash", Command: "hang", TimeoutS: 3},
			{Event: "PreToolUse", Matcher: "*", Command: "ok", TimeoutS: 60},
			{Event: "PreToolUse", Matcher: "Read", Command: "fail", TimeoutS: 60},
			{Event: "PreToolUse", Matcher: "Grep", Command: "echo-stdin", TimeoutS: 60},
			{Event: "UserPromptSubmit", Command: "ctx", TimeoutS: 60},
			{Event: "UserPromptSubmit", Command: "ctx", TimeoutS: 60},
		}})
		if err != nil {
			t.Fatal(err)
		}
		r := fakeRunner{"ok": {Stdout: `{"hookSpecificOutput":{"permissionDecision":"allow"}}`}, "ctx": {Stdout: "branch main"}}
		start := time.Now()
		ds := set.PreToolUse(context.Background(), r, Session{}, "shell", "c1", json.RawMessage(`{"command":"ls"}`))
		if len(ds) != 2 || ds[0].Kind != Block || !strings.Contains(ds[0].Reason, "did not report within 5s of the hook's 3s timeout") || ds[1].Kind != Pass {
			t.Fatalf("%+v", ds)
		}
		if d := time.Since(start); d != 3*time.Second+RunGrace {
			t.Fatalf("returned after %s", d)
		}
		ds = set.PreToolUse(context.Background(), r, Session{}, "read_file", "c2", json.RawMessage(`{"file_path":"a"}`))
		if len(ds) != 2 || ds[1].Kind != Block || !strings.Contains(ds[1].Reason, "could not run: the builtin tier is down") {
			t.Fatalf("%+v", ds)
		}
		ds = set.PreToolUse(context.Background(), r, Session{ID: "s"}, "grep_files", "c3", json.RawMessage(`{"pattern":"x"}`))
		if !strings.Contains(ds[1].Reason, `"tool_name":"Grep","tool_input":{"pattern":"x"}`) {
			t.Fatalf("stdin: %+v", ds[1])
		}
		if ds := set.PreToolUse(context.Background(), r, Session{}, "list_dir", "c4", json.RawMessage(`{"path":"."}`)); len(ds) != 1 {
			t.Fatalf("list_dir matched %d", len(ds))
		}
		ds = set.PreToolUse(context.Background(), r, Session{}, "shell", "c5", json.RawMessage(`{"command":"`+strings.Repeat("x", MaxStdin)+`"}`))
		if len(ds) != 2 || ds[0].Kind != Block || ds[1].Kind != Block || !strings.Contains(ds[1].Reason, "too large for command hooks") {
			t.Fatalf("big: %+v", ds)
		}
		p := FoldPrompt(set.UserPromptSubmit(context.Background(), r, Session{}, "hi"))
		if p.Blocked || !reflect.DeepEqual(p.Context, []string{"branch main", "branch main"}) {
			t.Fatalf("prompt %+v", p)
		}
	})
}

func TestContextsBounded(t *testing.T) {
	var ds []Decision
	for i := 0; i < 4; i++ {
		ds = append(ds, Decide(post, Result{Stdout: `{"hookSpecificOutput":{"additionalContext":"` + strings.Repeat("c", MaxContext) + `"}}`}))
	}
	out := Contexts(ds)
	total := 0
	for _, l := range out {
		total += len(l)
	}
	if len(out) != 3 || total > MaxContextTotal+100 || !strings.Contains(out[2], "left out") {
		t.Fatalf("%d lines, %d bytes", len(out), total)
	}
	p := FoldPrompt([]Decision{Decide(prompt, Result{Stdout: "a"}), Decide(prompt, Result{ExitCode: 2, Stderr: "no"})})
	if !p.Blocked || p.Reason != "no (command hook UserPromptSubmit[0], exit 2)" || p.Context != nil {
		t.Fatalf("%+v", p)
	}
}
