package core

import (
	"context"
	"strconv"
	"sync"
	"testing"

	"github.com/cwx-dev/cwx/core/owners"
	"github.com/cwx-dev/cwx/core/protocol"
	"github.com/cwx-dev/cwx/shared/testenv"
)

// BenchmarkCallToolInProcess measures the Manager's own share of one CallTool: the fake
// host answers in process (no shim, no runtime, no wire), so the look-up, the validation,
// the gate, the owner's admission and the bookkeeping are what is timed, at 1 and 16
// concurrent callers.
func BenchmarkCallToolInProcess(b *testing.B) {
	for _, callers := range []int{1, 16} {
		b.Run("callers-"+strconv.Itoa(callers), func(b *testing.B) {
			m := inProcessManager(b)
			in := input(`{"n":1}`)
			b.ReportAllocs()
			b.ResetTimer()
			var wg sync.WaitGroup
			per := b.N / callers
			for c := range callers {
				n := per
				if c == 0 {
					n += b.N % callers
				}
				wg.Add(1)
				go func() {
					defer wg.Done()
					for range n {
						if _, err := m.CallTool(context.Background(), "alpha", in, CallOptions{}); err != nil {
							b.Error(err)
							return
						}
					}
				}()
			}
			wg.Wait()
		})
	}
}

// inProcessManager is a Manager whose plugin tier is the in-process fake host, with the
// tool fixture live as `alpha` (auto approval).
func inProcessManager(b *testing.B) *Manager {
	e := newEnv(b, testenv.Runtime{Name: "node", Path: "/nonexistent/node"})
	e.install("tool")
	m := e.open(func(o *Options) { o.PollInterval = -1; o.Logger = nil; o.Approval = "auto" })
	ft := &fakeTier{m: m, t: protocol.SharedHost(protocol.TierPlugin), tools: map[string][]string{"fixture-tool": {"alpha"}},
		activateFail: map[string]string{}, activateGate: map[string]chan struct{}{},
		deactivate: protocol.DeactivateResult{Disposed: true, Leaked: []string{}}}
	setTier(m, func(protocol.HostKey) (owners.Tier, error) { return ft, nil })
	reconcile(b, m)
	return m
}
