package supervisor

import (
	"fmt"
	"sync"

	"github.com/cwx-dev/cwx/core/protocol"
)

// Supervisor holds the tiers of one core. Each tier has its own runtime, generation and
// state; no lock spans two tiers.
type Supervisor struct {
	order []protocol.Tier
	tiers map[protocol.Tier]*TierRuntime
}

// New returns a supervisor with one idle TierRuntime per option set (one per tier).
func New(tiers ...Options) (*Supervisor, error) {
	s := &Supervisor{tiers: map[protocol.Tier]*TierRuntime{}}
	for _, o := range tiers {
		if _, dup := s.tiers[o.Tier]; dup {
			return nil, fmt.Errorf("supervisor: tier %q configured twice", o.Tier)
		}
		t, err := NewTier(o)
		if err != nil {
			return nil, err
		}
		s.tiers[o.Tier] = t
		s.order = append(s.order, o.Tier)
	}
	return s, nil
}

// Tier returns the tier's runtime, or nil when it is not configured.
func (s *Supervisor) Tier(t protocol.Tier) *TierRuntime { return s.tiers[t] }

// Retry clears a Failed tier so its next need spawns again.
func (s *Supervisor) Retry(t protocol.Tier) {
	if tr := s.tiers[t]; tr != nil {
		tr.Retry()
	}
}

// Status reports every tier in configuration order.
func (s *Supervisor) Status() []TierStatus {
	out := make([]TierStatus, 0, len(s.order))
	for _, t := range s.order {
		out = append(out, s.tiers[t].Status())
	}
	return out
}

// Close stops every tier concurrently, each within its own bound.
func (s *Supervisor) Close() {
	var wg sync.WaitGroup
	for _, t := range s.tiers {
		wg.Add(1)
		go func() { defer wg.Done(); t.Stop() }()
	}
	wg.Wait()
}
