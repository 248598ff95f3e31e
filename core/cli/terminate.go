package cli

import (
	"context"
	"errors"
	"io"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"
)

// termGrace bounds how long cwx runs after SIGTERM: the command's context is cancelled at
// once, so a command winds down and closes the extension hosts (within closeWait); one
// still running termGrace later, whatever it is doing (a validation, a call that ignores
// its context), is ended by exiting the process. A second SIGTERM exits at once. The
// hosts end with the process: each shim kills its runtime's group when its lifeline from
// the core closes.
const termGrace = 10 * time.Second

// errTerminated is the cause of a command context cancelled by SIGTERM.
var errTerminated = errors.New("terminated (SIGTERM)")

// terminator ends the process within a bound of SIGTERM.
type terminator struct {
	stderr io.Writer
	exit   func(int)
	grace  time.Duration
	sigs   chan os.Signal
	done   chan struct{} // closed by stop
	wg     sync.WaitGroup
}

// watchTerm returns a context cancelled by SIGTERM and a stop function that ends the watch
// (joining its goroutine). After SIGTERM, exit(ExitTimeout) is called if stop has not been
// called within grace, or at a second SIGTERM.
func watchTerm(parent context.Context, stderr io.Writer, grace time.Duration, exit func(int)) (context.Context, func()) {
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, syscall.SIGTERM)
	return watchSignals(parent, stderr, grace, exit, sigs, func() { signal.Stop(sigs) })
}

// watchSignals is watchTerm reading the signals from sigs; unnotify stops their delivery.
func watchSignals(parent context.Context, stderr io.Writer, grace time.Duration, exit func(int), sigs chan os.Signal, unnotify func()) (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(parent)
	t := &terminator{stderr: stderr, exit: exit, grace: grace, sigs: sigs, done: make(chan struct{})}
	t.wg.Add(1)
	go func() {
		defer t.wg.Done()
		t.run(cancel)
	}()
	var once sync.Once
	return ctx, func() {
		once.Do(func() {
			unnotify()
			close(t.done)
			t.wg.Wait()
			cancel(nil)
		})
	}
}

func (t *terminator) run(cancel context.CancelCauseFunc) {
	select {
	case <-t.sigs:
	case <-t.done:
		return
	}
	cancel(errTerminated)
	timer := time.NewTimer(t.grace)
	defer timer.Stop()
	select {
	case <-t.done:
		return
	case <-t.sigs:
		printf(t.stderr, "cwx: a second SIGTERM; exiting now\n")
	case <-timer.C:
		printf(t.stderr, "cwx: still running %s after SIGTERM; exiting (the extension hosts end with this process)\n", t.grace)
	}
	t.exit(ExitTimeout)
}
