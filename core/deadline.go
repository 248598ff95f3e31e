package core

import (
	"sync"
	"time"

	"github.com/cwx-dev/cwx/core/rpc"
)

// deadlineClock is the clock of an invocation's deadline; tests inject one.
type deadlineClock interface {
	Now() time.Time
	AfterFunc(d time.Duration, f func()) rpc.Timer
}

type wallClock struct{}

func (wallClock) Now() time.Time                                { return time.Now() }
func (wallClock) AfterFunc(d time.Duration, f func()) rpc.Timer { return time.AfterFunc(d, f) }

// pauseDeadline is a deadline that does not run while paused: an invocation's tool/call
// deadline stands still while one of its core/calls waits for a person's decision
// (ARCHITECTURE.md, “Approval”), so a person taking a minute on a card does not time the
// tool out. expire runs once, when the running time reaches the deadline.
type pauseDeadline struct {
	clock  deadlineClock
	expire func()

	mu      sync.Mutex
	left    time.Duration // +checklocks:mu
	since   time.Time     // +checklocks:mu
	pauses  int           // +checklocks:mu
	timer   rpc.Timer     // +checklocks:mu
	arm     uint64        // +checklocks:mu
	stopped bool          // +checklocks:mu
}

func startDeadline(c deadlineClock, d time.Duration, expire func()) *pauseDeadline {
	if c == nil {
		c = wallClock{}
	}
	p := &pauseDeadline{clock: c, expire: expire, left: d}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.runLocked()
	return p
}

// runLocked starts a running stretch.
//
// +checklocks:p.mu
func (p *pauseDeadline) runLocked() {
	p.since = p.clock.Now()
	p.arm++
	arm := p.arm
	p.timer = p.clock.AfterFunc(p.left, func() { p.fire(arm) })
}

func (p *pauseDeadline) fire(arm uint64) {
	p.mu.Lock()
	live := !p.stopped && p.pauses == 0 && p.arm == arm
	if live {
		p.stopped = true
	}
	p.mu.Unlock()
	if live {
		p.expire()
	}
}

// pause stops the deadline until the returned resume is called; pauses nest.
func (p *pauseDeadline) pause() (resume func()) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.pauses == 0 && !p.stopped {
		p.timer.Stop()
		p.arm++
		p.left -= p.clock.Now().Sub(p.since)
		p.left = max(p.left, 0)
	}
	p.pauses++
	var once sync.Once
	return func() { once.Do(p.resume) }
}

func (p *pauseDeadline) resume() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.pauses--
	if p.pauses == 0 && !p.stopped {
		p.runLocked()
	}
}

// stop ends the deadline without expiring.
func (p *pauseDeadline) stop() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.stopped = true
	p.timer.Stop()
}
