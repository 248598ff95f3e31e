package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/cwx-dev/cwx/core"
	"github.com/cwx-dev/cwx/core/gate"
	"github.com/cwx-dev/cwx/core/protocol"
	"github.com/cwx-dev/cwx/core/supervisor"
)

// replFake is a fake with the demo's registrations, one installed plugin and a ready plugin
// tier whose tool answers with the runtime pid it runs in.
func replFake(t *testing.T) *fakeCore {
	t.Helper()
	pluginHome(t)
	mustCLI(t, "plugin", "install", basicFixture(t))
	s, _, err := openPlugins()
	if err != nil {
		t.Fatal(err)
	}
	f := newFakeCore()
	f.tools, f.commands, f.store = demoTools(), demoCommands(), s
	f.readyPlugin(4100, 1, 2)
	f.call = func(_ context.Context, name string, input json.RawMessage, _ core.CallOptions) (core.ToolResult, error) {
		pid := f.HostAt(protocol.SharedHost(protocol.TierPlugin)).RuntimePID
		return core.ToolResult{Content: []core.ContentBlock{{Type: "text", Text: fmt.Sprintf("%s%s from pid %d", name, input, pid)}}}, nil
	}
	useFake(t, f)
	return f
}

func runRepl(t *testing.T, script string, args ...string) cliResult {
	t.Helper()
	var out, errb bytes.Buffer
	code := Main(append([]string{"repl"}, args...), strings.NewReader(script), &out, &errb)
	return cliResult{out.String(), errb.String(), code}
}

func TestReplScriptGolden(t *testing.T) {
	f := replFake(t)
	script := strings.Join([]string{
		"# a scripted session",
		"/tools",
		"/plugins",
		`/call hello_greet {"name": "Ada"}`,
		"run hello Grace",
		"/host status",
		"/host kill plugin",
		"/host status",
		`/call hello_greet {"name":"Ada"}`,
		"/bogus",
		"/call hello_greet {not json",
		"/host kill sideways",
		"/help",
		"/exit",
		"/tools", // not reached
	}, "\n") + "\n"
	r := runRepl(t, script, "--approve", "auto")
	if r.code != ExitUsage {
		t.Fatalf("exit %d, want %d (the first failure, /bogus)\n%s%s", r.code, ExitUsage, r.stdout, r.stderr)
	}
	checkGolden(t, "repl-script.golden", []byte(r.stdout+"--- stderr ---\n"+r.stderr))
	if !f.logged("kill plugin") || !f.logged("run hello  Grace") {
		t.Fatalf("log %q", f.log)
	}
}

func TestReplEndOfInputExitsCleanly(t *testing.T) {
	replFake(t)
	r := runRepl(t, "/tools") // no final newline, no /exit
	if r.code != ExitOK || !strings.Contains(r.stdout, "hello_greet") {
		t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}

// TestReplPromptSharesStdin: the approval prompt reads its answer from the same stream as
// the commands, and only its own line.
func TestReplPromptSharesStdin(t *testing.T) {
	f := replFake(t)
	withTerminal(t)
	var decisions []gate.Decision
	f.call = func(ctx context.Context, name string, input json.RawMessage, o core.CallOptions) (core.ToolResult, error) {
		d, err := o.Approver.Approve(ctx, gate.Card{Tool: name, PluginID: "hello-extension", Title: "Extension tool `" + name + "` from plugin `hello-extension`", Input: string(input)})
		decisions = append(decisions, d)
		if err != nil || d == gate.DenyDecision {
			return core.ToolResult{}, fmt.Errorf("%w: not approved", gate.ErrDenied)
		}
		return core.ToolResult{Content: []core.ContentBlock{{Type: "text", Text: "approved"}}}, nil
	}
	r := runRepl(t, "/call hello_greet {}\no\n/call hello_greet {}\nd\n/tools\n")
	if r.code != ExitOK || !strings.Contains(r.stderr, "error: denied: not approved (exit status 4)") { // at a terminal: shown, and the session exits 0
		t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if len(decisions) != 2 || decisions[0] != gate.AllowOnce || decisions[1] != gate.DenyDecision {
		t.Fatalf("decisions %v", decisions)
	}
	if !strings.Contains(r.stdout, "approved") || !strings.Contains(r.stdout, "word_stats") {
		t.Fatalf("stdout %q", r.stdout)
	}
	if !strings.Contains(r.stderr, "[o] allow once\n") || !strings.Contains(r.stderr, "Allow? o, s or d (default d): ") {
		t.Fatalf("stderr %q: the card was not shown", r.stderr)
	}
}

// TestReplAskWithoutTerminalFailsClosed: a scripted repl under `ask` cannot prompt.
func TestReplAskWithoutTerminalFailsClosed(t *testing.T) {
	f := replFake(t)
	f.call = func(ctx context.Context, name string, input json.RawMessage, o core.CallOptions) (core.ToolResult, error) {
		_, err := o.Approver.Approve(ctx, gate.Card{Tool: name, PluginID: "hello-extension"})
		return core.ToolResult{}, fmt.Errorf("%w: %w", gate.ErrDenied, err)
	}
	r := runRepl(t, "/call hello_greet {}\n")
	if r.code != ExitDenied || !strings.Contains(r.stderr, "--approve auto") {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
}

// TestReplCallWaitsForReplay: after a crash the tool is gone until the restarted host
// replays its owner; /call waits while the tier is coming back.
func TestReplCallWaitsForReplay(t *testing.T) {
	f := replFake(t)
	f.setTools()
	f.setTier(protocol.TierPlugin, func(s *core.TierStatus) { s.State = supervisor.StateRestarting })
	done := make(chan struct{})
	go func() {
		defer close(done)
		for !f.logged("reconcile") {
			_ = sleepCtx(context.Background(), livePoll)
		}
		// the tools first: a repl that saw Ready before them would rightly say "no live tool"
		f.setTools(demoTools()...)
		f.setTier(protocol.TierPlugin, func(s *core.TierStatus) { s.State = supervisor.StateReady })
	}()
	r := runRepl(t, "/call hello_greet {}\n")
	<-done
	if r.code != ExitOK || !strings.Contains(r.stdout, "hello_greet{} from pid 4100") {
		t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}

func TestReplHostRetryAndFailedKill(t *testing.T) {
	f := replFake(t)
	r := runRepl(t, "/host retry plugin\n/host kill builtin\n")
	if !f.logged("retry plugin") {
		t.Fatalf("log %q", f.log)
	}
	// the builtin tier has no runtime to kill
	if r.code != ExitUnavailable {
		t.Fatalf("killing an idle tier succeeded\n%s%s", r.stdout, r.stderr)
	}
}

// TestReplKillReportsMissingOwners: a restart that does not bring every plugin back says so.
func TestReplKillReportsMissingOwners(t *testing.T) {
	f := replFake(t)
	f.readyPlugin(4100, 1, 3)
	f.onKill = func(s *core.TierStatus) { s.Owners = 2 } // one plugin fails to activate again
	old := replSettle
	replSettle = 20 * livePoll
	t.Cleanup(func() { replSettle = old })
	r := runRepl(t, "/host kill plugin\n")
	if r.code != ExitUnavailable || !strings.Contains(r.stderr, "only 2 of 3 plugins are active again") {
		t.Fatalf("exit %d: %s\n%s", r.code, r.stderr, r.stdout)
	}
}

// TestReplInteractiveExitsOK: at a terminal the repl shows each failure where it happened
// and exits 0 when the person ends the session; the same lines from a script exit with the
// first failure's status.
func TestReplInteractiveExitsOK(t *testing.T) {
	replFake(t)
	script := "/bogus\n/call no_such_tool {}\n/tools\n/exit\n"
	if r := runRepl(t, script); r.code != ExitUsage || !strings.Contains(r.stderr, `unknown command "bogus"`) {
		t.Fatalf("script: exit %d, want %d\n%s%s", r.code, ExitUsage, r.stdout, r.stderr)
	}
	withTerminal(t)
	r := runRepl(t, script)
	if r.code != ExitOK || !strings.Contains(r.stderr, `unknown command "bogus"`) || !strings.Contains(r.stderr, "(exit status 5)") {
		t.Fatalf("terminal: exit %d, want %d\n%s%s", r.code, ExitOK, r.stdout, r.stderr)
	}
	if r := runRepl(t, "/bogus\n"); r.code != ExitOK { // the end of input ends it too
		t.Fatalf("terminal, end of input: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}
