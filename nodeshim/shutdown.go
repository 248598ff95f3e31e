package nodeshim

import (
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"
)

// The shim's exit codes. The first trigger of the shutdown decides which one the shim ends with.
const (
	exitOK       = 0   // the core closed the connection, or left it open after the exit report
	exitLifeline = 3   // the lifeline closed: the core is gone
	exitSIGTERM  = 143 // 128 + SIGTERM, as a shell reports a process SIGTERM ended
)

// joinGrace bounds how long the exit waits, after the cleanup, for the goroutines started
// with shutdown.Go. The runtime is gone by then, so they end at once unless a descendant
// that left its group still holds one of its pipes.
const joinGrace = 500 * time.Millisecond

// shutdown owns the shim's exit. Any goroutine may trigger it with an exit code, a reason
// and a cleanup; the first trigger decides all three and later ones change nothing. wait,
// on Main's goroutine, blocks until that trigger, runs its cleanup (each cleanup bounds its
// own waits), waits up to a grace for the goroutines started with Go, and returns the code,
// which Main returns to main.go's os.Exit: nothing else in the shim ends the process.
type shutdown struct {
	log   hclog.Logger
	grace time.Duration // for the goroutines started with Go

	once sync.Once
	done chan struct{} // closed by the first trigger
	plan exitPlan      // written once, before done is closed

	mu sync.Mutex
	// +checklocks:mu
	joining bool           // set when wait stops counting goroutines
	wg      sync.WaitGroup // the goroutines started with Go before joining began
}

// exitPlan is what the first trigger decided.
type exitPlan struct {
	code    int
	reason  string
	cleanup func() // may be nil
}

func newShutdown(log hclog.Logger, grace time.Duration) *shutdown {
	return &shutdown{log: log, grace: grace, done: make(chan struct{})}
}

// Done is closed once the shutdown was triggered.
func (sd *shutdown) Done() <-chan struct{} { return sd.done }

// triggered reports whether the shutdown was triggered.
func (sd *shutdown) triggered() bool {
	select {
	case <-sd.done:
		return true
	default:
		return false
	}
}

// trigger decides the exit if nothing did before and reports whether this call decided it.
// It never blocks: cleanup runs later, on wait's goroutine.
func (sd *shutdown) trigger(code int, reason string, cleanup func()) bool {
	first := false
	sd.once.Do(func() {
		sd.plan = exitPlan{code: code, reason: reason, cleanup: cleanup}
		first = true
		close(sd.done)
	})
	return first
}

// Go runs fn on a goroutine that the exit waits for (up to the grace). A goroutine started
// once the wait for them has begun is not waited for: the process is ending under it.
func (sd *shutdown) Go(fn func()) {
	sd.mu.Lock()
	if sd.joining {
		sd.mu.Unlock()
		go fn()
		return
	}
	sd.wg.Add(1)
	sd.mu.Unlock()
	go func() {
		defer sd.wg.Done()
		fn()
	}()
}

// wait blocks until the shutdown is triggered, runs the decided cleanup, waits for the
// goroutines started with Go up to the grace and returns the decided exit code.
func (sd *shutdown) wait() int {
	<-sd.done
	plan := sd.plan
	sd.log.Debug("shim shutting down", "reason", plan.reason, "code", plan.code)
	if plan.cleanup != nil {
		plan.cleanup()
	}
	if !sd.join() {
		sd.log.Debug("exiting with goroutines still running", "grace", sd.grace)
	}
	return plan.code
}

// join stops counting goroutines and waits for those counted, up to the grace. It reports
// whether they all ended.
func (sd *shutdown) join() bool {
	sd.mu.Lock()
	sd.joining = true
	sd.mu.Unlock()
	all := make(chan struct{})
	go func() {
		sd.wg.Wait()
		close(all)
	}()
	t := time.NewTimer(sd.grace)
	defer t.Stop()
	select {
	case <-all:
		return true
	case <-t.C:
		return false
	}
}
