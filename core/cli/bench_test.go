package cli

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/cwx-dev/cwx/core"
	"github.com/cwx-dev/cwx/core/protocol"
	"github.com/cwx-dev/cwx/core/supervisor"
)

func TestProgressLine(t *testing.T) {
	tests := []struct {
		name     string
		terminal bool
		steps    []string
		want     string
	}{
		{"terminal", true, []string{"calls 1/3", "calls 2/3", ""}, "\r\x1b[Kcwx bench: calls 1/3\r\x1b[Kcwx bench: calls 2/3\r\x1b[K"},
		{"not a terminal", false, []string{"calls 1/3", ""}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			old := isTerminal
			isTerminal = func(any) bool { return tt.terminal }
			t.Cleanup(func() { isTerminal = old })
			var buf bytes.Buffer
			p := progressLine(&buf)
			for _, s := range tt.steps {
				p(s)
			}
			if buf.String() != tt.want {
				t.Errorf("progress wrote %q, want %q", buf.String(), tt.want)
			}
		})
	}
}

func TestBenchFlags(t *testing.T) {
	tests := []struct {
		args []string
		code int
	}{
		{[]string{"bench", "--runtime", "deno"}, ExitUsage},
		{[]string{"bench", "extra"}, ExitUsage},
	}
	for _, tt := range tests {
		var out, errb bytes.Buffer
		if code := Main(tt.args, &bytes.Buffer{}, &out, &errb); code != tt.code {
			t.Errorf("cwx %v: exit %d, want %d (%s)", tt.args, code, tt.code, errb.String())
		}
	}
}

// startingHost is a host that answers calls while the supervisor still reports it starting
// (the owner layer activates plugins before the supervisor marks the incarnation Ready):
// it is Ready only after readyAfter looks, and its kill fails before that, as the owner
// layer's does.
type startingHost struct {
	looks, readyAfter int
	killed            bool
}

func (h *startingHost) HostAt(protocol.HostKey) core.HostInfo {
	h.looks++
	if h.looks > h.readyAfter {
		return core.HostInfo{State: supervisor.StateReady, RuntimePID: 42}
	}
	return core.HostInfo{State: supervisor.StateStarting}
}

func (h *startingHost) KillHost(protocol.HostKey) error {
	if h.looks <= h.readyAfter {
		return errors.New("no ready runtime")
	}
	h.killed = true
	return nil
}

// TestKillReadyWaitsForReady: the bench's kill of a host that has answered but is not yet
// Ready waits for Ready instead of failing the run, and a host that never gets there fails
// after liveWait, naming its state.
func TestKillReadyWaitsForReady(t *testing.T) {
	k := protocol.SharedHost(protocol.TierPlugin)
	synctest.Test(t, func(t *testing.T) {
		h := &startingHost{readyAfter: 5}
		if err := killReady(t.Context(), h, k); err != nil || !h.killed {
			t.Fatalf("killReady: %v (killed %v); want the kill once the host is Ready", err, h.killed)
		}
	})
	synctest.Test(t, func(t *testing.T) {
		h := &startingHost{readyAfter: 1 << 30}
		err := killReady(t.Context(), h, k)
		if !errors.Is(err, core.ErrNotAvailable) || !strings.Contains(err.Error(), "is starting, not ready") || h.killed {
			t.Fatalf("killReady of a host that stays starting: %v (killed %v)", err, h.killed)
		}
	})
}
