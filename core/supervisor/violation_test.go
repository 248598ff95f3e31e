package supervisor

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/cwx-dev/cwx/core/protocol"
	"github.com/cwx-dev/cwx/core/rpc"
	"github.com/cwx-dev/cwx/shared/testenv"
)

// violatingOwners finds every host request a protocol violation (as the Manager finds a
// burst of invalid tickets).
type violatingOwners struct{ blockingOwners }

func (*violatingOwners) HandleRequest(context.Context, protocol.HostKey, uint64, *protocol.Message) (any, error) {
	return nil, fmt.Errorf("%w: too many invalid tickets", rpc.ErrViolation)
}

// TestOwnerLayerViolationEndsTheHost: a host request the owner layer answers with
// rpc.ErrViolation ends the incarnation as a protocol violation, and the process is gone.
func TestOwnerLayerViolationEndsTheHost(t *testing.T) {
	for _, want := range testenv.Runtimes() {
		t.Run(want.Name, func(t *testing.T) {
			rt := want.Get(t)
			owners := &violatingOwners{}
			tr := newTier(t, rt, "core-call", func(o *Options) { o.Owners = owners })
			if _, err := ensure(t, tr); err != nil {
				t.Fatal(err)
			}
			pids := tr.Status()
			waitFor(t, tr, "the violation is recorded", func(st TierStatus) bool {
				return strings.Contains(st.LastFailure, "too many invalid tickets")
			})
			assertGone(t, pids.ShimPID, pids.RuntimePID)
			if got := owners.exits(); len(got) < 1 || got[0] != 1 {
				t.Errorf("owner layer told of exits %v, want generation 1", got)
			}
		})
	}
}
