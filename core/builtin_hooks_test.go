package core

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cwx-dev/cwx/core/gate"
	"github.com/cwx-dev/cwx/shared/testenv"
)

// claudeSettings is a Claude Code settings file of the real world's shape: other keys beside
// hooks, and the guard script in the project's .claude/hooks, found through
// $CLAUDE_PROJECT_DIR.
const claudeSettings = `{
  "permissions": {"allow": ["Bash(npm test:*)"]},
  "hooks": {
    "PreToolUse": [
      {"matcher": "Bash", "hooks": [{"type": "command", "command": "\"$CLAUDE_PROJECT_DIR\"/.claude/hooks/block-rm-rf.sh", "timeout": 10}]}
    ],
    "Stop": [{"hooks": [{"type": "command", "command": "true"}]}]
  }
}`

// hooksConfig adds hooks of config.toml to the Claude Code file: an allow for every Bash call
// (which must not approve it), an ask for Grep, a PostToolUse context for Read and a
// UserPromptSubmit guard.
const hooksConfig = `
[[hooks.PreToolUse]]
matcher = "Bash"
command = "printf '{\"hookSpecificOutput\":{\"permissionDecision\":\"allow\",\"permissionDecisionReason\":\"looks fine\"}}'"

[[hooks.PreToolUse]]
matcher = "Grep|Glob"
command = "printf '{\"hookSpecificOutput\":{\"permissionDecision\":\"ask\",\"permissionDecisionReason\":\"searching the tree\"}}'"
timeout_s = 30

[[hooks.PostToolUse]]
matcher = "Read"
command = "input=$(cat); case \"$input\" in *alpha*) printf '{\"hookSpecificOutput\":{\"hookEventName\":\"PostToolUse\",\"additionalContext\":\"the read hook saw alpha\"}}';; esac"

[[hooks.PostToolUse]]
matcher = "echo_text"
command = "input=$(cat); case \"$input\" in *'\"tool_name\":\"echo_text\"'*) printf 'the echo hook ran';; esac; printf ' %s' \"$(printf '%s' \"$input\" | grep -c '\"tool_input\":{\"text\":\"hello\"},\"tool_use_id\":\"toolu_01[A-Za-z0-9]*\",\"tool_response\":{\"content\":')\" >&2; exit 2"

[[hooks.PreToolUse]]
matcher = "Glob"
command = "input=$(cat); case \"$input\" in *'\"session_id\":\"sess-7\"'*) echo 'saw the session' >&2; exit 2;; esac"

[[hooks.UserPromptSubmit]]
command = "input=$(cat); case \"$input\" in *secret*) echo 'no secrets in prompts' >&2; exit 2;; esac; echo \"project: $CWX_PROJECT_DIR\""
`

// writeHooksConfig writes config.toml with hooks_file (a top-level key, so before the tables)
// and extra after the env's [extension_host] table.
func writeHooksConfig(t *testing.T, e *env, file, extra string) {
	t.Helper()
	text := fmt.Sprintf("hooks_file = %q\n\n[extension_host]\nruntime = %q\n%s = %q\n\n%s", file, e.rt.Name, e.rt.Name, e.rt.Path, extra)
	if err := os.WriteFile(filepath.Join(e.home, "config.toml"), []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
}

type cmdHooksEnv struct {
	m  *Manager
	a  *cardApprover
	ws string
}

func newCmdHooksEnv(t *testing.T, rt testenv.Runtime, deny *bool) cmdHooksEnv {
	t.Helper()
	e := newEnv(t, rt)
	settings := filepath.Join(e.home, "claude-settings.json")
	if err := os.WriteFile(settings, []byte(claudeSettings), 0o600); err != nil {
		t.Fatal(err)
	}
	writeHooksConfig(t, e, "claude-settings.json", hooksConfig)
	ws := t.TempDir()
	script, err := os.ReadFile(filepath.Join("cmdhooks", "testdata", "block-rm-rf.sh"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(ws, ".claude", "hooks"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, ".claude", "hooks", "block-rm-rf.sh"), script, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, "a.txt"), []byte("alpha\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	a := &cardApprover{answer: func(context.Context, gate.Card) (gate.Decision, error) {
		if *deny {
			return gate.DenyDecision, nil
		}
		return gate.AllowOnce, nil
	}}
	e.install("tool") // echo_text
	m := e.open(func(o *Options) { o.Approval = "ask"; o.Approver = a })
	reconcile(t, m)
	return cmdHooksEnv{m: m, a: a, ws: ws}
}

func (c cmdHooksEnv) cards() []gate.Card {
	c.a.mu.Lock()
	defer c.a.mu.Unlock()
	return append([]gate.Card(nil), c.a.cards...)
}

// TestCommandHooks runs a Claude Code hooks file unmodified against the native shell tool
// through the builtin hooks module: exit 2 denies before any card, the module's "allow"
// leaves the card to the person, an ask forces a card on an auto-eligible native,
// PostToolUse context reaches the caller and UserPromptSubmit blocks or adds context.
func TestCommandHooks(t *testing.T) {
	eachRuntime(t, func(t *testing.T, rt testenv.Runtime) {
		deny := false
		c := newCmdHooksEnv(t, rt, &deny)
		ctx := callCtx(t)
		var live bool
		for _, b := range c.m.BuiltinModules() {
			if b.ID == HooksModule {
				live = b.Needed && b.State == "active"
				if n := strings.Join(b.Notes, "\n"); !strings.Contains(n, "Stop hooks are not run by cwx") {
					t.Errorf("notes %q", n)
				}
			}
		}
		if !live {
			t.Fatalf("the hooks module is not active: %+v", c.m.BuiltinModules())
		}
		victim := filepath.Join(c.ws, "victim")
		if err := os.Mkdir(victim, 0o700); err != nil {
			t.Fatal(err)
		}

		_, err := c.m.CallTool(ctx, "shell", input(`{"command":"rm -rf victim"}`), CallOptions{Workspace: c.ws})
		if !errors.Is(err, ErrDenied) || !strings.Contains(err.Error(), "pre-execute hook of plugin `host:hooks` denied the call: Blocked by block-rm-rf.sh: recursive forced removal is not allowed (rm -rf victim) (command hook PreToolUse[3]") {
			t.Fatalf("rm -rf: %v", err)
		}
		if len(c.cards()) != 0 {
			t.Fatalf("a card was shown for a denied call: %+v", c.cards())
		}
		if _, err := os.Stat(victim); err != nil {
			t.Fatalf("the denied command ran: %v", err)
		}

		// allow does not approve: the forced card is still shown, and the person's no stands
		deny = true
		_, err = c.m.CallTool(ctx, "shell", input(`{"command":"echo hi"}`), CallOptions{Workspace: c.ws})
		if !errors.Is(err, ErrDenied) || len(c.cards()) != 1 {
			t.Fatalf("allow + the person's no: %v, %d cards", err, len(c.cards()))
		}
		deny = false
		res, err := c.m.CallTool(ctx, "shell", input(`{"command":"echo hi"}`), CallOptions{Workspace: c.ws})
		if err != nil || !strings.Contains(res.Text(), "hi") || len(c.cards()) != 2 {
			t.Fatalf("allowed shell: %q %v, %d cards", res.Text(), err, len(c.cards()))
		}

		// an ask forces a card on grep_files, which otherwise runs without one
		res, err = c.m.CallTool(ctx, "grep_files", input(`{"pattern":"alpha"}`), CallOptions{Workspace: c.ws})
		cards := c.cards()
		if err != nil || len(cards) != 3 || !cards[2].Forced || !strings.Contains(strings.Join(cards[2].Notes, "|"), "searching the tree (command hook PreToolUse[1]") {
			t.Fatalf("grep ask: %q %v, cards %d %+v", res.Text(), err, len(cards), cards[len(cards)-1].Notes)
		}
		// the session label reaches the hook's stdin
		_, err = c.m.CallTool(ctx, "file_search", input(`{"pattern":"*.txt"}`), CallOptions{Workspace: c.ws, SessionID: "sess-7"})
		if !errors.Is(err, ErrDenied) || !strings.Contains(err.Error(), "saw the session (command hook PreToolUse[2]") {
			t.Fatalf("session: %v", err)
		}
		// read_file matches no PreToolUse hook: no card
		res, err = c.m.CallTool(ctx, "read_file", input(`{"file_path":"a.txt"}`), CallOptions{Workspace: c.ws})
		if err != nil || len(c.cards()) != 3 {
			t.Fatalf("read_file: %v, %d cards", err, len(c.cards()))
		}
		if len(res.HookContext) != 1 || res.HookContext[0] != "the read hook saw alpha" {
			t.Fatalf("PostToolUse context of the call %q", res.HookContext)
		}
		post := c.m.PostToolUse(ctx, "read_file", "c1", input(`{"file_path":"a.txt"}`), res, CallOptions{Workspace: c.ws})
		if len(post) != 1 || post[0] != "the read hook saw alpha" {
			t.Fatalf("PostToolUse context %q", post)
		}

		// an extension tool: PostToolUse sees its result; exit 2 after the call is feedback, its
		// stderr kept as written (the hook prints " 1")
		res, err = c.m.CallTool(ctx, "echo_text", input(`{"text":"hello"}`), CallOptions{Workspace: c.ws})
		if err != nil || len(res.HookContext) != 1 || res.HookContext[0] != "PostToolUse hook PostToolUse[1] blocked:  1" {
			t.Fatalf("echo_text: %v, context %q", err, res.HookContext)
		}

		p, err := c.m.SubmitPrompt(ctx, "fix the build", CallOptions{Workspace: c.ws})
		if err != nil || p.Blocked || p.Prompt != "fix the build" || len(p.Context) != 1 || p.Context[0] != "project: "+c.ws {
			t.Fatalf("prompt: %+v %v", p, err)
		}
		p, err = c.m.SubmitPrompt(ctx, "here is my secret", CallOptions{Workspace: c.ws})
		if err != nil || !p.Blocked || p.Prompt != "" || !strings.HasPrefix(p.Reason, "no secrets in prompts (command hook UserPromptSubmit[0], exit 2)") {
			t.Fatalf("blocked prompt: %+v %v", p, err)
		}

		ds, err := c.m.TestHooks(ctx, "PreToolUse", json.RawMessage(`{"tool_name":"Bash","tool_input":{"command":"rm -fr /"}}`), CallOptions{Workspace: c.ws})
		if err != nil || len(ds) != 2 || ds[1].Kind.String() != "block" || ds[0].Said != "exit 0, permissionDecision allow (does not approve: the gate decides)" {
			t.Fatalf("test hooks: %+v %v", ds, err)
		}
	})
}

// TestCommandHooksFailClosed: hooks that do not load, or a module that is not running, deny
// the calls they would have judged, with the reason.
func TestCommandHooksFailClosed(t *testing.T) {
	eachRuntime(t, func(t *testing.T, rt testenv.Runtime) {
		e := newEnv(t, rt)
		writeHooksConfig(t, e, "missing.json", "")
		m := e.open(nil)
		reconcile(t, m)
		ws := t.TempDir()
		_, err := m.CallTool(callCtx(t), "read_file", input(`{"file_path":"x"}`), CallOptions{Workspace: ws})
		if !errors.Is(err, ErrDenied) || !strings.Contains(err.Error(), "the command hooks do not load: hooks file:") {
			t.Fatalf("missing hooks file: %v", err)
		}
		p, err := m.SubmitPrompt(callCtx(t), "hi", CallOptions{})
		if err != nil || !p.Blocked {
			t.Fatalf("prompt: %+v %v", p, err)
		}

		// configured, but the module never ran (no Reconcile): the hook cannot run, the call is denied
		e2 := newEnv(t, rt)
		e2.writeConfig("[[hooks.PreToolUse]]\ncommand = \"true\"\n")
		m2 := e2.open(nil)
		_, err = m2.CallTool(callCtx(t), "list_dir", input(`{"path":"."}`), CallOptions{Workspace: ws})
		if !errors.Is(err, ErrDenied) || !strings.Contains(err.Error(), "the hook could not run") || !strings.Contains(err.Error(), "host:hooks") {
			t.Fatalf("module not running: %v", err)
		}
	})
}

// TestCommandHookTimeoutAndCancel: through the core, a hook past its timeout has its whole
// process tree killed and counts as a non-blocking error (the call goes on, as in Claude Code);
// a caller that gives up cancels the run, which kills the tree too.
func TestCommandHookTimeoutAndCancel(t *testing.T) {
	eachRuntime(t, func(t *testing.T, rt testenv.Runtime) {
		e := newEnv(t, rt)
		pids := t.TempDir()
		e.writeConfig(fmt.Sprintf(`
[[hooks.PreToolUse]]
matcher = "LS"
command = "sleep 300 & echo $! > %[1]s/slow; sleep 300"
timeout_s = 1

[[hooks.PreToolUse]]
matcher = "Read"
command = "sleep 300 & echo $! > %[1]s/cancel; sleep 300"
`, pids))
		m := e.open(nil)
		reconcile(t, m)
		ws := t.TempDir()
		pidOf := func(name string) int {
			var pid int
			eventually(t, 10*time.Second, "the hook wrote its pid", func() bool {
				b, err := os.ReadFile(filepath.Join(pids, name))
				if err != nil || !strings.HasSuffix(string(b), "\n") {
					return false
				}
				pid, err = strconv.Atoi(strings.TrimSpace(string(b)))
				return err == nil
			})
			return pid
		}
		gone := func(pid int) bool {
			b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
			if err != nil {
				return true
			}
			s := string(b)
			return strings.HasPrefix(s[strings.LastIndexByte(s, ')')+2:], "Z")
		}

		res, err := m.CallTool(callCtx(t), "list_dir", input(`{"path":"."}`), CallOptions{Workspace: ws})
		if err != nil || res.IsError {
			t.Fatalf("a timed-out hook blocked the call: %v %q", err, res.Text())
		}
		slow := pidOf("slow")
		eventually(t, 10*time.Second, "the timed-out hook's tree is gone", func() bool { return gone(slow) })

		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() {
			_, err := m.CallTool(ctx, "read_file", input(`{"file_path":"x"}`), CallOptions{Workspace: ws})
			done <- err
		}()
		victim := pidOf("cancel")
		cancel()
		if err := <-done; !errors.Is(err, ErrCancelled) {
			t.Fatalf("cancelled during a hook: %v", err)
		}
		eventually(t, 10*time.Second, "the cancelled hook's tree is gone", func() bool { return gone(victim) })
	})
}

// TestPostToolUseShellStreams: a PostToolUse hook on Bash reads shell's stdout and stderr
// apart in tool_response, while the caller's text holds both; a hook that answers
// suppressOutput keeps its context from the person (HookContextShown), not from the model
// (HookContext), and its systemMessage is still shown.
func TestPostToolUseShellStreams(t *testing.T) {
	eachRuntime(t, func(t *testing.T, rt testenv.Runtime) {
		e := newEnv(t, rt)
		e.writeConfig(`
[[hooks.PostToolUse]]
matcher = "Bash"
command = "cat > \"$CLAUDE_PROJECT_DIR/post.json\"; printf '{\"hookSpecificOutput\":{\"additionalContext\":\"lint: clean\"}}'"

[[hooks.PostToolUse]]
matcher = "Bash"
command = "printf '{\"suppressOutput\":true,\"systemMessage\":\"formatted\",\"hookSpecificOutput\":{\"additionalContext\":\"formatted 2 files\"}}'"
`)
		m := e.open(func(o *Options) { o.Approval = "auto" })
		reconcile(t, m)
		ws := t.TempDir()
		opts := CallOptions{Workspace: ws, Approver: &cardApprover{answer: func(context.Context, gate.Card) (gate.Decision, error) { return gate.AllowOnce, nil }}}
		res, err := m.CallTool(callCtx(t), "shell", input(`{"command":"echo err >&2; echo out"}`), opts)
		if err != nil || res.IsError || res.Text() != "out\nerr\n" {
			t.Fatalf("shell: %v %q", err, res.Text())
		}
		raw, err := os.ReadFile(filepath.Join(ws, "post.json"))
		if err != nil {
			t.Fatal(err)
		}
		var ev struct {
			ToolResponse json.RawMessage `json:"tool_response"`
		}
		if err := json.Unmarshal(raw, &ev); err != nil || string(ev.ToolResponse) != `{"stdout":"out\n","stderr":"err\n","interrupted":false,"isImage":false}` {
			t.Fatalf("tool_response %s %v", ev.ToolResponse, err)
		}
		if !slices.Equal(res.HookContext, []string{"lint: clean", "formatted 2 files"}) || !slices.Equal(res.HookContextShown, []string{"lint: clean"}) ||
			!slices.Equal(res.HookMessages, []string{"PostToolUse hook PostToolUse[1]: formatted"}) {
			t.Fatalf("context %q, shown %q, messages %q", res.HookContext, res.HookContextShown, res.HookMessages)
		}
	})
}
