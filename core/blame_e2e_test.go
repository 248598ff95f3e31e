package core

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/cwx-dev/cwx/core/protocol"
	"github.com/cwx-dev/cwx/core/registry"
	"github.com/cwx-dev/cwx/core/supervisor"
	"github.com/cwx-dev/cwx/shared/testenv"
)

// TestCrashKindsBlame: a plugin beside a guard (a pre-execute hook that denies list_dir)
// arms a timer that ends or blocks the host one way or another; each kind gets
// the blame ARCHITECTURE.md (“Lifecycles and numbers”, Blame) gives it. An attempt to end
// the host (process.kill of itself, process.abort) is refused and faults the plugin, the
// host living on; an endless loop is killed by the heartbeat and blamed on the timer's
// owner, which is failed and not replayed; a throw from an EventEmitter listener faults its
// owner; running out of memory ends the host unattributed on Node (on Bun it is a RangeError
// in the timer, which faults its owner). Whenever a plugin was blamed, the guard stays live
// and its denial stands.
func TestCrashKindsBlame(t *testing.T) {
	const id = "fixture-crash-kinds"
	cases := []struct {
		kind    string
		state   registry.State // of the plugin once settled; 0 for replayed (unattributed)
		reason  string         // in its reason and in the tier's last_blame
		crashes int            // the tier's crashes once settled (at least, for oom)
	}{
		{"kill", registry.Faulted, "tried to end the extension host: HostEndRefused: `process.kill(", 0},
		{"abort", registry.Faulted, "`process.abort()` is refused", 0},
		{"loop", registry.Failed, "a callback of the plugin did not return and blocked the host", 1},
		{"listener", registry.Faulted, "thrown in a listener", 0},
		{"oom", 0, "", 1},
	}
	// Bun's JavaScriptCore throws a RangeError where Node's V8 ends the process: out of
	// memory there is an uncaught exception of the timer's owner, which faults it.
	bunOOM := struct {
		state   registry.State
		reason  string
		crashes int
	}{registry.Faulted, "RangeError: Out of memory", 0}
	eachRuntime(t, func(t *testing.T, rt testenv.Runtime) {
		for _, c := range cases {
			if c.kind == "oom" && rt.Name == "bun" {
				c.state, c.reason, c.crashes = bunOOM.state, bunOOM.reason, bunOOM.crashes
			}
			t.Run(c.kind, func(t *testing.T) {
				e := newEnv(t, rt)
				if c.kind == "oom" { // [extension_host]: the smallest limit the runtime takes, out of memory sooner
					e.writeConfig(fmt.Sprintf("memory_limit_mib = %d\n", map[string]int{"node": 256, "bun": 384}[rt.Name]))
				}
				e.install("hooks", "crash-kinds")
				m := e.open(func(o *Options) {
					o.Tier = func(so *supervisor.Options) {
						so.HandshakeTimeout = 20 * time.Second
						so.HeartbeatInterval = 100 * time.Millisecond
						so.UnresponsiveAfter = 300 * time.Millisecond
						so.HangKillAfter = 1500 * time.Millisecond
						if c.kind == "oom" { // out of memory, not the heartbeat, ends that host
							so.HangKillAfter = time.Minute
						}
						so.RestartBackoff = 50 * time.Millisecond
					}
				})
				reconcile(t, m)
				// a timer of the plugin, armed once every activation finished
				if res, err := m.CallTool(context.Background(), "crash_kinds_arm", input(fmt.Sprintf(`{"kind":%q,"later":true}`, c.kind)), CallOptions{}); err != nil || len(res.Content) != 1 || res.Content[0].Text != "armed" {
					t.Fatalf("arm: %v %+v", err, res)
				}
				status := func() TierStatus { return m.Status()[0] }
				if c.state == 0 {
					eventually(t, 60*time.Second, "the host ended unattributed", func() bool { return status().Crashes >= c.crashes })
					st := status()
					if st.LastBlame != "" || !strings.Contains(st.LastFailure, "memory") {
						t.Fatalf("status %+v: want no blame and a failure naming memory", st)
					}
					if o, ok := m.reg.Owner(id); ok && (o.State == registry.Failed || o.State == registry.Faulted) {
						t.Fatalf("the plugin was blamed: %+v", o)
					}
					return
				}
				eventually(t, 30*time.Second, "the plugin blamed", func() bool {
					o, ok := m.reg.Owner(id)
					return ok && o.State == c.state && m.Host(protocol.TierPlugin).State == supervisor.StateReady && m.reg.ActiveOwners(pluginHost) == 1
				})
				o := ownerOf(t, m, id)
				st := status()
				if !strings.Contains(o.Reason, c.reason) || !strings.Contains(st.LastBlame, "plugin `"+id+"`") || !strings.Contains(st.LastBlame, c.reason) {
					t.Fatalf("reason %q, last blame %q; want both to say %q", o.Reason, st.LastBlame, c.reason)
				}
				if st.Crashes != c.crashes {
					t.Fatalf("%d crashes, want %d (status %+v)", st.Crashes, c.crashes, st)
				}
				if c.crashes == 0 && st.Generation != 1 {
					t.Fatalf("generation %d: the host should have lived on", st.Generation)
				}
				if hasTool(m, "crash_kinds_live") {
					t.Fatal("the blamed plugin's tool is still live")
				}
				ws := t.TempDir()
				if _, err := m.CallTool(context.Background(), "list_dir", input(`{"path":"."}`), CallOptions{Workspace: ws}); !errors.Is(err, ErrDenied) ||
					!strings.Contains(err.Error(), "plugin `fixture-hooks` denied the call") {
					t.Fatalf("the guard's denial did not stand: %v", err)
				}
				if d := strings.Join(diagnostics(t, e, m, id), "\n"); !strings.Contains(d, c.reason) {
					t.Fatalf("diagnostics: %s", d)
				}
			})
		}
	})
}
