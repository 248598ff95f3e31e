package supervisor

import (
	"context"
	"errors"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/cwx-dev/cwx/core/protocol"
	"github.com/cwx-dev/cwx/core/rpc"
	"github.com/cwx-dev/cwx/shared/testenv"
)

// lineSink collects log lines for assertions.
type lineSink struct {
	mu    sync.Mutex
	lines []string
}

func (s *lineSink) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.lines = append(s.lines, strings.Split(strings.TrimRight(string(p), "\n"), "\n")...)
	return len(p), nil
}

func (s *lineSink) matching(subs ...string) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for _, l := range s.lines {
		all := true
		for _, sub := range subs {
			all = all && strings.Contains(l, sub)
		}
		if all {
			out = append(out, l)
		}
	}
	return out
}

// TestHeartbeatKillReachesTheCaller: a call in flight when the heartbeat kills its host
// fails with the supervisor's reason (a *HangError, still a host exit), not the broken
// stream's text, and the kill is logged as one warning with no ERROR line from go-plugin.
func TestHeartbeatKillReachesTheCaller(t *testing.T) {
	for _, want := range testenv.Runtimes() {
		t.Run(want.Name, func(t *testing.T) {
			rt := want.Get(t)
			logs := &lineSink{}
			tr := newTier(t, rt, "good", func(o *Options) {
				fast(o)
				o.Logger = hclog.New(&hclog.LoggerOptions{Name: "cwx", Level: hclog.Debug, Output: io.MultiWriter(testWriter{t}, logs)})
			})
			h, err := ensure(t, tr)
			if err != nil {
				t.Fatal(err)
			}
			_, err = h.Call(context.Background(), protocol.MethodToolCall, toolCall(map[string]int{"block": 60000}), rpc.CallOpts{Timeout: 30 * time.Second})
			hang, ok := errors.AsType[*HangError](err)
			if !ok || !errors.Is(err, rpc.ErrHostExited) || hang.After != 1500*time.Millisecond || hang.Tier != protocol.TierPlugin {
				t.Fatalf("call error %v, want a *HangError after 1.5s that is a host exit", err)
			}
			if !strings.Contains(err.Error(), "the plugin tier was restarted: host/ping unanswered for 1.5s") {
				t.Errorf("call error %q lacks the supervisor's reason", err)
			}
			waitFor(t, tr, "generation 2 is ready", func(s TierStatus) bool { return s.Generation == 2 && s.State == StateReady })
			if errs := logs.matching("[ERROR]"); len(errs) != 0 {
				t.Errorf("ERROR lines for a heartbeat kill: %q", errs)
			}
			if warns := logs.matching("[WARN]", "extension host exited", "heartbeat timed out"); len(warns) != 1 {
				t.Errorf("warnings for the kill: %q, want exactly one", warns)
			}
		})
	}
}
