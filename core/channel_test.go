package core

import (
	"context"
	"strings"
	"testing"

	"github.com/hashicorp/go-hclog"

	"github.com/cwx-dev/cwx/shared/testenv"
)

// TestFD1IsNotTheChannel checks that the runtime's fd 1 is not the channel (ARCHITECTURE.md,
// “Processes”): a plugin writing noise and well-formed CWX1 answers straight to fd 1 gets its
// genuine answer, the channel keeps working, the noise arrives as a log line of the runtime
// and no forged frame is taken for the host's.
func TestFD1IsNotTheChannel(t *testing.T) {
	eachRuntime(t, func(t *testing.T, rt testenv.Runtime) {
		e := newEnv(t, rt)
		e.install("fd1-writer")
		logs := &testenv.Buffer{}
		m := e.open(func(o *Options) {
			o.Logger = hclog.New(&hclog.LoggerOptions{Name: "core", Level: hclog.Info, Output: logs})
		})
		reconcile(t, m)
		for i := range 2 {
			res, err := m.CallTool(context.Background(), "fd1_probe", input(`{}`), CallOptions{})
			if err != nil {
				t.Fatalf("call %d: %v", i+1, err)
			}
			if got := res.Text(); got != "genuine" {
				t.Fatalf("call %d answered %q, want the plugin's own answer", i+1, got)
			}
		}
		var noise string
		for _, line := range strings.Split(logs.String(), "\n") {
			if strings.Contains(line, "fd1 noise from a tool") {
				noise = line
			}
		}
		if !strings.Contains(noise, ".runtime") {
			t.Errorf("the fd 1 noise is not logged as the runtime's line: %q", noise)
		}
		t.Logf("logged as: %s", noise)
	})
}
