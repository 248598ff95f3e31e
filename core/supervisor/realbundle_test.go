package supervisor

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/cwx-dev/cwx/core/protocol"
	"github.com/cwx-dev/cwx/core/rpc"
	"github.com/cwx-dev/cwx/nodeshim/jshost"
	"github.com/cwx-dev/cwx/shared/testenv"
)

// TestRealBundle runs the committed JS extension host through the real shim on both
// runtimes and both tiers: handshake, a heartbeat, a clean bounded shutdown.
func TestRealBundle(t *testing.T) {
	bundle, err := filepath.Abs(filepath.Join("..", "..", "nodeshim", "jshost", "dist", "cwx-extension-host.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range testenv.Runtimes() {
		for _, tier := range []protocol.Tier{protocol.TierPlugin, protocol.TierBuiltin} {
			t.Run(want.Name+"/"+string(tier), func(t *testing.T) {
				rt := want.Get(t)
				tr, err := NewTier(Options{
					Tier: tier, Runtime: resolved(t, rt), BundlePath: bundle, BundleSHA256: jshost.BundleSHA256(),
					Dir: t.TempDir(), ShimPath: shimBin, Logger: testLogger(t),
				})
				if err != nil {
					t.Fatal(err)
				}
				h, err := ensure(t, tr)
				if err != nil {
					tr.Stop()
					t.Fatal(err)
				}
				m, err := h.Call(context.Background(), protocol.MethodHostPing, protocol.Empty{}, rpc.CallOpts{Timeout: 5 * time.Second})
				if err != nil || string(m.Result) != "{}" {
					t.Errorf("ping: %v", err)
				}
				st := tr.Status()
				rep := tr.Stop()
				if rep.TermSent || rep.Leaked {
					t.Errorf("the real host did not stop on host/shutdown: %+v", rep)
				}
				assertGone(t, st.ShimPID, st.RuntimePID)
				t.Logf("ready, pinged, stopped in %v", rep.Took)
			})
		}
	}
}
