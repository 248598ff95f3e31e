package cli

import (
	"context"
	"testing"

	"github.com/cwx-dev/cwx/core"
	"github.com/cwx-dev/cwx/core/protocol"
)

func TestHostStatusGoldens(t *testing.T) {
	f := newFakeCore()
	f.reconcile = func(_ context.Context, f *fakeCore) error {
		f.readyPlugin(4242, 3, 2)
		f.setTier(protocol.TierPlugin, func(s *core.TierStatus) { s.Crashes, s.UptimeMS, s.RuntimePGID, s.ShimPID = 2, 1500, 4242, 4240 })
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
