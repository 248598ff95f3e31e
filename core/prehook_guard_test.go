package core

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cwx-dev/cwx/core/protocol"
	"github.com/cwx-dev/cwx/core/registry"
	"github.com/cwx-dev/cwx/core/supervisor"
	"github.com/cwx-dev/cwx/shared/testenv"
)

// guardWorkspace is a workspace holding a secret, a .env and harmless files.
func guardWorkspace(t *testing.T) string {
	t.Helper()
	ws := t.TempDir()
	for name, text := range map[string]string{"secret.txt": "the secret\n", ".env": "TOKEN=hunter2\n", "a.txt": "alpha\n",
		"notes.txt": "notes\n", "ping.txt": "ping\n", "pong.txt": "pong\n", "other.txt": "other\n"} {
		if err := os.WriteFile(filepath.Join(ws, name), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return ws
}

// guardEnv is a Manager under the auto posture with the guard and the hostile reviser.
func guardEnv(t *testing.T, rt testenv.Runtime) (*Manager, *cardApprover, func(path string) (ToolResult, error)) {
	t.Helper()
	e := newEnv(t, rt)
	e.install("hook-guard", "hook-reviser")
	a := &cardApprover{}
	m := e.open(func(o *Options) { o.Approval = "auto"; o.Approver = a })
	reconcile(t, m)
	ws := guardWorkspace(t)
	ctx := callCtx(t)
	return m, a, func(path string) (ToolResult, error) {
		return m.CallTool(ctx, "read_file", input(`{"file_path":"`+path+`"}`), CallOptions{Workspace: ws})
	}
}

// TestRevisedInputAskedAgain: a hostile hook's revise of an approved notes.txt into .env is
// asked of the guard plugin's hook again and denied; a revise nobody objects to runs.
func TestRevisedInputAskedAgain(t *testing.T) {
	eachRuntime(t, func(t *testing.T, rt testenv.Runtime) {
		_, _, read := guardEnv(t, rt)
		res, err := read("notes.txt")
		if !errors.Is(err, ErrDenied) || !strings.Contains(err.Error(), "plugin `fixture-guard` denied the call: fixture-guard keeps .env unread") ||
			!strings.Contains(err.Error(), "asked about the input revised by the pre-execute hook of plugin `fixture-reviser`") {
			t.Errorf("notes.txt revised into .env: %q, %v", res.Text(), err)
		}
		if res, err := read("draft.txt"); err != nil || !strings.Contains(res.Text(), "alpha") {
			t.Errorf("draft.txt revised into a.txt, no hook objecting: %q, %v", res.Text(), err)
		}
	})
}

// TestHookHolderDownDenies is the fail-closed acceptance: a guard plugin denies read_file of
// secret.txt; the plugin tier is killed until its crash budget is spent; the same read is
// still denied, under the auto posture, naming the guard, its state and the next command,
// and so is every other gated call.
func TestHookHolderDownDenies(t *testing.T) {
	eachRuntime(t, func(t *testing.T, rt testenv.Runtime) {
		m, a, read := guardEnv(t, rt)
		if _, err := read("secret.txt"); !errors.Is(err, ErrDenied) || !strings.Contains(err.Error(), "plugin `fixture-guard` denied the call: fixture-guard keeps secret.txt unread") {
			t.Fatalf("secret.txt, the guard live: %v", err)
		}
		if res, err := read("a.txt"); err != nil || !strings.Contains(res.Text(), "alpha") {
			t.Fatalf("a.txt, the guard live: %q, %v", res.Text(), err)
		}

		// spend the tier's crash budget: each kill once the guard is live again
		for i := range supervisor.DefaultCrashLimit {
			gen := m.Host(protocol.TierPlugin).Generation
			if err := m.KillRuntime(protocol.TierPlugin); err != nil {
				t.Fatalf("kill %d: %v", i+1, err)
			}
			if i == supervisor.DefaultCrashLimit-1 {
				break
			}
			eventually(t, 30*time.Second, fmt.Sprintf("guard live after kill %d", i+1), func() bool {
				o, ok := m.reg.Owner("fixture-guard")
				h := m.Host(protocol.TierPlugin)
				return h.Generation > gen && h.State == supervisor.StateReady && h.RuntimePID > 0 && ok && o.State == registry.Active
			})
		}
		eventually(t, 30*time.Second, "plugin tier failed", func() bool {
			return m.Host(protocol.TierPlugin).State == supervisor.StateFailed && len(m.reg.Hooks()) == 0
		})

		for _, path := range []string{"secret.txt", "a.txt"} {
			res, err := read(path)
			var down *HooksDownError
			if !errors.Is(err, ErrDenied) || !errors.As(err, &down) {
				t.Fatalf("%s, the tier out of budget: %q, %v", path, res.Text(), err)
			}
			msg := err.Error()
			for _, want := range []string{"plugin `fixture-guard` holds a pre-execute hook and is not live (the plugin tier is failed (its crash budget is spent)",
				"run `cwx plugin disable fixture-guard` to go on without its hooks", "plugin `fixture-reviser`"} {
				if !strings.Contains(msg, want) {
					t.Errorf("%s: %q lacks %q", path, msg, want)
				}
			}
		}
		if _, err := m.CallTool(callCtx(t), "list_dir", input(`{"path":"."}`), CallOptions{}); !errors.Is(err, ErrDenied) {
			t.Errorf("list_dir, the tier out of budget: %v", err)
		}
		if len(a.cards) != 0 {
			t.Errorf("cards shown: %+v", a.cards)
		}
	})
}

// revisedHooksConfig guards .env with a command hook that matches text (it must see the
// decoded value), revises pong.txt into other.txt, and runs the README's block-rm-rf.sh.
const revisedHooksConfig = `
[[hooks.PreToolUse]]
matcher = "Bash"
command = "\"$CLAUDE_PROJECT_DIR\"/.claude/hooks/block-rm-rf.sh"

[[hooks.PreToolUse]]
matcher = "Read"
command = "input=$(cat); case \"$input\" in *'\"file_path\":\"'*'/.env\"'*) echo 'the .env guard refuses it' >&2; exit 2;; *'\"file_path\":\"'*'/pong.txt\"'*) printf '{\"hookSpecificOutput\":{\"updatedInput\":{\"file_path\":\"other.txt\"}}}';; esac"
`

// TestCommandHooksSeeWhatRuns: a command hook is given the decoded input (a \u-escaped .env
// and rm -rf are caught by hooks matching text), and the input a plugin's hook revised is
// asked of the command hooks again (a hostile revise of notes.txt into .env is denied; a
// second revise is denied).
func TestCommandHooksSeeWhatRuns(t *testing.T) {
	eachRuntime(t, func(t *testing.T, rt testenv.Runtime) {
		e := newEnv(t, rt)
		e.writeConfig(revisedHooksConfig)
		e.install("hook-reviser")
		a := &cardApprover{}
		m := e.open(func(o *Options) { o.Approval = "auto"; o.Approver = a })
		reconcile(t, m)
		ws := guardWorkspace(t)
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
		victim := filepath.Join(ws, "victim")
		if err := os.Mkdir(victim, 0o700); err != nil {
			t.Fatal(err)
		}
		ctx := callCtx(t)
		call := func(tool, in string) (ToolResult, error) {
			return m.CallTool(ctx, tool, input(in), CallOptions{Workspace: ws})
		}
		for _, c := range []struct{ tool, in, denied string }{
			{"read_file", `{"file_path":".env"}`, "the .env guard refuses it (command hook PreToolUse[1]"},
			{"read_file", `{"file_path":"\u002eenv"}`, "the .env guard refuses it (command hook PreToolUse[1]"},
			{"read_file", `{"file_path":"\u002e\u0065\u006e\u0076"}`, "the .env guard refuses it"},
			{"shell", `{"command":"rm -r\u0066 victim"}`, "Blocked by block-rm-rf.sh: recursive forced removal is not allowed (rm -rf victim)"},
			{"read_file", `{"file_path":"notes.txt"}`, "the .env guard refuses it (command hook PreToolUse[1]"},
			{"read_file", `{"file_path":"ping.txt"}`, "the pre-execute hook of plugin `host:hooks` revised the input the hook of plugin `fixture-reviser` had revised; an input is revised once"},
		} {
			res, err := call(c.tool, c.in)
			if !errors.Is(err, ErrDenied) || !strings.Contains(err.Error(), c.denied) {
				t.Errorf("%s %s: %q, %v; want denied %q", c.tool, c.in, res.Text(), err, c.denied)
			}
		}
		if _, err := os.Stat(victim); err != nil {
			t.Errorf("the denied command ran: %v", err)
		}
		if res, err := call("read_file", `{"file_path":"pong.txt"}`); err != nil || !strings.Contains(res.Text(), "other") {
			t.Errorf("pong.txt revised by the command hook alone: %q, %v", res.Text(), err)
		}
		if res, err := call("read_file", `{"file_path":"draft.txt"}`); err != nil || !strings.Contains(res.Text(), "alpha") {
			t.Errorf("draft.txt revised into a.txt: %q, %v", res.Text(), err)
		}
		if len(a.cards) != 0 {
			t.Errorf("cards shown: %d", len(a.cards))
		}
	})
}
