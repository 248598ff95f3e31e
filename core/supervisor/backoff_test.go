package supervisor

import (
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/cwx-dev/cwx/core/protocol"
	"github.com/cwx-dev/cwx/core/rpc"
	"github.com/cwx-dev/cwx/core/runtime"
)

func TestRestartDelay(t *testing.T) {
	const b = 250 * time.Millisecond
	for _, tc := range []struct {
		name   string
		recent int
		lived  time.Duration
		want   time.Duration
	}{
		{"first crash, died while starting", 1, 5 * time.Millisecond, 0},
		{"first crash, long-lived", 1, time.Hour, 0},
		{"uncounted end on a clean history", 0, time.Millisecond, 0},
		{"second crash, died while starting", 2, 10 * time.Millisecond, 240 * time.Millisecond},
		{"second crash, died at once", 2, 0, b},
		{"second crash, clock stepped back", 2, -time.Second, b},
		{"second crash, lived exactly the backoff", 2, b, 0},
		{"second crash, lived longer", 2, 600 * time.Millisecond, 0},
		{"fifth crash, died while starting", 5, 100 * time.Millisecond, 150 * time.Millisecond},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := restartDelay(b, tc.recent, tc.lived); got != tc.want {
				t.Errorf("restartDelay(%v, %d, %v) = %v, want %v", b, tc.recent, tc.lived, got, tc.want)
			}
		})
	}
}

// stepClock is a clock moved by hand whose AfterFunc records the delay and never fires, so
// no generation is spawned.
type stepClock struct {
	mu     sync.Mutex
	now    time.Time
	delays []time.Duration
}

func (c *stepClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *stepClock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

func (c *stepClock) AfterFunc(d time.Duration, _ func()) rpc.Timer {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.delays = append(c.delays, d)
	return stoppedTimer{}
}

func (c *stepClock) last() (time.Duration, int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.delays) == 0 {
		return -1, 0
	}
	return c.delays[len(c.delays)-1], len(c.delays)
}

type stoppedTimer struct{}

func (stoppedTimer) Stop() bool               { return true }
func (stoppedTimer) Reset(time.Duration) bool { return false }

// TestRestartSchedule drives a tier's crash path through a sequence of generations on a
// hand-moved clock: the window's first crash restarts at once, later ones keep starts a
// backoff apart, a crash long after the last one is a first crash again, and the budget's
// last crash leaves the tier Failed with no restart scheduled.
func TestRestartSchedule(t *testing.T) {
	clk := &stepClock{now: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
	tr, err := NewTier(Options{
		Tier:         protocol.TierPlugin,
		Runtime:      runtime.Runtime{Kind: runtime.KindNode, Path: "/opt/node/bin/node"},
		BundlePath:   "/nonexistent/cwx-extension-host.mjs",
		BundleSHA256: "abc", ShimPath: "/nonexistent/cwx", Clock: clk,
		RestartBackoff: 250 * time.Millisecond, CrashLimit: 3, CrashWindow: time.Minute,
	})
	if err != nil {
		t.Fatal(err)
	}
	fe := &FailureError{Tier: protocol.TierPlugin, Reason: "killed by signal 9", Err: errors.New("killed")}
	// generation starts (as beginStartLocked records it), lives for lived, then crashes
	gen := func(lived time.Duration, counted bool) {
		tr.mu.Lock()
		tr.gen++
		tr.startedAt = clk.Now()
		tr.state = StateReady
		tr.mu.Unlock()
		clk.advance(lived)
		tr.crashed(fe, counted)
	}
	state := func() State {
		tr.mu.Lock()
		defer tr.mu.Unlock()
		return tr.state
	}
	steps := []struct {
		name    string
		gap     time.Duration // clock moved before the generation starts
		lived   time.Duration
		counted bool
		want    time.Duration // the restart delay scheduled; -1: none
		state   State
	}{
		{"first crash restarts at once", 0, 20 * time.Millisecond, true, 0, StateRestarting},
		{"second, quick, waits the rest of the backoff", 0, 20 * time.Millisecond, true, 230 * time.Millisecond, StateRestarting},
		{"an uncounted end, quick, is spaced too", 0, 50 * time.Millisecond, false, 200 * time.Millisecond, StateRestarting},
		{"the window passes: a first crash again", 2 * time.Minute, 10 * time.Millisecond, true, 0, StateRestarting},
		{"second in the new window, lived past the backoff", 0, 400 * time.Millisecond, true, 0, StateRestarting},
		{"third in the window exhausts the budget", 0, 5 * time.Millisecond, true, -1, StateFailed},
	}
	scheduled := 0
	for _, s := range steps {
		clk.advance(s.gap)
		gen(s.lived, s.counted)
		d, n := clk.last()
		if s.want < 0 {
			if n != scheduled {
				t.Errorf("%s: a restart was scheduled after %v", s.name, d)
			}
		} else {
			if n != scheduled+1 {
				t.Fatalf("%s: no restart scheduled", s.name)
			}
			scheduled = n
			if d != s.want {
				t.Errorf("%s: restart after %v, want %v", s.name, d, s.want)
			}
		}
		if st := state(); st != s.state {
			t.Errorf("%s: state %s, want %s", s.name, st, s.state)
		}
	}
	tr.Stop()
}
