package rpc

import "time"

// Timer is the part of *time.Timer a deadline needs. The peer itself uses *time.Timer
// (its tests control time with testing/synctest); Timer remains for a clock outside this
// package that is injected where a test cannot run in a synctest bubble.
type Timer interface {
	Stop() bool
	Reset(d time.Duration) bool
}
