// Package lockednames holds …Locked helpers with and without the annotation.
package lockednames

import "sync"

type s struct {
	mu sync.RWMutex
	// +checklocks:mu
	v int
}

// +checklocks:x.mu
func (x *s) setLocked(v int) { x.v = v }

// getLocked reads v.
//
// +checklocksread:x.mu
func (x *s) getLocked() int { return x.v }

// Locked alone is not a …Locked helper.
func Locked() {}

// resetLocked forgets v, but says nothing about the lock.
func (x *s) resetLocked() {} // want `resetLocked is named …Locked but its doc comment does not say which lock it needs`

func flushLocked() {} // want `flushLocked is named …Locked`

func (x *s) set(v int) {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.setLocked(v)
	_ = x.getLocked()
}
