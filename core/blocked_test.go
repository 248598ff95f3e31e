package core

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/cwx-dev/cwx/core/protocol"
	"github.com/cwx-dev/cwx/core/registry"
	"github.com/cwx-dev/cwx/core/supervisor"
	"github.com/cwx-dev/cwx/shared/testenv"
)

const blockedReason = "apply did not finish within 5s and blocked the host"

// TestBlockedActivationFound: an apply that never yields, activated together with an
// innocent plugin on a fresh host (the one-shot path, no heartbeat yet), is named as the
// culprit; the innocent plugin comes back and answers; the whole search counts as at most
// one crash.
func TestBlockedActivationFound(t *testing.T) {
	eachRuntime(t, func(t *testing.T, rt testenv.Runtime) {
		e := newEnv(t, rt)
		e.install("blocks-in-apply", "tool")
		m := e.open(nil)
		begin := time.Now()
		reconcile(t, m) // waits through the restarts until a host is ready
		t.Logf("reconcile returned after %v", time.Since(begin).Round(time.Millisecond))
		assertBlockedFound(t, e, m, 1)
	})
}

// TestBlockedActivationHeartbeat: in a long-lived Manager whose host is ready (the
// heartbeat runs), two plugins enabled together activate while one blocks the host; the
// heartbeat kill leaves both suspects, the replay one at a time names the culprit, and every
// other plugin (the one activated before, the innocent one) comes back.
func TestBlockedActivationHeartbeat(t *testing.T) {
	eachRuntime(t, func(t *testing.T, rt testenv.Runtime) {
		e := newEnv(t, rt)
		e.install("command")
		m := e.open(func(o *Options) {
			o.Tier = func(so *supervisor.Options) {
				so.HandshakeTimeout = 20 * time.Second
				so.HeartbeatInterval, so.UnresponsiveAfter, so.HangKillAfter = 300*time.Millisecond, time.Second, 2*time.Second
			}
		})
		reconcile(t, m)
		before := m.Host(protocol.TierPlugin)
		e.install("blocks-in-apply", "tool")
		reconcile(t, m)
		eventually(t, 30*time.Second, "the culprit named and the others live", func() bool {
			o, ok := m.reg.Owner("fixture-blocks-in-apply")
			c, live := m.reg.Owner("fixture-command")
			return ok && o.State == registry.Failed && live && c.State == registry.Active && innocentBack(m)
		})
		after := assertBlockedFound(t, e, m, 1)
		if after.Generation <= before.Generation {
			t.Fatalf("host %+v → %+v", before, after)
		}
	})
}

// TestBlockedActivationAlone: a blocking apply activated alone on a ready host is named at
// once (its activation is the only one in flight), and the restart does not count as a
// crash: the plugin is failed and never replayed.
func TestBlockedActivationAlone(t *testing.T) {
	eachRuntime(t, func(t *testing.T, rt testenv.Runtime) {
		e := newEnv(t, rt)
		e.install("tool")
		m := e.open(nil)
		reconcile(t, m)
		e.install("blocks-in-apply")
		reconcile(t, m)
		eventually(t, 20*time.Second, "the culprit named and the other live", func() bool {
			o, ok := m.reg.Owner("fixture-blocks-in-apply")
			return ok && o.State == registry.Failed && innocentBack(m)
		})
		if h := assertBlockedFound(t, e, m, 0); h.Crashes != 0 {
			t.Fatalf("host %+v: a blocked activation named at once counted as a crash", h)
		}
	})
}

// innocentBack reports whether the innocent plugin is active on a ready host (its tool is
// listed while it still activates, before the host is reported ready).
func innocentBack(m *Manager) bool {
	o, ok := m.reg.Owner("fixture-tool")
	return ok && o.State == registry.Active && m.Host(protocol.TierPlugin).State == supervisor.StateReady
}

// assertBlockedFound checks the culprit's failure, its diagnostic, the innocent tool's
// answer and a ready host with at most maxCrashes crashes.
func assertBlockedFound(t *testing.T, e *env, m *Manager, maxCrashes int) HostInfo {
	t.Helper()
	o, ok := m.reg.Owner("fixture-blocks-in-apply")
	if !ok || o.State != registry.Failed || o.Reason != blockedReason {
		t.Fatalf("culprit %+v, want failed with %q", o, blockedReason)
	}
	if inno, ok := m.reg.Owner("fixture-tool"); !ok || inno.State != registry.Active {
		t.Fatalf("innocent %+v", inno)
	}
	res, err := m.CallTool(context.Background(), "echo_text", input(`{"text":"back"}`), CallOptions{})
	if err != nil || res.Text() != `{"echoed":"back"}` {
		t.Fatalf("innocent tool: %+v, %v", res, err)
	}
	d := strings.Join(diagnostics(t, e, m, "fixture-blocks-in-apply"), "\n")
	if !strings.Contains(d, "activation_failed"+": "+blockedReason) {
		t.Fatalf("diagnostics: %s", d)
	}
	h := m.Host(protocol.TierPlugin)
	if h.State != supervisor.StateReady || h.Crashes > maxCrashes {
		t.Fatalf("host %+v, want ready with at most %d crashes", h, maxCrashes)
	}
	t.Logf("host generation %d, crashes %d", h.Generation, h.Crashes)
	return h
}

// TestCallWhileAnotherActivationBlocks: a call to an innocent tool made while another
// plugin's apply has blocked the shared host is not lost with that host: it waits for the
// host to answer a ping, and when the host is ended for the hang instead, it is sent to the
// next incarnation, where it answers. Without the ping the call is sent to the blocked host
// and fails "extension host exited".
func TestCallWhileAnotherActivationBlocks(t *testing.T) {
	eachRuntime(t, func(t *testing.T, rt testenv.Runtime) {
		e := newEnv(t, rt)
		e.install("tool")
		m := e.open(func(o *Options) {
			o.Tier = func(so *supervisor.Options) {
				so.HandshakeTimeout = 20 * time.Second
				so.HeartbeatInterval, so.UnresponsiveAfter, so.HangKillAfter = 300*time.Millisecond, time.Second, 2*time.Second
			}
		})
		reconcile(t, m)
		before := m.Host(protocol.TierPlugin)
		e.install("blocks-in-apply")
		done := make(chan error, 1)
		go func() { done <- m.Reconcile(context.Background()) }()
		// the host stops answering its heartbeat once the blocking apply runs
		eventually(t, 20*time.Second, "the host blocked by the apply", func() bool {
			o, ok := m.reg.Owner("fixture-blocks-in-apply")
			return ok && o.State == registry.Activating && m.Host(protocol.TierPlugin).State == supervisor.StateUnresponsive
		})
		res, err := m.CallTool(context.Background(), "echo_text", input(`{"text":"during"}`), CallOptions{})
		if err != nil || res.Text() != `{"echoed":"during"}` {
			t.Fatalf("innocent tool during the blocked activation: %+v, %v", res, err)
		}
		if after := m.Host(protocol.TierPlugin); after.Generation <= before.Generation {
			t.Fatalf("host %+v → %+v: the call was answered by the blocked incarnation", before, after)
		}
		if err := <-done; err != nil {
			t.Logf("reconcile: %v", err)
		}
	})
}
