package supervisor

import "time"

// window counts events within a sliding time window (crash budget, dirty teardowns).
type window struct {
	span  time.Duration
	limit int
	at    []time.Time
}

// add records an event at now and reports whether the limit is reached within the span.
func (w *window) add(now time.Time) bool {
	w.prune(now)
	w.at = append(w.at, now)
	return len(w.at) >= w.limit
}

// count returns the events within the span before now.
func (w *window) count(now time.Time) int {
	w.prune(now)
	return len(w.at)
}

func (w *window) prune(now time.Time) {
	keep := w.at[:0]
	for _, t := range w.at {
		if now.Sub(t) < w.span {
			keep = append(keep, t)
		}
	}
	w.at = keep
}

func (w *window) reset() { w.at = nil }
