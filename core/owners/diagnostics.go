package owners

import (
	"context"
	"sync"
	"time"

	"github.com/cwx-dev/cwx/core/plugins"
	"github.com/hashicorp/go-hclog"
)

const diagQueue = 256

// Diagnostic kinds the Manager records in a plugin's ring.
const (
	diagActivationFailed = "activation_failed"
	diagFaulted          = "faulted"
	diagRefused          = "refused"
	diagReceipt          = "receipt"
	diagConfig           = "config"
	diagDirty            = "dirty_teardown"
	diagLog              = "log"
	diagHostExited       = "host_exited"
)

type diagItem struct {
	id string
	d  plugins.Diagnostic
}

// diagWriter appends diagnostics to the plugins' rings on its own goroutine, so host
// notification handlers never wait on the state file's lock. A full queue drops the entry
// (it is in hclog already).
type diagWriter struct {
	store *plugins.Store
	log   hclog.Logger
	q     chan diagItem

	mu      sync.Mutex
	pending int           // +checklocks:mu
	idle    chan struct{} // +checklocks:mu
}

func newDiagWriter(s *plugins.Store, log hclog.Logger) *diagWriter {
	return &diagWriter{store: s, log: log, q: make(chan diagItem, diagQueue)}
}

func (w *diagWriter) add(id, kind, msg string) {
	it := diagItem{id: id, d: plugins.Diagnostic{Time: time.Now(), Kind: kind, Message: msg}}
	w.mu.Lock()
	defer w.mu.Unlock()
	select {
	case w.q <- it:
		w.pending++
	default:
		w.log.Debug("diagnostics queue full; entry dropped", "plugin", id, "kind", kind)
	}
}

// run writes until ctx ends, then drains what is queued.
func (w *diagWriter) run(ctx context.Context) {
	for {
		select {
		case it := <-w.q:
			w.write(it)
		case <-ctx.Done():
			for {
				select {
				case it := <-w.q:
					w.write(it)
				default:
					return
				}
			}
		}
	}
}

func (w *diagWriter) write(it diagItem) {
	if err := w.store.AppendDiagnostic(it.id, it.d); err != nil {
		w.log.Debug("diagnostic not recorded", "plugin", it.id, "error", err)
	}
	w.mu.Lock()
	w.pending--
	if w.pending == 0 && w.idle != nil {
		close(w.idle)
		w.idle = nil
	}
	w.mu.Unlock()
}

// flushed returns a channel closed once every queued diagnostic is written (for tests and
// `cwx plugin show`, which reads the ring right after activating).
func (w *diagWriter) flushed() <-chan struct{} {
	w.mu.Lock()
	defer w.mu.Unlock()
	ch := make(chan struct{})
	if w.pending == 0 {
		close(ch)
		return ch
	}
	if w.idle == nil {
		w.idle = make(chan struct{})
	}
	return w.idle
}

// Log rate limit per plugin: a burst of logBurst lines, then one per logEvery.
const (
	logBurst   = 20
	logEvery   = 100 * time.Millisecond
	logMaxKeys = 1024
)

// logLimiter is a token bucket per plugin id.
type logLimiter struct {
	now func() time.Time
	mu  sync.Mutex
	b   map[string]*bucket // +checklocks:mu
}

type bucket struct {
	tokens  float64
	last    time.Time
	dropped int
}

func newLogLimiter(now func() time.Time) *logLimiter {
	return &logLimiter{now: now, b: map[string]*bucket{}}
}

// allow reports whether a line from key may pass, and how many were dropped before it.
func (l *logLimiter) allow(key string) (bool, int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	b := l.b[key]
	if b == nil {
		if len(l.b) >= logMaxKeys {
			clear(l.b)
		}
		b = &bucket{tokens: logBurst, last: now}
		l.b[key] = b
	}
	b.tokens += float64(now.Sub(b.last)) / float64(logEvery)
	if b.tokens > logBurst {
		b.tokens = logBurst
	}
	b.last = now
	if b.tokens < 1 {
		b.dropped++
		return false, 0
	}
	b.tokens--
	d := b.dropped
	b.dropped = 0
	return true, d
}
