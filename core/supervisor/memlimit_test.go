package supervisor

import (
	"strconv"
	"strings"
	"testing"

	"github.com/cwx-dev/cwx/shared/testenv"
)

// TestLowMemoryLimitNeverKillsTheShim runs the hosts under a 64 MiB RLIMIT_DATA, below what
// config check allows: the limit binds the runtime alone (set by the exec helper), so Node
// starts under it with the shim unlimited, and Bun, which cannot start under it, dies on its
// own while the shim lives to report how.
func TestLowMemoryLimitNeverKillsTheShim(t *testing.T) {
	const limit = 64 << 20
	for _, want := range testenv.Runtimes() {
		t.Run(want.Name, func(t *testing.T) {
			rt := want.Get(t)
			tr := newTier(t, rt, "good", func(o *Options) { o.MemoryLimitBytes = limit })
			_, err := ensure(t, tr)
			if rt.Name == "bun" {
				if err == nil || !strings.Contains(err.Error(), "ended during the handshake") || !strings.Contains(err.Error(), "killed by signal") {
					t.Fatalf("Bun under 64 MiB: %v, want the runtime's own death reported by the shim", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("Node under 64 MiB: %v", err)
			}
			st := tr.Status()
			if got := dataLimit(t, st.RuntimePID); got != strconv.Itoa(limit) {
				t.Errorf("runtime RLIMIT_DATA %s, want %d", got, limit)
			}
			if got := dataLimit(t, st.ShimPID); got == strconv.Itoa(limit) {
				t.Errorf("the shim runs under the runtime's limit %s", got)
			}
		})
	}
}
