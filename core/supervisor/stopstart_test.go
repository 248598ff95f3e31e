package supervisor

import (
	"bytes"
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/cwx-dev/cwx/core/protocol"
	"github.com/cwx-dev/cwx/shared/testenv"
)

// logBuffer collects a tier's log lines (and passes them to the test log).
type logBuffer struct {
	t  testing.TB
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.t.Log(strings.TrimRight(string(p), "\n"))
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// activatingOwners blocks HostReady until the start is cancelled, like a Manager whose
// plugins are still activating, and records the exits it is told of.
type activatingOwners struct {
	entered chan *Host
	mu      sync.Mutex
	exits   []ExitInfo
}

func (a *activatingOwners) HostReady(ctx context.Context, _ protocol.HostKey, _ uint64, h *Host) error {
	a.entered <- h
	<-ctx.Done()
	return ctx.Err()
}

func (a *activatingOwners) HostExited(_ protocol.HostKey, _ uint64, info ExitInfo) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.exits = append(a.exits, info)
}

func (a *activatingOwners) HandleRequest(context.Context, protocol.HostKey, uint64, *protocol.Message) (any, error) {
	return protocol.Empty{}, nil
}

func (a *activatingOwners) HandleNotification(protocol.HostKey, uint64, *protocol.Message) {}

// conformStopWhileStarting: Stop during a start (the handshake, or the owner layer's
// activations) is a planned shutdown. Nothing is logged as an error (go-plugin logs a
// shim's exit by signal at ERROR unless told it was planned), a host that got through the
// handshake is shut down cooperatively, and the processes are gone.
func conformStopWhileStarting(t *testing.T, rt testenv.Runtime) {
	t.Run("during_activation", func(t *testing.T) {
		logs := &logBuffer{t: t}
		owners := &activatingOwners{entered: make(chan *Host, 1)}
		tr := newTier(t, rt, "good", func(o *Options) {
			o.Owners = owners
			o.Logger = hclog.New(&hclog.LoggerOptions{Name: "cwx", Level: hclog.Debug, Output: logs})
		})
		go func() { _, _ = tr.Ensure(context.Background()) }()
		var h *Host
		select {
		case h = <-owners.entered:
		case <-time.After(20 * time.Second):
			t.Fatal("HostReady was never called")
		}
		if st := tr.Status(); st.State != StateStarting {
			t.Fatalf("state %s during HostReady, want starting", st.State)
		}
		tr.Stop()
		assertGone(t, h.inc.shimPID, h.inc.rt.PID)
		if strings.Contains(logs.String(), "[ERROR]") {
			t.Errorf("a planned stop was logged as an error:\n%s", logs)
		}
		if !strings.Contains(logs.String(), `plugin process exited: plugin=`+shimBin+` id=`) || strings.Contains(logs.String(), "signal: killed") {
			t.Errorf("the shim did not exit on its own after the host's shutdown:\n%s", logs)
		}
		owners.mu.Lock()
		defer owners.mu.Unlock()
		if len(owners.exits) != 1 || !owners.exits[0].Planned {
			t.Errorf("owner layer told of exits %+v, want one planned", owners.exits)
		}
	})
	t.Run("during_handshake", func(t *testing.T) {
		logs := &logBuffer{t: t}
		tr := newTier(t, rt, "silent", func(o *Options) {
			o.Logger = hclog.New(&hclog.LoggerOptions{Name: "cwx", Level: hclog.Debug, Output: logs})
		})
		go func() { _, _ = tr.Ensure(context.Background()) }()
		deadline := time.Now().Add(20 * time.Second)
		for !strings.Contains(logs.String(), "using plugin") { // the shim is up; the host never says hello
			if time.Now().After(deadline) {
				t.Fatalf("the shim never started:\n%s", logs)
			}
			time.Sleep(5 * time.Millisecond)
		}
		tr.Stop()
		if st := tr.Status(); st.State != StateStopped || st.Crashes != 0 {
			t.Errorf("after Stop: %+v", st)
		}
		if strings.Contains(logs.String(), "[ERROR]") {
			t.Errorf("a planned stop was logged as an error:\n%s", logs)
		}
	})
}
