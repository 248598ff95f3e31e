package plugins

import (
	"context"
	"sync/atomic"
	"time"
)

// PollInterval is how often a long-lived process re-reads the state generation.
const PollInterval = time.Second

// Watcher follows the state generation so that a change made by another process (a
// `cwx plugin disable` in another terminal) reaches a running Manager. Run polls the file,
// and the dev sessions alive: a `cwx plugin dev` that ends, even killed, changes no state but
// ends its dev receipts, which the Manager must notice too. Changed reads only memory, so
// callers may ask as often as they like.
type Watcher struct {
	store   *Store
	gen     atomic.Uint64
	devs    atomic.Pointer[string] // the tokens of the dev sessions alive, sorted, joined
	changed chan struct{}
}

// NewWatcher reads the current generation once and returns a watcher starting from it.
func NewWatcher(s *Store) (*Watcher, error) {
	w := &Watcher{store: s, changed: make(chan struct{}, 1)}
	g, err := s.Generation()
	if err != nil {
		return nil, err
	}
	w.gen.Store(g)
	devs := s.heldDevTokens()
	w.devs.Store(&devs)
	return w, nil
}

// Run polls until ctx ends, re-reading the generation on every tick (the file is small;
// reading it once a second costs nothing next to the certainty that no change is missed). tick is the ticker channel; nil means a time.Ticker of PollInterval
// (tests pass their own channel).
func (w *Watcher) Run(ctx context.Context, tick <-chan time.Time) {
	if tick == nil {
		t := time.NewTicker(PollInterval)
		defer t.Stop()
		tick = t.C
	}
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick:
			w.Poll()
		}
	}
}

// Poll checks the state file and the dev sessions once.
func (w *Watcher) Poll() {
	g, err := w.store.Generation()
	if err != nil { // a corrupt or unreadable state file: the next poll reads it again
		return
	}
	devs := w.store.heldDevTokens()
	if g != w.gen.Swap(g) || devs != *w.devs.Swap(&devs) {
		select {
		case w.changed <- struct{}{}:
		default:
		}
	}
}

// Changed delivers a value after each generation change (coalesced).
func (w *Watcher) Changed() <-chan struct{} { return w.changed }
