package supervisor

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/cwx-dev/cwx/core/protocol"
	"github.com/cwx-dev/cwx/core/rpc"
	"github.com/cwx-dev/cwx/shared"
)

// heartbeat pings the host every HeartbeatInterval until the incarnation ends. A ping
// unanswered for UnresponsiveAfter makes the tier Unresponsive (new calls refused); an
// answer makes it Ready again (for this generation only); HangKillAfter without an answer
// kills both process groups from a timer goroutine that never touches the writer. The
// answer must be exactly {}: core/protocol refuses anything else, which ends the
// incarnation as a protocol violation.
func (t *TierRuntime) heartbeat(inc *incarnation) {
	for t.sleep(inc) {
		t.beat(inc)
	}
}

func (t *TierRuntime) sleep(inc *incarnation) bool {
	fired := make(chan struct{})
	tm := t.o.Clock.AfterFunc(t.o.HeartbeatInterval, func() { close(fired) })
	defer tm.Stop()
	select {
	case <-fired:
		return true
	case <-inc.peerDone:
		return false
	}
}

func (t *TierRuntime) beat(inc *incarnation) {
	unresp := t.o.Clock.AfterFunc(t.o.UnresponsiveAfter, func() { t.markUnresponsive(inc) })
	kill := t.o.Clock.AfterFunc(t.o.HangKillAfter, func() {
		if inc.conn != nil { // before the kill: the calls' end reads it
			inc.conn.hung.Store(int64(t.o.HangKillAfter))
		}
		reason := fmt.Sprintf("heartbeat timed out: host/ping unanswered for %s", t.o.HangKillAfter)
		if b := inc.busyOwner(); b != nil {
			reason += fmt.Sprintf(" while a callback of plugin %s ran", b.PluginID)
		}
		inc.kill(reason)
	})
	defer unresp.Stop()
	defer kill.Stop()
	if _, err := inc.peer.Call(context.Background(), protocol.MethodHostPing, protocol.Empty{}, rpc.CallOpts{Heartbeat: true}); err == nil {
		t.markResponsive(inc)
	}
}

func (t *TierRuntime) markUnresponsive(inc *incarnation) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.cur == inc && t.state == StateReady {
		t.o.Logger.Warn("extension host unresponsive", "generation", inc.gen, "after", t.o.UnresponsiveAfter)
		t.setStateLocked(StateUnresponsive)
	}
}

func (t *TierRuntime) markResponsive(inc *incarnation) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.cur == inc && t.state == StateUnresponsive {
		t.o.Logger.Info("extension host answered again", "generation", inc.gen)
		t.setStateLocked(StateReady)
	}
}

// kill records why the core killed this incarnation (first reason wins) and SIGKILLs both
// process groups.
func (inc *incarnation) kill(reason string) {
	inc.reasonMu.Lock()
	if inc.reason == "" {
		inc.reason = reason
	}
	inc.reasonMu.Unlock()
	inc.signalGroups(syscall.SIGKILL)
}

func (inc *incarnation) killReason() string {
	inc.reasonMu.Lock()
	defer inc.reasonMu.Unlock()
	return inc.reason
}

// HangError is why the calls in flight failed when the heartbeat killed their host: the
// supervisor's reason, not the broken stream's text, which it wraps. The tier restarts
// within its crash budget (ARCHITECTURE.md, “Lifecycles and numbers”).
type HangError struct {
	Tier  protocol.Tier
	After time.Duration // the tier's HangKillAfter
	Err   error         // how the channel ended
}

func (e *HangError) Error() string {
	return fmt.Sprintf("the %s tier was restarted: host/ping unanswered for %s", e.Tier, e.After)
}

func (e *HangError) Unwrap() error { return e.Err }

// hangConn is an incarnation's Channel as its peer reads it: once the heartbeat killed the
// host, the end of the stream reads as a *HangError, so every call the peer fails carries
// the reason.
type hangConn struct {
	*shared.Channel
	tier protocol.Tier
	hung atomic.Int64 // HangKillAfter in nanoseconds once the heartbeat killed the host
}

// the Channel's SendParts: a result's attachment is never joined to its text
var _ rpc.PartsConn = (*hangConn)(nil)

func (c *hangConn) Recv() ([]byte, error) {
	b, err := c.Channel.Recv()
	if err == nil {
		return b, nil
	}
	if d := c.hung.Load(); d != 0 {
		if errors.Is(err, io.EOF) {
			err = errHostClosedStream
		}
		err = &HangError{Tier: c.tier, After: time.Duration(d), Err: err}
	}
	return b, err
}

var errHostClosedStream = errors.New("the host closed its stream")
