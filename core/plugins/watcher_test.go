package plugins

// Generation returns the last generation read (memory only).
func (w *Watcher) Generation() uint64 { return w.gen.Load() }

// ChangedSince reports whether the generation differs from seen, and the current value.
func (w *Watcher) ChangedSince(seen uint64) (uint64, bool) {
	g := w.gen.Load()
	return g, g != seen
}
