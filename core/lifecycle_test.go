package core

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/cwx-dev/cwx/core/gate"
	"github.com/cwx-dev/cwx/core/protocol"
	"github.com/cwx-dev/cwx/core/registry"
)

var twoPlugins = map[string][]string{"fixture-tool": {"alpha"}, "fixture-command": {"beta"}}

// TestRevokeCancelsCallsThenDeactivates: revocation resolves the call in flight
// Cancelled("extension was revoked") before ext/deactivate is sent, and an unclean answer
// is a dirty teardown reported to the tier.
func TestRevokeCancelsCallsThenDeactivates(t *testing.T) {
	m, ft, e := newFake(t, twoPlugins, "tool", "command")
	reconcile(t, m)
	ft.mu.Lock()
	ft.block = true
	ft.deactivate.Disposed = false
	ft.deactivate.Leaked = []string{"effect:timer"}
	ft.mu.Unlock()
	done := make(chan error, 1)
	go func() {
		_, err := m.CallTool(context.Background(), "alpha", input(`{"n":1}`), CallOptions{})
		done <- err
	}()
	waitFor(t, "call in flight", func() bool { return inflight(m, "fixture-tool") == 1 })
	if err := e.store.Disable("fixture-tool"); err != nil {
		t.Fatal(err)
	}
	reconcile(t, m)
	err := <-done
	if !errors.Is(err, ErrCancelled) || !strings.Contains(err.Error(), "extension was revoked") {
		t.Fatalf("call: %v", err)
	}
	ft.mu.Lock()
	sent, dirty := strings.Join(ft.sent, ","), ft.dirty
	ft.mu.Unlock()
	if !strings.HasSuffix(sent, "tool/call,ext/deactivate") || dirty != 1 {
		t.Fatalf("sent %s, dirty %d", sent, dirty)
	}
	if hasTool(m, "alpha") || !hasTool(m, "beta") {
		t.Fatalf("tools after revoke: %+v", m.Tools())
	}
	if d := strings.Join(diagnostics(t, e, m, "fixture-tool"), "\n"); !strings.Contains(d, "dirty_teardown: disposed false, leaked [effect:timer]") {
		t.Fatalf("diagnostics: %s", d)
	}
}

// TestHostExitReplay: after a host exit the sole activating owner is failed and not
// replayed; the others come back under fresh generations; a reload retries the failed one.
func TestHostExitReplay(t *testing.T) {
	m, ft, _ := newFake(t, twoPlugins, "tool", "command")
	release := make(chan struct{})
	ft.activateGate["fixture-tool"] = release
	done := make(chan error, 1)
	go func() { done <- m.Reconcile(context.Background()) }()
	waitFor(t, "the other plugin is live", func() bool { return hasTool(m, "beta") })
	// the two activations run side by side: the crash must come while fixture-tool's is on the host
	waitFor(t, "fixture-tool activating", func() bool { return ft.activations("fixture-tool") == 1 })
	a, b := ownerOf(t, m, "fixture-tool").Ref, ownerOf(t, m, "fixture-command").Ref
	ft.kill(&a)
	close(release)
	<-done
	delete(ft.activateGate, "fixture-tool")
	if hasTool(m, "alpha") || hasTool(m, "beta") {
		t.Fatal("registrations survived the host")
	}
	ft.start(context.Background())
	if ownerOf(t, m, "fixture-tool").State != registry.Failed || ft.activations("fixture-tool") != 1 {
		t.Fatal("the owner blamed for the crash was replayed")
	}
	nb := ownerOf(t, m, "fixture-command")
	if nb.State != registry.Active || nb.Ref.Generation == b.Generation || nb.Ref.OwnerToken == b.OwnerToken {
		t.Fatalf("replayed owner %+v (was %+v)", nb, b)
	}
	if m.Host(protocol.TierPlugin).Crashes != 1 {
		t.Fatal("crash not counted")
	}
	reconcile(t, m)
	if ft.activations("fixture-tool") != 1 {
		t.Fatal("reconcile retried a failed plugin")
	}
	if err := m.Reload(context.Background()); err != nil {
		t.Fatal(err)
	}
	if !hasTool(m, "alpha") {
		t.Fatal("reload did not retry the failed plugin")
	}
}

// TestSlowActivationDelaysNoOther: one plugin's activation hangs; the other is live meanwhile.
func TestSlowActivationDelaysNoOther(t *testing.T) {
	m, ft, _ := newFake(t, twoPlugins, "tool", "command")
	release := make(chan struct{})
	ft.activateGate["fixture-tool"] = release
	done := make(chan error, 1)
	go func() { done <- m.Reconcile(context.Background()) }()
	waitFor(t, "the fast plugin is live", func() bool { return hasTool(m, "beta") })
	if hasTool(m, "alpha") {
		t.Fatal("the slow plugin was live before its activation ended")
	}
	close(release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if !hasTool(m, "alpha") {
		t.Fatal("slow plugin not live")
	}
}

// TestFailedActivationHeldBack: a failed activation drops what the owner registered, is
// recorded, and is not retried by reconcile.
func TestFailedActivationHeldBack(t *testing.T) {
	m, ft, e := newFake(t, twoPlugins, "tool", "command")
	ft.activateFail["fixture-tool"] = "Error: apply threw"
	reconcile(t, m)
	if hasTool(m, "alpha") || !hasTool(m, "beta") {
		t.Fatalf("tools: %+v", m.Tools())
	}
	reconcile(t, m)
	if ft.activations("fixture-tool") != 1 {
		t.Fatal("failed plugin retried by reconcile")
	}
	if d := strings.Join(diagnostics(t, e, m, "fixture-tool"), "\n"); !strings.Contains(d, "activation_failed: Error: apply threw") {
		t.Fatalf("diagnostics: %s", d)
	}
}

// TestFaultNotification: ext/faulted drops the owner's tools and fails its calls
// NotAvailable; a fault naming a stale owner changes nothing.
func TestFaultNotification(t *testing.T) {
	m, ft, _ := newFake(t, twoPlugins, "tool", "command")
	reconcile(t, m)
	ft.mu.Lock()
	ft.block = true
	ft.mu.Unlock()
	ref := ownerOf(t, m, "fixture-tool").Ref
	done := make(chan error, 1)
	go func() {
		_, err := m.CallTool(context.Background(), "alpha", input(`{}`), CallOptions{})
		done <- err
	}()
	waitFor(t, "call in flight", func() bool { return inflight(m, "fixture-tool") == 1 })
	stale := ref
	stale.OwnerToken = strings.Repeat("0", 64)
	m.own.HandleNotification(pluginHost, 1, &protocol.Message{Method: protocol.MethodExtFaulted, Value: &protocol.FaultedParams{Owner: stale, Error: "x"}})
	m.own.HandleNotification(pluginHost, 2, &protocol.Message{Method: protocol.MethodExtFaulted, Value: &protocol.FaultedParams{Owner: ref, Error: "x"}})
	if !hasTool(m, "alpha") {
		t.Fatal("a stale fault or one from another incarnation took effect")
	}
	m.own.HandleNotification(pluginHost, 1, &protocol.Message{Method: protocol.MethodExtFaulted, Value: &protocol.FaultedParams{Owner: ref, Error: "boom"}})
	if err := <-done; !errors.Is(err, ErrNotAvailable) || !strings.Contains(err.Error(), "extension faulted: boom") {
		t.Fatalf("call: %v", err)
	}
	if hasTool(m, "alpha") || ownerOf(t, m, "fixture-tool").State != registry.Faulted || !hasTool(m, "beta") {
		t.Fatal("fault not applied to exactly that owner")
	}
}

// TestHostRequests: core/call is refused -32002, hooks and prompt sections are refused "not
// supported yet", callbacks from another incarnation are stale.
func TestHostRequests(t *testing.T) {
	m, _, _ := newFake(t, twoPlugins, "tool", "command")
	reconcile(t, m)
	ref := ownerOf(t, m, "fixture-tool").Ref
	_, err := m.own.HandleRequest(context.Background(), pluginHost, 1, &protocol.Message{Method: protocol.MethodCoreCall, Value: &protocol.CoreCallParams{Owner: ref, Name: "read_file"}})
	var re *protocol.RPCError
	if !errors.As(err, &re) || re.Code != protocol.CodeRefused {
		t.Fatalf("core/call: %v", err)
	}
	for _, c := range []struct {
		kind protocol.RegisterKind
		gen  uint64
		want string
	}{
		{protocol.KindHook, 1, "is not one cwx emits"},
		{protocol.KindCommand, 2, "stale or unknown owner"},
	} {
		p := &protocol.RegisterParams{Owner: ref, Kind: c.kind, Spec: protocol.RegisterSpec{Name: "thing", Description: "d"}}
		out, err := m.own.HandleRequest(context.Background(), pluginHost, c.gen, &protocol.Message{Method: protocol.MethodRegistryRegister, Value: p})
		r, _ := out.(protocol.RegisterResult)
		if err != nil || r.Refused == nil || !strings.Contains(*r.Refused, c.want) {
			t.Errorf("%s from generation %d: %+v, %v", c.kind, c.gen, r, err)
		}
	}
	// an unregister from another incarnation is a no-op
	h, _ := m.reg.Tool("alpha")
	m.own.HandleRequest(context.Background(), pluginHost, 2, &protocol.Message{Method: protocol.MethodRegistryUnregister, Value: &protocol.UnregisterParams{Owner: ref, Handle: h.Handle}})
	if !hasTool(m, "alpha") {
		t.Fatal("stale unregister removed a tool")
	}
}

// TestCallToolPassesContext: the tool/call carries the caller's ids, the 120 s deadline and
// a fresh call id; a tool call after the owner ended is NotAvailable.
func TestCallToolPassesContext(t *testing.T) {
	m, ft, _ := newFake(t, twoPlugins, "tool", "command")
	reconcile(t, m)
	opts := CallOptions{Workspace: "/w", SessionID: "s", AgentID: "a", OriginTurnID: "t"}
	for range 2 {
		if _, err := m.CallTool(context.Background(), "alpha", input(`{"n":2}`), opts); err != nil {
			t.Fatal(err)
		}
	}
	ft.mu.Lock()
	c0, c1 := ft.calls[0], ft.calls[1]
	ft.mu.Unlock()
	if c0.Workspace != "/w" || c0.SessionID != "s" || c0.AgentID != "a" || c0.OriginTurnID != "t" || c0.DeadlineMS != 120000 || c0.CallID == c1.CallID {
		t.Fatalf("tool/call params %+v / %+v", c0, c1)
	}
	if _, err := m.CallTool(context.Background(), "alpha", input(`{"n":"two"}`), opts); !errors.Is(err, ErrInvalidInput) {
		t.Fatalf("invalid: %v", err)
	}
}

// TestApprovalKeyFollowsClosure: "allow for session" covers exactly the key; a new build of
// the plugin (another closure hash, reviewed and trusted again) is asked again.
func TestApprovalKeyFollowsClosure(t *testing.T) {
	m, _, e := newFake(t, twoPlugins, "tool", "command")
	a := &approver{d: gate.AllowSession}
	m.gate = gate.New(gate.Ask, nil)
	reconcile(t, m)
	for range 2 {
		if _, err := m.CallTool(context.Background(), "alpha", input(`{"n":1}`), CallOptions{Approver: a}); err != nil {
			t.Fatal(err)
		}
	}
	if a.asked() != 1 {
		t.Fatalf("asked %d times, want 1", a.asked())
	}
	e.installNewBuild("tool")
	reconcile(t, m) // the old receipt no longer holds: revoked
	if hasTool(m, "alpha") {
		t.Fatal("a plugin whose bytes changed stayed live")
	}
	rev, err := e.store.Review("fixture-tool")
	if err != nil {
		t.Fatal(err)
	}
	if err := e.store.Trust("fixture-tool", rev.Token); err != nil {
		t.Fatal(err)
	}
	reconcile(t, m)
	if _, err := m.CallTool(context.Background(), "alpha", input(`{"n":1}`), CallOptions{Approver: a}); err != nil {
		t.Fatal(err)
	}
	if a.asked() != 2 || a.cards[0].Key == a.cards[1].Key || !strings.Contains(a.cards[1].Key, rev.Closure) {
		t.Fatalf("asked %d; keys %q, %q", a.asked(), a.cards[0].Key, a.cards[len(a.cards)-1].Key)
	}
}

// TestCancelledReconcileRetries: an activation whose Reconcile was cancelled is not held
// back as failed; the next Reconcile activates the plugin.
func TestCancelledReconcileRetries(t *testing.T) {
	m, ft, _ := newFake(t, twoPlugins, "tool", "command")
	ft.activateGate["fixture-tool"] = make(chan struct{}) // never released
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- m.Reconcile(ctx) }()
	waitFor(t, "the other plugin live", func() bool { return hasTool(m, "beta") })
	waitFor(t, "fixture-tool activating", func() bool { return ft.activations("fixture-tool") == 1 })
	cancel()
	<-done
	if o, ok := m.Owner("fixture-tool"); !ok || o.State != "revoked" {
		t.Fatalf("owner after a cancelled activation: %+v", o)
	}
	delete(ft.activateGate, "fixture-tool")
	reconcile(t, m)
	if !hasTool(m, "alpha") || ft.activations("fixture-tool") != 2 {
		t.Fatalf("not retried: %d activations", ft.activations("fixture-tool"))
	}
}
