// Package guarded holds code that keeps the discipline and code that breaks it on purpose.
package guarded

import "sync"

type counter struct {
	mu sync.Mutex
	// +checklocks:mu
	n int
	// +checklocks:mu
	seen map[string]bool
	free int // no annotation: never checked
}

type table struct {
	mu sync.RWMutex
	// +checklocks:mu
	rows []string
}

// +checklocksignore
func newCounter() *counter {
	c := &counter{}
	c.seen = map[string]bool{}
	return c
}

func (c *counter) incr() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.n++
}

func (c *counter) mark(k string) {
	c.mu.Lock()
	c.markLocked(k)
	c.mu.Unlock()
}

// +checklocks:c.mu
func (c *counter) markLocked(k string) { c.seen[k] = true }

func (c *counter) untouched() int { return c.free }

func (t *table) count() int {
	t.mu.RLock()
	defer t.mu.RUnlock()
	return len(t.rows)
}

func (c *counter) racyRead() int {
	return c.n // want `invalid field access`
}

func (c *counter) afterUnlock() {
	c.mu.Lock()
	c.mu.Unlock()
	c.n = 0 // want `invalid field access`
}

func (c *counter) callsWithoutLock(k string) {
	c.markLocked(k) // want `must hold c.mu exclusively`
}

func (t *table) writeUnderRLock(r string) {
	t.mu.RLock()
	defer t.mu.RUnlock()
	t.rows = append(t.rows, r) // want `invalid field access`
}

type misspelt struct {
	mu sync.Mutex
	// +checklocks:mux
	v int // want `annotation mux cannot be resolved`
}

// +checklocks:m.mux
func (m *misspelt) resetLocked() {} // want `name m.mux does not resolve to a field`
