package rpc

import "time"

// Clock makes every timer of the peer injectable. Its timers call f on their own
// goroutine, like time.AfterFunc.
type Clock interface {
	AfterFunc(d time.Duration, f func()) Timer
}

// Timer is the part of *time.Timer the peer uses.
type Timer interface {
	Stop() bool
	Reset(d time.Duration) bool
}

// RealClock is the wall clock (and the fake clock of a testing/synctest bubble).
type RealClock struct{}

// AfterFunc calls time.AfterFunc.
func (RealClock) AfterFunc(d time.Duration, f func()) Timer { return time.AfterFunc(d, f) }
