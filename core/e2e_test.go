package core

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cwx-dev/cwx/core/gate"
	"github.com/cwx-dev/cwx/core/natives"
	"github.com/cwx-dev/cwx/core/plugins/plugintest"
	"github.com/cwx-dev/cwx/core/protocol"
	"github.com/cwx-dev/cwx/core/registry"
	"github.com/cwx-dev/cwx/core/supervisor"
	"github.com/cwx-dev/cwx/shared/testenv"
)

// noNatives is an empty native table, for tests that list the extension tools alone.
var noNatives, _ = natives.NewSet()

func TestCallToolEndToEnd(t *testing.T) {
	eachRuntime(t, func(t *testing.T, rt testenv.Runtime) {
		e := newEnv(t, rt)
		e.install("tool", "command")
		m := e.open(func(o *Options) { o.Natives = noNatives }) // the extension tools alone
		reconcile(t, m)
		tools := m.Tools()
		if len(tools) != 1 || tools[0].Name != "echo_text" || tools[0].Origin != "extension:fixture-tool" {
			t.Fatalf("tools = %+v", tools)
		}
		res, err := m.CallTool(context.Background(), "echo_text", input(`{"text":"hi"}`), CallOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if got := res.Text(); got != `{"echoed":"hi"}` {
			t.Fatalf("text = %q", got)
		}
		res, err = m.CallTool(context.Background(), "echo_text", input(`{"text":"x","mode":"exec"}`),
			CallOptions{Workspace: "/ws", SessionID: "s1", AgentID: "a1", OriginTurnID: "t1"})
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(res.Text(), `"workspace":"/ws"`) || !strings.Contains(res.Text(), `"dataDir":"`) {
			t.Fatalf("exec context = %s", res.Text())
		}
		_, err = m.CallTool(context.Background(), "echo_text", input(`{"text":"boom","mode":"throw"}`), CallOptions{})
		var ee *ExecutionError
		if !errors.Is(err, ErrExecutionFailed) || !errors.As(err, &ee) || !strings.Contains(ee.Message, "boom") {
			t.Fatalf("throw: %v", err)
		}
		cr, err := m.RunCommand(context.Background(), "greet", "world", CallOptions{})
		if err != nil || cr.Kind != "success" || cr.Text != "hello world" {
			t.Fatalf("greet = %+v, %v", cr, err)
		}
		cr, err = m.RunCommand(context.Background(), "greet", "submit", CallOptions{})
		if err != nil || cr.Kind != "submit" || cr.Prompt != "Say hello to the user." {
			t.Fatalf("submit = %+v, %v", cr, err)
		}
		cr, err = m.RunCommand(context.Background(), "greet", "error", CallOptions{})
		if err != nil || cr.Kind != "error" || cr.Text != "no greeting today" {
			t.Fatalf("error = %+v, %v", cr, err)
		}
		cr, err = m.RunCommand(context.Background(), "greet", "\x1b[31mred\x1b[0m\x07", CallOptions{})
		if err != nil || cr.Text != "hello red" {
			t.Fatalf("escapes not stripped: %q, %v", cr.Text, err)
		}
		if _, err := m.CallTool(context.Background(), "nope", nil, CallOptions{}); !errors.Is(err, ErrNotAvailable) {
			t.Fatalf("unknown tool: %v", err)
		}
	})
}

// TestNothingEnabledSpawnsNothing: installed but disabled plugins start no tier and
// materialize no bundle.
func TestNothingEnabledSpawnsNothing(t *testing.T) {
	rt := testenv.Node(t)
	e := newEnv(t, rt)
	if _, err := e.store.Install(fixture(t, "tool")); err != nil {
		t.Fatal(err)
	}
	m := e.open(nil)
	reconcile(t, m)
	for _, st := range m.Status() {
		if st.State != supervisor.StateIdle || st.RuntimePID != 0 {
			t.Fatalf("tier %s is %s", st.Tier, st.State)
		}
	}
	n := m.own.Started()
	if n != 0 {
		t.Fatalf("%d tiers created", n)
	}
	if entries, _ := os.ReadDir(filepath.Join(e.home, "extension-host")); len(entries) != 0 {
		t.Fatalf("extension-host holds %d entries; nothing should be materialized", len(entries))
	}
}

// TestConfigChangeReactivatesThatPluginOnly: a changed config digest re-activates exactly
// that plugin under a new generation; the other owner keeps its generation.
func TestConfigChangeReactivatesThatPluginOnly(t *testing.T) {
	eachRuntime(t, func(t *testing.T, rt testenv.Runtime) {
		e := newEnv(t, rt)
		e.writeConfig("[plugins.\"fixture-config\".config]\ntarget = \"first\"\n")
		e.install("tool", "config")
		m := e.open(nil)
		reconcile(t, m)
		toolGen, cfgOld := ownerOf(t, m, "fixture-tool").Ref, ownerOf(t, m, "fixture-config").Ref
		res, err := m.CallTool(context.Background(), "config_echo", input(`{}`), CallOptions{})
		if err != nil || !strings.Contains(res.Text(), "Hello, first") {
			t.Fatalf("config_echo = %q, %v", res.Text(), err)
		}
		reconcile(t, m) // unchanged: no churn
		if got := ownerOf(t, m, "fixture-config").Ref; got != cfgOld {
			t.Fatalf("an unchanged config re-activated the plugin: %+v → %+v", cfgOld, got)
		}
		e.writeConfig("[plugins.\"fixture-config\".config]\ntarget = \"second\"\n")
		reconcile(t, m)
		cfgNew := ownerOf(t, m, "fixture-config").Ref
		if cfgNew.Generation == cfgOld.Generation {
			t.Fatal("config change did not re-activate the plugin")
		}
		if got := ownerOf(t, m, "fixture-tool").Ref; got != toolGen {
			t.Fatalf("the other plugin was re-activated: %+v → %+v", toolGen, got)
		}
		res, err = m.CallTool(context.Background(), "config_echo", input(`{}`), CallOptions{})
		if err != nil || !strings.Contains(res.Text(), "Hello, second") {
			t.Fatalf("config_echo = %q, %v", res.Text(), err)
		}
		// a stale OwnerRef from the older generation is refused
		gen := m.own.Current("fixture-config").Generation()
		for _, ref := range []protocol.OwnerRef{cfgOld, {PluginID: cfgNew.PluginID, Generation: cfgNew.Generation, OwnerToken: cfgOld.OwnerToken}} {
			p := &protocol.RegisterParams{Owner: ref, Kind: protocol.KindTool,
				Spec: protocol.RegisterSpec{Name: "stale_tool", Description: "x", InputSchema: input(`{"type":"object"}`)}}
			out, err := m.own.HandleRequest(context.Background(), pluginHost, gen, &protocol.Message{Method: protocol.MethodRegistryRegister, Value: p})
			r, _ := out.(protocol.RegisterResult)
			if err != nil || r.Refused == nil || r.Handle != nil || !strings.Contains(*r.Refused, registry.ErrStaleOwner.Error()) {
				t.Fatalf("stale owner %+v: %+v, %v", ref, r, err)
			}
		}
		if hasTool(m, "stale_tool") {
			t.Fatal("stale owner registered a tool")
		}
	})
}

// TestDisableInAnotherProcessRevokes: `cwx plugin disable` in another process reaches a
// running Manager within the poll interval.
func TestDisableInAnotherProcessRevokes(t *testing.T) {
	eachRuntime(t, func(t *testing.T, rt testenv.Runtime) {
		e := newEnv(t, rt)
		e.install("tool", "command")
		m := e.open(func(o *Options) { o.PollInterval = 200 * time.Millisecond })
		reconcile(t, m)
		if !hasTool(m, "echo_text") {
			t.Fatal("tool not live")
		}
		cmd := exec.Command(cwxBin, "plugin", "disable", "fixture-tool")
		cmd.Env = append(os.Environ(), "CWX_HOME="+e.home)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("cwx plugin disable: %v: %s", err, out)
		}
		eventually(t, 5*time.Second, "revoked after a disable in another process", func() bool { return !hasTool(m, "echo_text") })
		if st := ownerOf(t, m, "fixture-tool").State; st != registry.Revoked {
			t.Fatalf("owner state %s", st)
		}
		if len(m.Commands()) != 2 {
			t.Fatalf("the other plugin's commands: %+v", m.Commands())
		}
	})
}

// TestFaultIsolated: an uncaught error in a plugin's timer faults that owner only.
func TestFaultIsolated(t *testing.T) {
	eachRuntime(t, func(t *testing.T, rt testenv.Runtime) {
		e := newEnv(t, rt)
		e.install("tool", "faults")
		m := e.open(nil)
		reconcile(t, m)
		toolRef := ownerOf(t, m, "fixture-tool").Ref
		if _, err := m.CallTool(context.Background(), "timer_throw", input(`{}`), CallOptions{}); err != nil {
			t.Fatal(err)
		}
		eventually(t, 5*time.Second, "faulted", func() bool { return ownerOf(t, m, "fixture-faults").State == registry.Faulted })
		for _, name := range []string{"timer_throw", "late_reject", "interval_count"} {
			if hasTool(m, name) {
				t.Fatalf("%s survived the fault", name)
			}
		}
		if _, err := m.CallTool(context.Background(), "interval_count", input(`{}`), CallOptions{}); !errors.Is(err, ErrNotAvailable) {
			t.Fatalf("call of a faulted tool: %v", err)
		}
		if _, err := m.CallTool(context.Background(), "echo_text", input(`{"text":"still here"}`), CallOptions{}); err != nil {
			t.Fatalf("neighbour: %v", err)
		}
		reconcile(t, m) // not replayed until a reload
		if ownerOf(t, m, "fixture-faults").State != registry.Faulted || ownerOf(t, m, "fixture-tool").Ref != toolRef {
			t.Fatal("reconcile touched the faulted plugin or its neighbour")
		}
		if d := strings.Join(diagnostics(t, e, m, "fixture-faults"), "\n"); !strings.Contains(d, "faulted: ") || !strings.Contains(d, "thrown in a timer callback") {
			t.Fatalf("diagnostics: %s", d)
		}
		if err := m.Reload(context.Background()); err != nil {
			t.Fatal(err)
		}
		if !hasTool(m, "timer_throw") {
			t.Fatal("reload did not bring the faulted plugin back")
		}
	})
}

// TestRevocationMidCall: disabling a plugin mid-call resolves the call Cancelled("extension
// was revoked") before Reconcile returns, and the host answers disposed once the async
// disposer (which awaits the call) settled: a clean teardown.
func TestRevocationMidCall(t *testing.T) {
	eachRuntime(t, func(t *testing.T, rt testenv.Runtime) {
		e := newEnv(t, rt)
		e.install("slow-tool")
		m := e.open(nil)
		reconcile(t, m)
		done := make(chan error, 1)
		go func() {
			_, err := m.CallTool(context.Background(), "slow_wait", input(`{"ms":60000}`), CallOptions{})
			done <- err
		}()
		eventually(t, 5*time.Second, "call in flight", func() bool { return inflight(m, "fixture-slow-tool") == 1 })
		if err := e.store.Disable("fixture-slow-tool"); err != nil {
			t.Fatal(err)
		}
		begin := time.Now()
		reconcile(t, m)
		t.Logf("revocation took %v", time.Since(begin))
		select {
		case err := <-done:
			if !errors.Is(err, ErrCancelled) || !strings.Contains(err.Error(), "extension was revoked") {
				t.Fatalf("call: %v", err)
			}
		default:
			t.Fatal("the call was still in flight when Reconcile returned")
		}
		if d := diagnostics(t, e, m, "fixture-slow-tool"); len(d) != 0 {
			t.Fatalf("teardown was not clean: %v", d)
		}
	})
}

// TestCallerCancelReachesSignal: cancelling the caller's context sends $/cancel and aborts
// the plugin's exec.signal; the proof is that the slow tool's disposer (which awaits its
// calls in flight) then settles and deactivation is clean.
func TestCallerCancelReachesSignal(t *testing.T) {
	eachRuntime(t, func(t *testing.T, rt testenv.Runtime) {
		e := newEnv(t, rt)
		e.install("slow-tool")
		m := e.open(nil)
		reconcile(t, m)
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() {
			_, err := m.CallTool(ctx, "slow_wait", input(`{"ms":60000}`), CallOptions{})
			done <- err
		}()
		eventually(t, 5*time.Second, "call in flight", func() bool { return inflight(m, "fixture-slow-tool") == 1 })
		cancel()
		if err := <-done; !errors.Is(err, ErrCancelled) {
			t.Fatalf("call: %v", err)
		}
		if err := e.store.Disable("fixture-slow-tool"); err != nil {
			t.Fatal(err)
		}
		reconcile(t, m)
		if d := diagnostics(t, e, m, "fixture-slow-tool"); len(d) != 0 {
			t.Fatalf("the disposer still waited for the call (signal not aborted): %v", d)
		}
	})
}

// TestDirtyTeardownReported: a disposer that never settles is a dirty teardown, recorded
// and reported to the supervisor (with the limit lowered to 1 it restarts the host, and
// the remaining owner is replayed under a new generation).
func TestDirtyTeardownReported(t *testing.T) {
	eachRuntime(t, func(t *testing.T, rt testenv.Runtime) {
		e := newEnv(t, rt)
		e.install("dirty-dispose", "tool")
		m := e.open(func(o *Options) {
			o.Tier = func(so *supervisor.Options) { so.HandshakeTimeout = 20 * time.Second; so.DirtyLimit = 1 }
		})
		reconcile(t, m)
		before := ownerOf(t, m, "fixture-tool").Ref
		if err := e.store.Disable("fixture-dirty-dispose"); err != nil {
			t.Fatal(err)
		}
		reconcile(t, m)
		if d := strings.Join(diagnostics(t, e, m, "fixture-dirty-dispose"), "\n"); !strings.Contains(d, "dirty_teardown") {
			t.Fatalf("no dirty teardown recorded: %s", d)
		}
		eventually(t, 15*time.Second, "planned restart replayed the other owner", func() bool {
			o, ok := m.reg.Owner("fixture-tool")
			return ok && o.State == registry.Active && o.Ref.Generation != before.Generation && m.Host(protocol.TierPlugin).Generation == 2
		})
		if m.Host(protocol.TierPlugin).Crashes != 0 {
			t.Fatal("a planned restart counted as a crash")
		}
		if _, err := m.CallTool(context.Background(), "echo_text", input(`{"text":"after"}`), CallOptions{}); err != nil {
			t.Fatal(err)
		}
	})
}

// TestGateOrder: invalid input is refused before approval and before the host sees a frame;
// a denied call sends nothing; "allow for session" remembers exactly the key.
func TestGateOrder(t *testing.T) {
	eachRuntime(t, func(t *testing.T, rt testenv.Runtime) {
		e := newEnv(t, rt)
		e.install("tool", "command")
		a := &approver{d: gate.DenyDecision}
		m := e.open(func(o *Options) { o.Approval = "ask"; o.Approver = a })
		sent := countSent(m)
		reconcile(t, m)
		_, err := m.CallTool(context.Background(), "echo_text", input(`{"text":5}`), CallOptions{})
		var ie *registry.InputError
		if !errors.Is(err, ErrInvalidInput) || !errors.As(err, &ie) || len(ie.Violations) == 0 {
			t.Fatalf("invalid input: %v", err)
		}
		if a.asked() != 0 || sent.count(protocol.MethodToolCall) != 0 {
			t.Fatalf("asked %d, sent %d", a.asked(), sent.count(protocol.MethodToolCall))
		}
		if _, err := m.CallTool(context.Background(), "echo_text", input(`{"text":"a"}`), CallOptions{}); !errors.Is(err, ErrDenied) {
			t.Fatalf("denied: %v", err)
		}
		if a.asked() != 1 || sent.count(protocol.MethodToolCall) != 0 {
			t.Fatalf("denied: asked %d, sent %d", a.asked(), sent.count(protocol.MethodToolCall))
		}
		closure := ownerClosure(m, "fixture-tool")
		if k := a.cards[0].Key; !strings.HasPrefix(k, "ext:fixture-tool@"+closure+":echo_text:") {
			t.Fatalf("key %q does not bind the closure %s", k, closure)
		}
		if !strings.Contains(a.cards[0].Shared, "1 other plugin") {
			t.Fatalf("card does not say the host is shared: %q", a.cards[0].Shared)
		}
		a.d = gate.AllowSession
		for i, in := range []string{`{"text":"a"}`, `{"text":"a"}`, `{"text":"b"}`} {
			if _, err := m.CallTool(context.Background(), "echo_text", input(in), CallOptions{}); err != nil {
				t.Fatalf("call %d: %v", i, err)
			}
		}
		if a.asked() != 3 || sent.count(protocol.MethodToolCall) != 3 {
			t.Fatalf("after allow for session: asked %d (want 3: a, then b), sent %d", a.asked(), sent.count(protocol.MethodToolCall))
		}
	})
}

func ownerClosure(m *Manager, id string) string {
	return m.own.Current(id).Closure()
}

// TestKillMidCall: kill -9 of the runtime mid-call fails the call HostExited; after the
// restart the tool is callable again under a new owner generation.
func TestKillMidCall(t *testing.T) {
	eachRuntime(t, func(t *testing.T, rt testenv.Runtime) {
		e := newEnv(t, rt)
		e.install("slow-tool", "tool")
		m := e.open(nil)
		reconcile(t, m)
		before, host1 := ownerOf(t, m, "fixture-tool").Ref, m.Host(protocol.TierPlugin)
		done := make(chan error, 1)
		go func() {
			_, err := m.CallTool(context.Background(), "slow_wait", input(`{"ms":60000}`), CallOptions{})
			done <- err
		}()
		eventually(t, 5*time.Second, "call in flight", func() bool { return inflight(m, "fixture-slow-tool") == 1 })
		if err := m.KillRuntime(protocol.TierPlugin); err != nil {
			t.Fatal(err)
		}
		if err := <-done; !errors.Is(err, ErrHostExited) || !errors.Is(err, ErrNotAvailable) {
			t.Fatalf("call: %v", err)
		}
		eventually(t, 15*time.Second, "tool live again under a new owner", func() bool {
			o, ok := m.reg.Owner("fixture-tool")
			return ok && o.State == registry.Active && o.Ref.Generation != before.Generation && hasTool(m, "echo_text")
		})
		after, host2 := ownerOf(t, m, "fixture-tool").Ref, m.Host(protocol.TierPlugin)
		if after.Generation == before.Generation || host2.Generation == host1.Generation || host2.RuntimePID == host1.RuntimePID || host2.Crashes != 1 {
			t.Fatalf("owner %d→%d, host %+v → %+v", before.Generation, after.Generation, host1, host2)
		}
		if _, err := m.CallTool(context.Background(), "echo_text", input(`{"text":"again"}`), CallOptions{}); err != nil {
			t.Fatal(err)
		}
	})
}

// TestLargeResult: an 8 MiB result arrives intact.
func TestLargeResult(t *testing.T) {
	eachRuntime(t, func(t *testing.T, rt testenv.Runtime) {
		e := newEnv(t, rt)
		e.install("tool")
		m := e.open(nil)
		reconcile(t, m)
		text := strings.Repeat("0123456789abcdef", 8<<20/16)
		res, err := m.CallTool(context.Background(), "echo_text", input(`{"text":"`+text+`","mode":"string"}`), CallOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if res.Text() != text {
			t.Fatalf("result of %d bytes, want %d intact", len(res.Text()), len(text))
		}
	})
}

// TestCrashDuringActivation: a plugin that kills the host while activating is failed and not
// replayed, even when it activated together with others; the others come back.
func TestCrashDuringActivation(t *testing.T) {
	eachRuntime(t, func(t *testing.T, rt testenv.Runtime) {
		e := newEnv(t, rt)
		e.install("crash-activation", "tool")
		m := e.open(nil)
		_ = m.Reconcile(context.Background()) // the first host dies under the activations
		eventually(t, 20*time.Second, "the crashing plugin blamed and the other live", func() bool {
			o, ok := m.reg.Owner("fixture-crash-activation")
			// The replayed plugin's tool is live once its activation answers, a moment before
			// the supervisor marks the restarted host Ready: wait for both.
			return ok && o.State == registry.Failed && strings.Contains(o.Reason, "host crashed during activation") && hasTool(m, "echo_text") &&
				m.Host(protocol.TierPlugin).State == supervisor.StateReady
		})
		if _, err := m.CallTool(context.Background(), "echo_text", input(`{"text":"x"}`), CallOptions{}); err != nil {
			t.Fatal(err)
		}
		h := m.Host(protocol.TierPlugin)
		if h.State != supervisor.StateReady || h.Crashes > 2 {
			t.Fatalf("host %+v", h)
		}
		t.Logf("crashes until the culprit was found: %d", h.Crashes)
		if d := strings.Join(diagnostics(t, e, m, "fixture-crash-activation"), "\n"); !strings.Contains(d, "activation_failed: host crashed during activation") {
			t.Fatalf("diagnostics: %s", d)
		}
	})
}

// TestRefusalAndLogsInDiagnostics: a refused registration fails the activation with the
// reason an author can act on, nothing of it survives, and a log flood is rate-limited
// into the diagnostics ring.
func TestRefusalAndLogsInDiagnostics(t *testing.T) {
	eachRuntime(t, func(t *testing.T, rt testenv.Runtime) {
		e := newEnv(t, rt)
		e.install("name-clash", "log-flood")
		m := e.open(nil)
		reconcile(t, m)
		if hasTool(m, "echo_before_clash") || hasTool(m, "read_file") {
			t.Fatal("a registration of the refused plugin survived")
		}
		if o, ok := m.Owner("fixture-name-clash"); !ok || o.State != "failed" || !strings.Contains(o.Reason, "read_file") || len(o.Tools) != 0 {
			t.Fatalf("owner %+v", o)
		}
		if o, ok := m.Owner("fixture-log-flood"); !ok || o.State != "active" || !slices.Equal(o.Tools, []string{"flood_probe"}) || o.HostGeneration != 1 {
			t.Fatalf("owner %+v", o)
		}
		d := strings.Join(diagnostics(t, e, m, "fixture-name-clash"), "\n")
		if !strings.Contains(d, "refused: ") || !strings.Contains(d, "read_file") {
			t.Fatalf("diagnostics: %s", d)
		}
		logs := 0
		for _, line := range diagnostics(t, e, m, "fixture-log-flood") {
			if strings.HasPrefix(line, "log: ") {
				logs++
			}
		}
		if logs == 0 || logs > 20+5 {
			t.Fatalf("%d log lines recorded out of 200 (burst 20)", logs)
		}
		if !hasTool(m, "flood_probe") {
			t.Fatal("the flooding plugin is not live")
		}
	})
}

// TestHostStatusCommand: `cwx host status --json` starts the tier the enabled plugins need,
// reports it and shuts it down.
func TestHostStatusCommand(t *testing.T) {
	e := newEnv(t, testenv.Node(t))
	e.install("tool")
	cmd := exec.Command(cwxBin, "host", "status", "--json")
	cmd.Env = append(os.Environ(), "CWX_HOME="+e.home)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("cwx host status: %v: %s", err, out)
	}
	var st struct {
		Tiers []TierStatus `json:"tiers"`
	}
	if err := json.Unmarshal(out, &st); err != nil {
		t.Fatal(err)
	}
	if len(st.Tiers) != 2 || st.Tiers[0].State != supervisor.StateReady || st.Tiers[0].RuntimePID == 0 || st.Tiers[0].Owners != 1 || st.Tiers[1].State != supervisor.StateIdle {
		t.Fatalf("status: %s", out)
	}
}

// TestPublishedDSHPlugin: the published DSH session-log-export package runs unmodified and
// its `export` command answers.
func TestPublishedDSHPlugin(t *testing.T) {
	eachRuntime(t, func(t *testing.T, rt testenv.Runtime) {
		e := newEnv(t, rt)
		res, err := e.store.Install(plugintest.NpmTarball(t, plugintest.SessionLogExport))
		if err != nil {
			t.Fatal(err)
		}
		rev, err := e.store.Review(res.ID)
		if err != nil {
			t.Fatal(err)
		}
		if err := e.store.Trust(res.ID, rev.Token); err != nil {
			t.Fatal(err)
		}
		if err := e.store.Enable(res.ID); err != nil {
			t.Fatal(err)
		}
		m := e.open(nil)
		reconcile(t, m)
		o, ok := m.Owner(res.ID)
		if !ok || o.State != "active" || !slices.Contains(o.Commands, "export") {
			t.Fatalf("owner %+v", o)
		}
		cr, err := m.RunCommand(context.Background(), "export", "", CallOptions{Workspace: t.TempDir()})
		if err != nil {
			t.Fatal(err)
		}
		if cr.Kind != "success" && cr.Kind != "error" && cr.Kind != "submit" {
			t.Fatalf("export answered %+v", cr)
		}
		t.Logf("export: %s: %.200s", cr.Kind, cr.Text)
	})
}

// TestCloseIsBounded: Close shuts down a host whose event loop is blocked (host/shutdown
// unanswered) within the SIGTERM/SIGKILL bound, and the call in flight fails NotAvailable.
func TestCloseIsBounded(t *testing.T) {
	eachRuntime(t, func(t *testing.T, rt testenv.Runtime) {
		e := newEnv(t, rt)
		e.install("hang-tool")
		m := e.open(nil)
		reconcile(t, m)
		pid := m.Host(protocol.TierPlugin).RuntimePID
		done := make(chan error, 1)
		go func() {
			_, err := m.CallTool(context.Background(), "hang_probe", input(`{}`), CallOptions{})
			done <- err
		}()
		eventually(t, 5*time.Second, "call in flight", func() bool { return inflight(m, "fixture-hang-tool") == 1 })
		begin := time.Now()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := m.Close(ctx); err != nil {
			t.Fatal(err)
		}
		took := time.Since(begin)
		t.Logf("Close took %v", took)
		if err := <-done; !errors.Is(err, ErrNotAvailable) {
			t.Fatalf("call: %v", err)
		}
		eventually(t, 10*time.Second, "runtime gone after Close", func() bool { return processGone(pid) })
		if _, err := m.CallTool(context.Background(), "hang_probe", input(`{"ms":1}`), CallOptions{}); !errors.Is(err, ErrNotAvailable) {
			t.Fatalf("call after Close: %v", err)
		}
	})
}

// processGone reports whether pid has exited (no such process, or a zombie awaiting reaping).
func processGone(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i > 0 && i+2 < len(s) && s[i+2] == 'Z'
}
