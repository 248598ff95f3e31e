package cli

import (
	"context"
	"testing"

	"github.com/cwx-dev/cwx/core"
	"github.com/cwx-dev/cwx/core/protocol"
	"github.com/cwx-dev/cwx/core/supervisor"
)

func TestHostStatusGoldens(t *testing.T) {
	f := newFakeCore()
	f.reconcile = func(_ context.Context, f *fakeCore) error {
		f.readyPlugin(4242, 3, 2)
		f.setTier(protocol.TierPlugin, func(s *core.TierStatus) {
			s.Crashes, s.UptimeMS, s.RuntimePGID, s.ShimPID = 2, 1500, 4242, 4240
			s.Plugins = []string{"fixture-a", "fixture-b"}
		})
		f.mu.Lock()
		f.own = []core.TierStatus{{TierStatus: supervisor.TierStatus{Tier: protocol.TierPlugin, Group: "fixture-solo", State: supervisor.StateReady,
			Generation: 4, ShimPID: 4300, RuntimePID: 4301, Runtime: "node", RuntimeVersion: "v22.23.5", UptimeMS: 200, Crashes: 3},
			Owners: 1, Plugins: []string{"fixture-solo"}, LastBlame: "plugin `fixture-solo`: its own host ended: killed by signal 9",
			Sandbox: "sandboxed: bubblewrap; its own host: only this plugin's files"}}
		f.mu.Unlock()
		return nil
	}
	useFake(t, f)
	checkGolden(t, "host-status.golden", []byte(mustRun(t, "host", "status")))
	checkGolden(t, "host-status-json.golden", []byte(mustRun(t, "host", "status", "--json")))
	if got := f.log; len(got) != 2 || got[0] != "reconcile" {
		t.Fatalf("calls: %v", got)
	}
}

func TestHostStatusUsage(t *testing.T) {
	if code, _, _ := runCLI("host", "status", "extra"); code != ExitUsage {
		t.Fatalf("exit %d, want %d", code, ExitUsage)
	}
}

func mustRun(t *testing.T, args ...string) string {
	t.Helper()
	code, out, errOut := runCLI(args...)
	if code != 0 {
		t.Fatalf("exit %d: %s%s", code, out, errOut)
	}
	return out
}
