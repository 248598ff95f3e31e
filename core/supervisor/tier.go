package supervisor

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/cwx-dev/cwx/core/errdefs"
	"github.com/cwx-dev/cwx/core/internal/lazyre"
	"github.com/cwx-dev/cwx/core/protocol"
	"github.com/cwx-dev/cwx/core/rpc"
	"github.com/cwx-dev/cwx/shared"
)

// State is a tier's lifecycle state.
type State string

// Tier states.
const (
	StateIdle         State = "idle"     // not started yet
	StateStarting     State = "starting" // shim, runtime and handshake in progress
	StateReady        State = "ready"
	StateUnresponsive State = "unresponsive" // a heartbeat is overdue; new calls are refused
	StateRestarting   State = "restarting"   // waiting to start the next generation
	StateFailed       State = "failed"       // crash budget exhausted; no spawn until Retry
	StateStopping     State = "stopping"
	StateStopped      State = "stopped" // Stop ran; the tier does not start again
)

// ErrNotAvailable is the supervisor's "host not available" (errdefs.ErrNotAvailable).
var ErrNotAvailable = errdefs.ErrNotAvailable

// FailureError is a refused start or an ended incarnation: the reason and the runtime's
// stderr tail. It is a case of ErrNotAvailable and wraps Err, so errors.Is and errors.As
// reach the cause (rpc.ErrViolation, a *shared.ExitError, the start's error).
type FailureError struct {
	Tier       protocol.Tier
	Group      string // the plugin of a plugin's own host, "" for a tier's shared host
	Generation uint64
	Reason     string // Err's text, with the memory hint when the runtime ran out of memory
	StderrTail string
	Err        error // the cause; nil when there is none to hand on
}

// hostName is how errors name a host: "plugin extension host" for the plugin tier's shared
// host, "extension host of plugin `id`" for a plugin's own.
func hostName(k protocol.HostKey) string {
	if k.Group == "" {
		return string(k.Tier) + " extension host"
	}
	return "extension host of plugin `" + k.Group + "`"
}

func (e *FailureError) Error() string {
	msg := fmt.Sprintf("%s (generation %d): %s", hostName(protocol.HostKey{Tier: e.Tier, Group: e.Group}), e.Generation, e.Reason)
	if tail := strings.TrimSpace(e.StderrTail); tail != "" {
		msg += "; stderr: " + tail
	}
	return msg
}

// Unwrap makes errors.Is(err, ErrNotAvailable) true and keeps the cause reachable.
func (e *FailureError) Unwrap() []error {
	if e.Err == nil {
		return []error{ErrNotAvailable}
	}
	return []error{ErrNotAvailable, e.Err}
}

// TierRuntime runs one tier's host: at most one incarnation at a time, started lazily,
// restarted within the crash budget.
type TierRuntime struct {
	o Options

	mu    sync.Mutex
	state State // +checklocks:mu
	// changed is closed and replaced on every state change.
	changed   chan struct{}      // +checklocks:mu
	gen       uint64             // +checklocks:mu
	cur       *incarnation       // +checklocks:mu
	startStop context.CancelFunc // +checklocks:mu
	// restart is the pending backoff timer.
	restart interface{ Stop() bool } // +checklocks:mu
	// failure is the last failure.
	failure *FailureError // +checklocks:mu
	readyAt time.Time     // +checklocks:mu
	// startedAt is when the current (or last) generation's start began.
	startedAt time.Time // +checklocks:mu
	crashes   window    // +checklocks:mu
	dirty     window    // +checklocks:mu
	planning  bool      // +checklocks:mu

	wg sync.WaitGroup // start, watch, heartbeat and planned-restart goroutines
}

// NewTier returns an idle tier; nothing is spawned until Ensure.
func NewTier(o Options) (*TierRuntime, error) {
	c, err := o.withDefaults()
	if err != nil {
		return nil, err
	}
	c.Logger = c.Logger.Named(c.Host().String())
	return &TierRuntime{o: c, state: StateIdle, changed: make(chan struct{}),
		crashes: window{span: c.CrashWindow, limit: c.CrashLimit},
		dirty:   window{span: c.DirtyWindow, limit: c.DirtyLimit}}, nil
}

// Tier is the tier this runtime serves.
func (t *TierRuntime) Tier() protocol.Tier { return t.o.Tier }

// setStateLocked moves the tier to s and wakes everyone waiting for a change.
//
// +checklocks:t.mu
func (t *TierRuntime) setStateLocked(s State) {
	t.state = s
	close(t.changed)
	t.changed = make(chan struct{})
}

// Ensure returns the ready host, starting it if needed and waiting through the handshake
// and any restart.
func (t *TierRuntime) Ensure(ctx context.Context) (*Host, error) {
	for {
		t.mu.Lock()
		switch t.state {
		case StateReady:
			h := &Host{t: t, inc: t.cur}
			t.mu.Unlock()
			return h, nil
		case StateUnresponsive:
			t.mu.Unlock()
			return nil, fmt.Errorf("%w: the %s is unresponsive", ErrNotAvailable, hostName(t.o.Host()))
		case StateFailed:
			err := t.failure
			t.mu.Unlock()
			return nil, err
		case StateStopping, StateStopped:
			t.mu.Unlock()
			return nil, fmt.Errorf("%w: the %s tier was stopped", ErrNotAvailable, t.o.Tier)
		case StateIdle:
			t.beginStartLocked()
		}
		changed := t.changed
		t.mu.Unlock()
		select {
		case <-changed:
		case <-ctx.Done():
			return nil, fmt.Errorf("%w: waiting for the %s tier: %w", ErrNotAvailable, t.o.Tier, context.Cause(ctx))
		}
	}
}

// Retry clears the crash budget; a Failed tier spawns again at once.
func (t *TierRuntime) Retry() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.crashes.reset()
	if t.state == StateFailed {
		t.beginStartLocked()
	}
}

func (t *TierRuntime) unresponsive(inc *incarnation) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.cur == inc && t.state == StateUnresponsive
}

// beginStartLocked starts the next generation on its own goroutine.
//
// +checklocks:t.mu
func (t *TierRuntime) beginStartLocked() {
	t.gen++
	t.startedAt = t.o.Clock.Now()
	t.setStateLocked(StateStarting)
	ctx, cancel := context.WithCancel(context.Background())
	t.startStop = cancel
	gen := t.gen
	t.wg.Add(1)
	go func() {
		defer t.wg.Done()
		defer cancel()
		t.run(ctx, gen)
	}()
}

// run starts generation gen and then watches it until it ends.
func (t *TierRuntime) run(ctx context.Context, gen uint64) {
	inc, fe := t.start(ctx, gen)
	if fe != nil {
		if ctx.Err() != nil { // Stop abandoned the start: planned, not a failure
			t.o.Logger.Debug("extension host start abandoned: the tier was stopped", "generation", gen, "error", fe)
		} else {
			t.o.Logger.Error("extension host start failed", "error", fe)
		}
		t.crashed(fe, true)
		return
	}
	if inc.killReason() != "" {
		// killed while the owner layer activated (an activation blocked the host): it is
		// never reported Ready; its end is handled as any other
		t.watch(inc)
		return
	}
	t.mu.Lock()
	if t.state != StateStarting {
		// Stop came in after the handshake (while the owner layer was activating): the host
		// answers, so it is shut down the way Stop shuts down a ready one.
		t.mu.Unlock()
		t.stopIncarnation(inc, "the tier was stopped")
		return
	}
	readyAt := t.o.Clock.Now()
	t.cur, t.readyAt = inc, readyAt
	t.setStateLocked(StateReady)
	t.mu.Unlock()
	t.o.Logger.Info("extension host ready", "generation", gen, "shim_pid", inc.shimPID, "runtime_pid", inc.rt.PID,
		"shim_start", inc.shimUp.Sub(inc.started), "runtime_spawn", inc.rtUp.Sub(inc.shimUp),
		"handshake", readyAt.Sub(inc.rtUp))
	t.wg.Add(1)
	go func() { defer t.wg.Done(); t.heartbeat(inc) }()
	t.watch(inc)
}

// start spawns and handshakes one incarnation, then lets the owner layer activate.
func (t *TierRuntime) start(ctx context.Context, gen uint64) (*incarnation, *FailureError) {
	if f := t.o.BeforeLaunch; f != nil {
		if err := f(); err != nil {
			return nil, &FailureError{Tier: t.o.Tier, Group: t.o.Group, Generation: gen, Reason: err.Error(), Err: err}
		}
	}
	inc, err := spawn(ctx, &t.o, gen, func(inc *incarnation) rpc.Handler { return &hostHandler{t: t, inc: inc} })
	if err != nil {
		return nil, &FailureError{Tier: t.o.Tier, Group: t.o.Group, Generation: gen, Reason: err.Error(), Err: err}
	}
	if err := t.handshake(ctx, inc); err != nil {
		tail := t.stderrTail(inc)
		if ctx.Err() != nil {
			inc.planned.Store(true) // Stop abandoned the start
		}
		inc.hardStop(context.Background())
		if tail == "" {
			tail = exitTail(inc)
		}
		return nil, &FailureError{Tier: t.o.Tier, Group: t.o.Group, Generation: gen, Reason: t.withMemoryHint(inc, err.Error(), tail), StderrTail: tail, Err: err}
	}
	if o := t.o.Owners; o != nil {
		if err := o.HostReady(ctx, t.o.Host(), gen, &Host{t: t, inc: inc}); err != nil {
			t.o.Logger.Warn("owner layer failed after the handshake", "generation", gen, "error", err)
		}
	}
	return inc, nil
}

// watch waits for the incarnation to end and handles an unplanned end as a crash.
func (t *TierRuntime) watch(inc *incarnation) {
	<-inc.peerDone
	if inc.planned.Load() {
		return // Stop or a planned restart owns the teardown
	}
	cause := endCause(inc)
	inc.hardStop(context.Background())
	tail := exitTail(inc)
	fe := &FailureError{Tier: t.o.Tier, Group: t.o.Group, Generation: inc.gen, Reason: t.withMemoryHint(inc, cause.Error(), tail), StderrTail: tail, Err: cause}
	t.o.Logger.Warn("extension host exited", "error", fe)
	info := ExitInfo{Reason: fe, Activating: inc.activating.sole(), Hung: inc.killReason() != "", Blocked: inc.blocked.Load()}
	if info.Hung {
		info.Busy = inc.busyOwner()
	}
	if o := t.o.Owners; o != nil {
		o.HostExited(t.o.Host(), inc.gen, info)
	}
	t.crashed(fe, info.Crash())
}

// crashed handles an unplanned end (an unexpected exit, a violation, a heartbeat kill, a
// blocked activation or a failed start), counting it as a crash when counted says so:
// within the budget the next generation starts after restartDelay; the last crash of the
// budget leaves the tier Failed until Retry.
func (t *TierRuntime) crashed(fe *FailureError, counted bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.state == StateStopping || t.state == StateStopped {
		return
	}
	t.cur, t.failure = nil, fe
	now := t.o.Clock.Now()
	if counted && t.crashes.add(now) {
		t.failure = &FailureError{Tier: fe.Tier, Group: fe.Group, Generation: fe.Generation,
			Reason: "crash budget exhausted: " + fe.Reason, StderrTail: fe.StderrTail, Err: fe.Err}
		t.setStateLocked(StateFailed)
		return
	}
	t.setStateLocked(StateRestarting)
	d := restartDelay(t.o.RestartBackoff, t.crashes.count(now), now.Sub(t.startedAt))
	t.restart = t.o.Clock.AfterFunc(d, func() {
		t.mu.Lock()
		defer t.mu.Unlock()
		if t.state == StateRestarting {
			t.beginStartLocked()
		}
	})
}

// restartDelay is how long a tier waits before the generation after a crash. The first
// crash in the window (recent ≤ 1: the ended generation's own, when it was counted)
// restarts at once. After that, starts are spaced at least backoff apart, counted from the
// start of the generation that ended (lived ago): a generation that crashes while it starts
// waits out the rest of the backoff, so a crash loop starts at most one generation per
// backoff until the crash budget leaves the tier Failed, while a host that ran longer than
// the backoff restarts at once.
func restartDelay(backoff time.Duration, recent int, lived time.Duration) time.Duration {
	if recent <= 1 || lived >= backoff {
		return 0
	}
	return backoff - max(lived, 0)
}

// ReportDirtyTeardown records a deactivation that did not dispose cleanly. The DirtyLimit-th
// within DirtyWindow schedules one planned restart: the incarnation's peer is drained at
// once (new calls refused NotAvailable), and the host is restarted when the peer reports
// no call in flight. It is not a crash.
func (t *TierRuntime) ReportDirtyTeardown() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.dirty.add(t.o.Clock.Now()) || t.planning || t.state != StateReady {
		return
	}
	t.dirty.reset()
	t.planning = true
	inc := t.cur
	idle := inc.peer.Drain(fmt.Errorf("%w: the extension host is restarting", ErrNotAvailable))
	t.wg.Add(1)
	go func() {
		defer t.wg.Done()
		t.plannedRestart(inc, idle)
	}()
}

func (t *TierRuntime) plannedRestart(inc *incarnation, idle <-chan struct{}) {
	select {
	case <-idle:
	case <-inc.peerDone: // it died meanwhile: the crash path restarts it
		t.mu.Lock()
		t.planning = false
		t.mu.Unlock()
		return
	}
	inc.planned.Store(true)
	t.mu.Lock()
	if t.cur != inc || t.state != StateReady && t.state != StateUnresponsive {
		t.planning = false
		t.mu.Unlock()
		return
	}
	t.setStateLocked(StateRestarting)
	t.mu.Unlock()
	t.o.Logger.Info("planned restart after repeated dirty teardowns", "generation", inc.gen)
	t.stopIncarnation(inc, "planned restart after repeated dirty teardowns")
	t.mu.Lock()
	defer t.mu.Unlock()
	t.planning = false
	if t.state == StateRestarting {
		t.cur = nil
		t.beginStartLocked()
	}
}

var memoryHint = lazyre.New(`(?i)out of memory|allocation failed|heap limit|cannot allocate memory|ENOMEM`)

// withMemoryHint names the data limit when the runtime's end looks like memory exhaustion.
// The shim names the limit itself when the runtime died of it (shared.MemoryLimitPhrase); then the
// reason stands as it is.
func (t *TierRuntime) withMemoryHint(inc *incarnation, reason, tail string) string {
	if strings.Contains(reason, shared.MemoryLimitPhrase) || !memoryHint().MatchString(tail) && !memoryHint().MatchString(reason) {
		return reason
	}
	limit := inc.rt.MemoryLimitBytes
	if limit == 0 {
		limit = t.o.MemoryLimitBytes
	}
	return fmt.Sprintf("%s: the runtime ran out of memory under its data limit (RLIMIT_DATA %d MiB; [extension_host] memory_limit_mib)", reason, limit>>20)
}

// endCause says why an incarnation's channel ended: the shim's exit report (a
// *shared.ExitError), the protocol violation, or the broken stream. The text names the
// core's kill reason first when there is one; the peer's end reason stays wrapped.
func endCause(inc *incarnation) error {
	err := inc.peer.Err()
	if ex := inc.ch.Exit(); ex != nil {
		exit := &shared.ExitError{Exit: *ex}
		if r := inc.killReason(); r != "" {
			return errdefs.WithText(r+" ("+ex.String()+")", exit, err)
		}
		return errdefs.WithText(ex.String(), exit, err)
	}
	if r := inc.killReason(); r != "" {
		return errdefs.WithText(r, err)
	}
	if err == nil {
		return errChannelEnded
	}
	if errors.Is(err, rpc.ErrViolation) || errors.Is(err, shared.ErrRuntimeExited) {
		return err
	}
	return fmt.Errorf("the shim went away: %w", err)
}

var errChannelEnded = errors.New("the channel ended")

func exitTail(inc *incarnation) string {
	if inc.ch != nil {
		if ex := inc.ch.Exit(); ex != nil {
			return tailString(ex.StderrTail)
		}
	}
	return ""
}

// stderrTail asks a live shim for the runtime's stderr tail (bounded).
func (t *TierRuntime) stderrTail(inc *incarnation) string {
	if tail := exitTail(inc); tail != "" {
		return tail
	}
	if inc.shim == nil || inc.shimExited() {
		return ""
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	st, err := inc.shim.Stats(ctx)
	if err != nil {
		return ""
	}
	return tailString(st.StderrTail)
}

func tailString(b []byte) string {
	if len(b) > stderrTailMax {
		b = b[len(b)-stderrTailMax:]
	}
	return strings.ToValidUTF8(string(b), "\uFFFD")
}
