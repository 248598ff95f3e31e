package supervisor

import (
	"context"
	"testing"
)

// TestReadyBeforeTheEndCompletesTheHandshake: when host/ready was noted and the
// incarnation has ended since, the handshake completed (the end is an exit after ready),
// every time, not at the whim of a select between the two.
func TestReadyBeforeTheEndCompletesTheHandshake(t *testing.T) {
	ready, done := make(chan struct{}), make(chan struct{})
	close(ready)
	close(done)
	inc := &incarnation{readyNote: ready, peerDone: done}
	var tr TierRuntime
	for i := range 200 {
		if err := tr.awaitReady(context.Background(), inc); err != nil {
			t.Fatalf("try %d: %v", i, err)
		}
	}
}
