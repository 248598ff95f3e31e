package core

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/cwx-dev/cwx/core/config"
	"github.com/cwx-dev/cwx/shared/testenv"
)

// TestMinimumMemoryLimitServes checks that the smallest memory_limit_mib config check allows
// for each runtime is a working one: the host starts under it, activates a plugin and
// answers a call of 1 MiB, twice (the limit binds the runtime only, never the shim).
func TestMinimumMemoryLimitServes(t *testing.T) {
	eachRuntime(t, func(t *testing.T, rt testenv.Runtime) {
		e := newEnv(t, rt)
		e.writeConfig(fmt.Sprintf("memory_limit_mib = %d\n", config.MinMemoryLimitMiB(rt.Name)))
		e.install("tool")
		m := e.open(nil)
		reconcile(t, m)
		text := strings.Repeat("m", 1<<20)
		for i := range 2 {
			res, err := m.CallTool(context.Background(), "echo_text", input(`{"text":"`+text+`"}`), CallOptions{})
			if err != nil {
				t.Fatalf("call %d under %d MiB: %v", i+1, config.MinMemoryLimitMiB(rt.Name), err)
			}
			if got := res.Text(); got != `{"echoed":"`+text+`"}` {
				t.Fatalf("call %d answered %d bytes, want the 1 MiB echo", i+1, len(got))
			}
		}
	})
}
