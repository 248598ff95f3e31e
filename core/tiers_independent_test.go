package core

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cwx-dev/cwx/core/owners"
	"github.com/cwx-dev/cwx/core/protocol"
	"github.com/cwx-dev/cwx/core/supervisor"
	"github.com/cwx-dev/cwx/shared/testenv"
)

// The tests here hold real work in flight on one tier while the other crashes, hangs, is torn
// down dirty or spends its crash budget (ARCHITECTURE.md, “Builtin modules”: the two tiers are
// supervised independently). The work on the builtin tier is a script tool and a PreToolUse
// command hook that wait for a file the test creates; on the plugin tier it is gate_wait,
// which answers only when gate_open is called. So each call is in flight for exactly as long
// as the other tier's trouble lasts, without a timed assertion.

// holdGate is a folder in which the held builtin work marks its start and waits for `go`.
type holdGate string

func newGate(t *testing.T) holdGate { return holdGate(t.TempDir()) }

// shell is the sh snippet that marks a start as <gate>/<name>.<pid> and waits (at most a
// minute) for <gate>/go.
func (g holdGate) shell(name string) string {
	return fmt.Sprintf("touch %[1]s/%[2]s.$$; n=0; while [ ! -e %[1]s/go ] && [ $n -lt 1200 ]; do sleep 0.05; n=$((n+1)); done", string(g), name)
}

// started waits until n pieces of work named name have marked their start.
func (g holdGate) started(t *testing.T, name string, n int) {
	t.Helper()
	eventually(t, 30*time.Second, fmt.Sprintf("%d %s started", n, name), func() bool {
		m, _ := filepath.Glob(filepath.Join(string(g), name+".*"))
		return len(m) == n
	})
}

func (g holdGate) open(t *testing.T) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(string(g), "go"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
}

// holdScript writes the script tool script_hold, which waits at the gate and answers "done".
func (e *env) holdScript(g holdGate) {
	e.writeScript("hold.sh", frontmatter("script_hold", "# timeout: 120\n")+"cat >/dev/null\n"+g.shell("script")+"\necho done\n")
}

// holdHook configures a PreToolUse hook on Bash that waits at the gate, then blocks a command
// that says "forbidden" (exit 2) and lets any other go on (exit 0).
func (e *env) holdHook(g holdGate) {
	e.writeConfig(fmt.Sprintf(`
[[hooks.PreToolUse]]
matcher = "Bash"
command = '''input=$(cat); %s; case "$input" in *forbidden*) echo "no forbidden commands" >&2; exit 2;; esac; exit 0'''
timeout_s = 120
`, g.shell("hook")))
}

// quickHeartbeat makes the heartbeat of tier t kill an unanswering host within 1.5 s; the
// other tier keeps the defaults, so a loaded machine does not end it by mistake.
func quickHeartbeat(t protocol.Tier) func(*supervisor.Options) {
	return func(so *supervisor.Options) {
		so.HandshakeTimeout = 20 * time.Second
		if so.Tier == t {
			so.HeartbeatInterval = 100 * time.Millisecond
			so.UnresponsiveAfter = 300 * time.Millisecond
			so.HangKillAfter = 1500 * time.Millisecond
			so.RestartBackoff = 50 * time.Millisecond
		}
	}
}

// call runs a tool call in its own goroutine; the channel yields its result once.
type callResult struct {
	res ToolResult
	err error
}

func goCall(t *testing.T, m *Manager, name, in string, o CallOptions) <-chan callResult {
	ctx := callCtx(t)
	ch := make(chan callResult, 1)
	go func() {
		res, err := m.CallTool(ctx, name, input(in), o)
		ch <- callResult{res, err}
	}()
	return ch
}

// pending fails the test if a held call has already answered.
func pending(t *testing.T, what string, ch <-chan callResult) {
	t.Helper()
	select {
	case r := <-ch:
		t.Fatalf("%s answered before its gate opened: %q, %v", what, r.res.Text(), r.err)
	default:
	}
}

// untouched fails the test unless tier's incarnation is still the ready one of was.
func untouched(t *testing.T, m *Manager, was HostInfo) {
	t.Helper()
	now := m.Host(was.Tier)
	if now.State != supervisor.StateReady || now.RuntimePID != was.RuntimePID || now.Generation != was.Generation || now.Crashes != was.Crashes {
		t.Errorf("the %s tier was touched: %+v, was %+v", was.Tier, now, was)
	}
}

// readyTiers returns both tiers after checking that each runs.
func readyTiers(t *testing.T, m *Manager) (plugin, builtin HostInfo) {
	t.Helper()
	plugin, builtin = m.Host(protocol.TierPlugin), m.Host(protocol.TierBuiltin)
	if plugin.State != supervisor.StateReady || builtin.State != supervisor.StateReady {
		t.Fatalf("tiers: %+v %+v", plugin, builtin)
	}
	return plugin, builtin
}

func wantText(t *testing.T, what string, r callResult, want string) {
	t.Helper()
	if r.err != nil || !strings.Contains(r.res.Text(), want) {
		t.Errorf("%s: %q, %v; want a result with %q", what, r.res.Text(), r.err, want)
	}
}

// echoWorks waits until echo_text answers on the plugin tier.
func echoWorks(t *testing.T, m *Manager) {
	t.Helper()
	eventually(t, 30*time.Second, "echo_text answers", func() bool {
		r, err := m.CallTool(callCtx(t), "echo_text", input(`{"text":"x","mode":"string"}`), CallOptions{})
		return err == nil && r.Text() == "x"
	})
}

// TestPluginHeartbeatFailureSparesTheBuiltinTier: a plugin tool blocks the plugin host's event
// loop, and its heartbeat kills it, while a script tool runs and a PreToolUse command hook
// judges a shell call on the builtin tier. Both builtin calls complete with their real results,
// and the builtin tier's incarnation, generation and crash count stay as they were.
func TestPluginHeartbeatFailureSparesTheBuiltinTier(t *testing.T) {
	eachRuntime(t, func(t *testing.T, rt testenv.Runtime) {
		e := newEnv(t, rt)
		g := newGate(t)
		e.holdHook(g)
		e.holdScript(g)
		e.install("hang-tool", "tool") // hang_probe, echo_text
		a := &approver{d: AllowOnce}   // shell always needs a person's yes; the hook does not give it
		m := e.open(func(o *Options) { o.Tier = quickHeartbeat(protocol.TierPlugin); o.Approver = a })
		reconcile(t, m)
		plugin0, builtin0 := readyTiers(t, m)

		ws := t.TempDir()
		script := goCall(t, m, "script_hold", `{}`, CallOptions{Workspace: ws})
		shell := goCall(t, m, "shell", `{"command":"echo judged"}`, CallOptions{Workspace: ws})
		g.started(t, "script", 1)
		g.started(t, "hook", 1)

		_, err := m.CallTool(callCtx(t), "hang_probe", input(`{}`), CallOptions{})
		if he, ok := errors.AsType[*supervisor.HangError](err); !ok || !errors.Is(err, ErrHostExited) || !strings.Contains(err.Error(), "the plugin tier was restarted") {
			t.Fatalf("hang_probe: %v (hang error %v)", err, he)
		}
		eventually(t, 30*time.Second, "the plugin tier back", func() bool {
			p := m.Host(protocol.TierPlugin)
			return p.State == supervisor.StateReady && p.Generation > plugin0.Generation
		})
		if p := m.Host(protocol.TierPlugin); p.Crashes != plugin0.Crashes+1 {
			t.Errorf("plugin tier crashes %d, want %d", p.Crashes, plugin0.Crashes+1)
		}
		pending(t, "script_hold", script)
		pending(t, "the hooked shell call", shell)
		untouched(t, m, builtin0)

		g.open(t)
		wantText(t, "script_hold", <-script, "done")
		wantText(t, "the hooked shell call", <-shell, "judged")
		if a.asked() != 1 {
			t.Errorf("%d approval cards, want 1 (for the shell call the hook let go on)", a.asked())
		}
		untouched(t, m, builtin0)
		echoWorks(t, m)
	})
}

// TestBuiltinHangSparesThePluginTier: the builtin host stops answering (its runtime is
// SIGSTOPped) and its heartbeat kills it while gate_wait is in flight on the plugin tier; that
// call completes once released, and the plugin tier's incarnation is the same.
func TestBuiltinHangSparesThePluginTier(t *testing.T) {
	eachRuntime(t, func(t *testing.T, rt testenv.Runtime) {
		e := newEnv(t, rt)
		e.writeScript("echo.sh", frontmatter("script_echo", "")+"cat >/dev/null\necho hi\n")
		e.install("gate-tool", "tool")
		m := e.open(func(o *Options) { o.Tier = quickHeartbeat(protocol.TierBuiltin) })
		reconcile(t, m)
		plugin0, builtin0 := readyTiers(t, m)

		held := goCall(t, m, "gate_wait", `{}`, CallOptions{})
		eventually(t, 30*time.Second, "gate_wait in flight", func() bool { return inflight(m, "fixture-gate-tool") == 1 })
		if err := syscall.Kill(builtin0.RuntimePID, syscall.SIGSTOP); err != nil {
			t.Fatal(err)
		}
		eventually(t, 30*time.Second, "the hung builtin host replaced", func() bool {
			b := m.Host(protocol.TierBuiltin)
			return b.State == supervisor.StateReady && b.Generation > builtin0.Generation
		})
		if b := m.Host(protocol.TierBuiltin); b.Crashes != builtin0.Crashes+1 {
			t.Errorf("builtin tier crashes %d, want %d", b.Crashes, builtin0.Crashes+1)
		}
		pending(t, "gate_wait", held)
		untouched(t, m, plugin0)

		r, err := m.CallTool(callCtx(t), "gate_open", input(`{}`), CallOptions{})
		if err != nil || r.Text() != `{"released":1}` {
			t.Fatalf("gate_open: %q, %v", r.Text(), err)
		}
		wantText(t, "gate_wait", <-held, `{"opened":true}`)
		untouched(t, m, plugin0)
		eventually(t, 30*time.Second, "script_echo on the new builtin host", func() bool {
			r, err := m.CallTool(callCtx(t), "script_echo", input(`{}`), CallOptions{Workspace: t.TempDir()})
			return err == nil && r.Text() == "hi\n"
		})
	})
}

// TestDirtyTeardownStaysInItsTier: each tier counts its own dirty teardowns, and the one at
// the limit (DefaultDirtyLimit, 2) restarts only its own tier, with the other tier's call in
// flight and its generation kept. The teardowns alternate: plugin, builtin, plugin, builtin;
// a shared count would restart the builtin tier at its first one and leave the plugin tier
// short of its limit at its second. The plugin tier's are real (a disposer that never
// settles); the builtin modules have none, so the builtin tier's are reported the way the
// Manager reports one (lifecycle.go, deactivate).
func TestDirtyTeardownStaysInItsTier(t *testing.T) {
	eachRuntime(t, func(t *testing.T, rt testenv.Runtime) {
		e := newEnv(t, rt)
		g := newGate(t)
		e.holdScript(g)
		e.writeScript("echo.sh", frontmatter("script_echo", "")+"cat >/dev/null\necho hi\n")
		e.install("dirty-dispose", "gate-tool", "tool")
		m := e.open(nil)
		var builtinTier owners.Tier
		setTierAround(m, func(t protocol.HostKey, real func(protocol.HostKey) (owners.Tier, error)) (owners.Tier, error) {
			tr, err := real(t)
			if t.Tier == protocol.TierBuiltin {
				builtinTier = tr
			}
			return tr, err
		})
		reconcile(t, m)
		plugin0, builtin0 := readyTiers(t, m)
		dirtyPlugin := func() {
			t.Helper()
			if err := e.store.Enable("fixture-dirty-dispose"); err != nil {
				t.Fatal(err)
			}
			reconcile(t, m)
			if err := e.store.Disable("fixture-dirty-dispose"); err != nil {
				t.Fatal(err)
			}
			reconcile(t, m)
		}
		dirtyBuiltin := func() { builtinTier.ReportDirtyTeardown() }
		ws := t.TempDir()
		scriptEcho := func() {
			t.Helper()
			if r, err := m.CallTool(callCtx(t), "script_echo", input(`{}`), CallOptions{Workspace: ws}); err != nil || r.Text() != "hi\n" {
				t.Fatalf("script_echo: %q, %v", r.Text(), err)
			}
		}

		// one below the limit on each tier: nothing restarts
		if err := e.store.Disable("fixture-dirty-dispose"); err != nil {
			t.Fatal(err)
		}
		reconcile(t, m)
		if d := strings.Join(diagnostics(t, e, m, "fixture-dirty-dispose"), "\n"); !strings.Contains(d, "dirty_teardown") {
			t.Fatalf("no dirty teardown recorded: %s", d)
		}
		echoWorks(t, m)
		untouched(t, m, plugin0)
		dirtyBuiltin()
		scriptEcho() // a restart planned now would have drained the host: this call is refused
		untouched(t, m, builtin0)
		untouched(t, m, plugin0)

		// the plugin tier's second, under a builtin call
		script := goCall(t, m, "script_hold", `{}`, CallOptions{Workspace: ws})
		g.started(t, "script", 1)
		dirtyPlugin()
		eventually(t, 30*time.Second, "the plugin tier's planned restart", func() bool {
			p := m.Host(protocol.TierPlugin)
			return p.State == supervisor.StateReady && p.Generation > plugin0.Generation
		})
		if p := m.Host(protocol.TierPlugin); p.Crashes != 0 {
			t.Errorf("a planned restart counted as a crash: %+v", p)
		}
		pending(t, "script_hold", script)
		untouched(t, m, builtin0)
		g.open(t)
		wantText(t, "script_hold", <-script, "done")
		untouched(t, m, builtin0)
		echoWorks(t, m)

		// the builtin tier's second, under a plugin call
		plugin1 := m.Host(protocol.TierPlugin)
		held := goCall(t, m, "gate_wait", `{}`, CallOptions{})
		eventually(t, 30*time.Second, "gate_wait in flight", func() bool { return inflight(m, "fixture-gate-tool") == 1 })
		dirtyBuiltin()
		eventually(t, 30*time.Second, "the builtin tier's planned restart", func() bool {
			b := m.Host(protocol.TierBuiltin)
			return b.State == supervisor.StateReady && b.Generation > builtin0.Generation
		})
		if b := m.Host(protocol.TierBuiltin); b.Crashes != 0 {
			t.Errorf("a planned restart counted as a crash: %+v", b)
		}
		pending(t, "gate_wait", held)
		untouched(t, m, plugin1)
		r, err := m.CallTool(callCtx(t), "gate_open", input(`{}`), CallOptions{})
		if err != nil || r.Text() != `{"released":1}` {
			t.Fatalf("gate_open: %q, %v", r.Text(), err)
		}
		wantText(t, "gate_wait", <-held, `{"opened":true}`)
		untouched(t, m, plugin1)
		eventually(t, 30*time.Second, "script_echo on the new builtin host", func() bool {
			r, err := m.CallTool(callCtx(t), "script_echo", input(`{}`), CallOptions{Workspace: ws})
			return err == nil && r.Text() == "hi\n"
		})
	})
}

// TestPluginKillDuringCommandHook: the plugin tier's runtime is killed while PreToolUse
// command hooks judge two shell calls in the builtin host; each decision arrives after the
// plugin tier's crash was handled, and each call ends as decided: one runs, one is denied
// with the hook's reason.
func TestPluginKillDuringCommandHook(t *testing.T) {
	eachRuntime(t, func(t *testing.T, rt testenv.Runtime) {
		e := newEnv(t, rt)
		g := newGate(t)
		e.holdHook(g)
		e.install("tool")
		a := &approver{d: AllowOnce}
		m := e.open(func(o *Options) { o.Approver = a })
		reconcile(t, m)
		plugin0, builtin0 := readyTiers(t, m)

		ws := t.TempDir()
		allowed := goCall(t, m, "shell", `{"command":"echo allowed > ran.txt; echo allowed"}`, CallOptions{Workspace: ws})
		denied := goCall(t, m, "shell", `{"command":"echo forbidden > ran.txt"}`, CallOptions{Workspace: ws})
		g.started(t, "hook", 2)
		if err := m.KillRuntime(protocol.TierPlugin); err != nil {
			t.Fatal(err)
		}
		eventually(t, 30*time.Second, "the plugin tier's crash handled", func() bool {
			p := m.Host(protocol.TierPlugin)
			return p.Crashes == plugin0.Crashes+1 && p.State == supervisor.StateReady && p.Generation > plugin0.Generation
		})
		pending(t, "the allowed shell call", allowed)
		pending(t, "the denied shell call", denied)
		untouched(t, m, builtin0)

		g.open(t)
		wantText(t, "the allowed shell call", <-allowed, "allowed")
		r := <-denied
		if !errors.Is(r.err, ErrDenied) || !strings.Contains(r.err.Error(), "no forbidden commands") {
			t.Errorf("the denied shell call: %q, %v", r.res.Text(), r.err)
		}
		if b, err := os.ReadFile(filepath.Join(ws, "ran.txt")); err != nil || string(b) != "allowed\n" {
			t.Errorf("ran.txt: %q, %v (the denied command must not run)", b, err)
		}
		if a.asked() != 1 {
			t.Errorf("%d approval cards, want 1 (for the allowed call only)", a.asked())
		}
		untouched(t, m, builtin0)
		echoWorks(t, m)
	})
}

// killAndReplace SIGKILLs tier tr's runtime and waits until a new incarnation is ready.
func killAndReplace(t *testing.T, m *Manager, tr protocol.Tier) {
	t.Helper()
	was := m.Host(tr)
	if err := m.KillRuntime(tr); err != nil {
		t.Fatal(err)
	}
	eventually(t, 30*time.Second, fmt.Sprintf("the %s tier replaced after crash %d", tr, was.Crashes+1), func() bool {
		h := m.Host(tr)
		return h.State == supervisor.StateReady && h.Generation > was.Generation && h.Crashes == was.Crashes+1
	})
}

// killPastBudget SIGKILLs tier tr's runtime until its crash budget is spent; it ends Failed.
func killPastBudget(t *testing.T, m *Manager, tr protocol.Tier, other HostInfo) {
	t.Helper()
	for range supervisor.DefaultCrashLimit - 1 {
		killAndReplace(t, m, tr)
		untouched(t, m, other)
	}
	if err := m.KillRuntime(tr); err != nil {
		t.Fatal(err)
	}
	eventually(t, 30*time.Second, fmt.Sprintf("the %s tier failed", tr), func() bool { return m.Host(tr).State == supervisor.StateFailed })
}

// reconcileFailed runs a Reconcile with tier failed Failed: its only error is that tier's.
func reconcileFailed(t *testing.T, m *Manager, failed protocol.Tier) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := PluginErrors(m.Reconcile(ctx)); err != nil && !strings.Contains(err.Error(), fmt.Sprintf("start the %s tier", failed)) {
		t.Errorf("reconcile with the %s tier Failed: %v", failed, err)
	}
}

// TestCrashBudgetsAreSeparate: each tier spends only its own crash budget. The builtin tier
// crashes one short of its budget; then the plugin tier crashes past its own and is Failed
// while the builtin tier is still Ready and serves (a shared budget would have failed both at
// the plugin tier's first crash). After a Retry of the plugin tier, the builtin tier's last
// crash fails it alone, and the plugin tier serves: its tools that no command hook matches
// keep working while the hooks module is down. A Reconcile with either tier Failed activates
// the other tier's new work.
func TestCrashBudgetsAreSeparate(t *testing.T) {
	eachRuntime(t, func(t *testing.T, rt testenv.Runtime) {
		e := newEnv(t, rt)
		e.writeScript("echo.sh", frontmatter("script_echo", "")+"cat >/dev/null\necho hi\n")
		e.writeConfig("[[hooks.PreToolUse]]\nmatcher = \"Bash\"\ncommand = \"exit 0\"\n")
		e.install("tool")
		m := e.open(nil)
		reconcile(t, m)
		readyTiers(t, m)
		ws := t.TempDir()
		scriptWorks := func() {
			t.Helper()
			eventually(t, 30*time.Second, "script_echo answers", func() bool {
				r, err := m.CallTool(callCtx(t), "script_echo", input(`{}`), CallOptions{Workspace: ws})
				return err == nil && r.Text() == "hi\n"
			})
		}

		for range supervisor.DefaultCrashLimit - 1 {
			killAndReplace(t, m, protocol.TierBuiltin)
		}
		scriptWorks()
		builtin1 := m.Host(protocol.TierBuiltin)

		killPastBudget(t, m, protocol.TierPlugin, builtin1)
		untouched(t, m, builtin1)
		if _, err := m.CallTool(callCtx(t), "echo_text", input(`{"text":"x"}`), CallOptions{}); err == nil {
			t.Error("echo_text answered on a Failed plugin tier")
		}
		scriptWorks()
		untouched(t, m, builtin1)
		// a Reconcile with the plugin tier Failed still activates the builtin tier's new work
		e.writeScript("new.sh", frontmatter("script_new", "")+"cat >/dev/null\necho new\n")
		reconcileFailed(t, m, protocol.TierPlugin)
		if r, err := m.CallTool(callCtx(t), "script_new", input(`{}`), CallOptions{Workspace: ws}); err != nil || r.Text() != "new\n" {
			t.Errorf("script_new: %q, %v", r.Text(), err)
		}
		untouched(t, m, builtin1)

		m.Retry(protocol.TierPlugin)
		reconcile(t, m)
		echoWorks(t, m)
		plugin2 := m.Host(protocol.TierPlugin)
		// Retry clears the crash budget, whose count is the one every surface reports
		if plugin2.State != supervisor.StateReady || plugin2.Crashes != 0 {
			t.Fatalf("plugin tier after Retry: %+v", plugin2)
		}

		if err := m.KillRuntime(protocol.TierBuiltin); err != nil {
			t.Fatal(err)
		}
		eventually(t, 30*time.Second, "the builtin tier failed", func() bool {
			return m.Host(protocol.TierBuiltin).State == supervisor.StateFailed
		})
		if _, err := m.CallTool(callCtx(t), "script_echo", input(`{}`), CallOptions{Workspace: ws}); err == nil {
			t.Error("script_echo answered on a Failed builtin tier")
		}
		untouched(t, m, plugin2)
		echoWorks(t, m)
		untouched(t, m, plugin2)
		// a Reconcile with the builtin tier Failed still activates the plugin tier's new work
		e.install("slow-tool")
		reconcileFailed(t, m, protocol.TierBuiltin)
		if r, err := m.CallTool(callCtx(t), "slow_wait", input(`{"ms":1}`), CallOptions{}); err != nil || r.Text() != `{"waited":1}` {
			t.Errorf("slow_wait: %q, %v", r.Text(), err)
		}
		untouched(t, m, plugin2)
		// the hooks module is down with its tier: the shell call its hook judges is denied
		// (fail closed), while echo_text, which no hook matches, was served above
		_, err := m.CallTool(callCtx(t), "shell", input(`{"command":"echo no"}`), CallOptions{Workspace: ws})
		if !errors.Is(err, ErrDenied) || !strings.Contains(err.Error(), "the builtin hooks module (host:hooks) is not running") {
			t.Errorf("shell with its hook's tier Failed: %v", err)
		}
	})
}
