package nodeshim

import (
	"io"
	"os"
	"slices"
	"sync"
	"syscall"
	"testing"
	"testing/synctest"
	"time"

	"github.com/hashicorp/go-hclog"
)

// record collects what cleanups ran, in order.
type record struct {
	mu  sync.Mutex
	ran []string
}

func (r *record) cleanup(name string) func() {
	return func() {
		r.mu.Lock()
		defer r.mu.Unlock()
		r.ran = append(r.ran, name)
	}
}

func (r *record) list() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.ran)
}

// TestShutdownFirstTriggerDecides checks that the exit code, reason and cleanup are the
// first trigger's, that later triggers neither run their cleanup nor change the code, and
// that wait returns only once the cleanup ran.
func TestShutdownFirstTriggerDecides(t *testing.T) {
	type trig struct {
		code int
		name string
	}
	tests := []struct {
		name     string
		triggers []trig
		wantCode int
		wantRan  []string
	}{
		{"one trigger", []trig{{exitSIGTERM, "sigterm"}}, exitSIGTERM, []string{"sigterm"}},
		{"SIGTERM then the connection closing", []trig{{exitSIGTERM, "sigterm"}, {exitOK, "closed"}}, exitSIGTERM, []string{"sigterm"}},
		{"connection closing then the lifeline", []trig{{exitOK, "closed"}, {exitLifeline, "lifeline"}}, exitOK, []string{"closed"}},
		{"the lifeline then SIGTERM", []trig{{exitLifeline, "lifeline"}, {exitSIGTERM, "sigterm"}}, exitLifeline, []string{"lifeline"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				sd := newShutdown(hclog.NewNullLogger(), joinGrace)
				var r record
				for i, tr := range tc.triggers {
					if first := sd.trigger(tr.code, tr.name, r.cleanup(tr.name)); first != (i == 0) {
						t.Errorf("trigger %d (%s) decided = %v, want %v", i, tr.name, first, i == 0)
					}
				}
				if got := sd.wait(); got != tc.wantCode {
					t.Errorf("exit code = %d, want %d", got, tc.wantCode)
				}
				if got := r.list(); !slices.Equal(got, tc.wantRan) {
					t.Errorf("cleanups ran = %q, want %q", got, tc.wantRan)
				}
			})
		})
	}
}

// TestShutdownJoinsGoroutines checks that wait waits for the goroutines started with Go, up
// to the grace and no longer, and not for one started once the join began.
func TestShutdownJoinsGoroutines(t *testing.T) {
	const grace = 500 * time.Millisecond
	tests := []struct {
		name     string
		runs     time.Duration // how long the goroutine started with Go runs after the trigger
		wantWait time.Duration // how long wait takes
	}{
		{"a goroutine that ends at once", 0, 0},
		{"a goroutine that ends within the grace", 300 * time.Millisecond, 300 * time.Millisecond},
		{"a goroutine stuck past the grace", time.Hour, grace},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				sd := newShutdown(hclog.NewNullLogger(), grace)
				release := make(chan struct{})
				sd.Go(func() {
					<-sd.Done()
					select {
					case <-time.After(tc.runs):
					case <-release:
					}
				})
				sd.trigger(exitOK, "test", nil)
				begin := time.Now()
				sd.wait()
				if got := time.Since(begin); got != tc.wantWait {
					t.Errorf("wait took %v, want %v", got, tc.wantWait)
				}
				late := make(chan struct{})
				sd.Go(func() { <-late }) // after the join: must not be waited for
				close(late)
				close(release)
			})
		})
	}
}

// TestShutdownCleanupRunsOnWaitersGoroutine checks that trigger never blocks on the cleanup:
// a trigger from a goroutine that the cleanup waits for cannot deadlock.
func TestShutdownCleanupRunsOnWaitersGoroutine(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		sd := newShutdown(hclog.NewNullLogger(), joinGrace)
		stopped := make(chan struct{})
		sd.Go(func() {
			sd.trigger(exitSIGTERM, "sigterm", func() { <-stopped })
			close(stopped) // reached only if trigger returned before the cleanup ran
		})
		if got := sd.wait(); got != exitSIGTERM {
			t.Errorf("exit code = %d, want %d", got, exitSIGTERM)
		}
	})
}

// TestWatchersTrigger checks the shim's triggers one by one: what each decides, and that
// each gives way once another trigger decided.
func TestWatchersTrigger(t *testing.T) {
	tests := []struct {
		name     string
		act      func(s *server, sigterm chan os.Signal, lifeline *io.PipeWriter)
		wantCode int
		wantWait time.Duration // from the start until wait returns
	}{
		{"the lifeline closes", func(_ *server, _ chan os.Signal, lw *io.PipeWriter) { _ = lw.Close() }, exitLifeline, 0},
		{"the lifeline breaks", func(_ *server, _ chan os.Signal, lw *io.PipeWriter) { _ = lw.CloseWithError(io.ErrUnexpectedEOF) }, exitLifeline, 0},
		// No channel was opened, so SIGTERM's cleanup waits the whole exitGrace for a report.
		{"SIGTERM", func(_ *server, sig chan os.Signal, _ *io.PipeWriter) { sig <- syscall.SIGTERM }, exitSIGTERM, exitGrace},
		{"the exit report without a close", func(s *server, _ chan os.Signal, _ *io.PipeWriter) { close(s.reported) }, exitOK, exitGrace},
		{"the exit report, then the lifeline", func(s *server, _ chan os.Signal, lw *io.PipeWriter) {
			close(s.reported)
			time.Sleep(exitGrace / 2) // fake time: the lifeline closes within the grace
			_ = lw.Close()
		}, exitLifeline, exitGrace / 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				log := hclog.NewNullLogger()
				sd := newShutdown(log, joinGrace)
				s := newServer(log, "plugin", sd)
				sigterm := make(chan os.Signal, 1)
				lr, lw := io.Pipe()
				go onLifelineEOF(s, sd, lr, log)
				sd.Go(func() { onSIGTERM(s, sd, sigterm) })
				sd.Go(func() { exitAfterReport(s, sd, exitGrace) })
				begin := time.Now()
				tc.act(s, sigterm, lw)
				if got := sd.wait(); got != tc.wantCode {
					t.Errorf("exit code = %d, want %d", got, tc.wantCode)
				}
				if got := time.Since(begin); got != tc.wantWait {
					t.Errorf("shutdown took %v, want %v", got, tc.wantWait)
				}
				_ = lw.Close()
			})
		})
	}
}
