package owners

import "sync"

// Change says that the live catalog (what Tools and Commands list) changed: a plugin was
// activated or revoked, a host restarted and replayed its plugins, a live owner registered
// or withdrew a tool or command. It carries no diff: read Tools and Commands again.
type Change struct {
	// Generation counts the catalog's changes since Open; it only grows.
	Generation uint64
}

// changeFeed fans the registry's change hook out to subscribers. Each subscriber has a
// channel of one slot that always holds the newest Change not yet received, so a slow
// reader gets one value for many changes and the registry never waits for it.
type changeFeed struct {
	mu   sync.Mutex
	gen  uint64                   // +checklocks:mu
	subs map[chan Change]struct{} // +checklocks:mu
}

// notify records one change. It is called with the registry's lock held and takes only
// the feed's own lock, which is never held while calling out.
func (f *changeFeed) notify() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.gen++
	for c := range f.subs {
		select {
		case <-c: // replaced by the newer value
		default:
		}
		c <- Change{Generation: f.gen}
	}
}

func (f *changeFeed) generation() uint64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.gen
}

func (f *changeFeed) subscribe() chan Change {
	c := make(chan Change, 1)
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.subs == nil {
		f.subs = map[chan Change]struct{}{}
	}
	f.subs[c] = struct{}{}
	return c
}

func (f *changeFeed) unsubscribe(c chan Change) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, ok := f.subs[c]; ok {
		delete(f.subs, c)
		close(c)
	}
}
