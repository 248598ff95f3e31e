package core

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/cwx-dev/cwx/core/supervisor"
	"github.com/cwx-dev/cwx/shared/testenv"
)

// TestHeartbeatKillSaysWhy: a tool that blocks its host's event loop is killed by the
// heartbeat, and its caller is told so, with the tool's name, rather than the text of the
// broken stream.
func TestHeartbeatKillSaysWhy(t *testing.T) {
	eachRuntime(t, func(t *testing.T, rt testenv.Runtime) {
		e := newEnv(t, rt)
		e.install("hang-tool")
		m := e.open(func(o *Options) {
			o.Tier = func(so *supervisor.Options) {
				so.HandshakeTimeout = 20 * time.Second
				so.HeartbeatInterval = 100 * time.Millisecond
				so.UnresponsiveAfter = 300 * time.Millisecond
				so.HangKillAfter = 1500 * time.Millisecond
				so.RestartBackoff = 50 * time.Millisecond
			}
		})
		reconcile(t, m)
		_, err := m.CallTool(context.Background(), "hang_probe", input(`{}`), CallOptions{})
		want := "the plugin tier was restarted: host/ping unanswered for 1.5s while `hang_probe` was running"
		if !errors.Is(err, ErrHostExited) || !strings.Contains(err.Error(), want) {
			t.Fatalf("call error %q, want a host exit saying %q", err, want)
		}
		if strings.Contains(err.Error(), "EOF") || strings.Contains(err.Error(), "rpc error") {
			t.Errorf("call error %q carries the stream's text", err)
		}
		if _, ok := errors.AsType[*supervisor.HangError](err); !ok {
			t.Errorf("call error %v does not carry the *supervisor.HangError", err)
		}
	})
}
