package core

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/cwx-dev/cwx/core/bundle"
	"github.com/cwx-dev/cwx/core/config"
	"github.com/cwx-dev/cwx/core/gate"
	"github.com/cwx-dev/cwx/core/natives"
	"github.com/cwx-dev/cwx/core/plugins"
	"github.com/cwx-dev/cwx/core/protocol"
	"github.com/cwx-dev/cwx/core/registry"
	"github.com/cwx-dev/cwx/core/runtime"
	"github.com/cwx-dev/cwx/core/supervisor"
	"github.com/cwx-dev/cwx/nodeshim/jshost"
)

// Deadlines of the call path (ARCHITECTURE.md, “Lifecycles and numbers”).
const (
	ToolCallDeadline   = 120 * time.Second
	CommandRunDeadline = 30 * time.Second
	ActivateDeadline   = 6 * time.Second // the host's own bound is 5 s
	DeactivateDeadline = 2500 * time.Millisecond
	hostActivateMS     = 5000
)

// Options configure a Manager. The zero value reads $CWX_HOME (or ~/.cwx) and runs the
// embedded bundle through this executable re-executed as the shim.
type Options struct {
	// Home is the cwx home; "" means config.Home() ($CWX_HOME or ~/.cwx).
	Home string
	// Logger receives the core's logs and the hosts' `log` lines; nil means DefaultLogger
	// (warnings and errors on stderr). hclog.NewNullLogger() discards them.
	Logger hclog.Logger
	// Approver answers approval cards when a CallOptions gives none; nil makes an `ask`
	// posture fail closed.
	Approver Approver
	// Approval is the posture flag (`--approve`): "ask", "auto" or "deny"; "" falls back to
	// [extension_host] approval, then ask.
	Approval string
	// Natives are the native tools the core runs itself, listed with origin native and
	// called through the gate like extension tools; their names are reserved. nil means
	// natives.Builtin(); an embedder adds its own with natives.Builtin().With(...), each
	// Spec saying whether it is auto-eligible (ARCHITECTURE.md, “Native tools”).
	Natives *natives.Set
	// BuiltinCommands are the embedder's own command names, reserved like the core's.
	BuiltinCommands []string
	// ShimPath is the cwx binary re-executed as `cwx nodeshim`; "" means this executable,
	// whose main must then hand that invocation to nodeshim.Main first (examples/embed).
	// Open checks it once per process when a plugin is enabled (ErrNoShim).
	ShimPath string
	// Bundle is the JS host bundle; the zero value is the embedded one.
	Bundle bundle.Bundle
	// PollInterval is how often the state generation is re-read once Reconcile has run;
	// 0 means plugins.PollInterval (1 s), negative disables the watcher.
	PollInterval time.Duration
	// Tier adjusts each tier's supervisor options before the tier is created (tests shorten
	// timings here).
	Tier func(*supervisor.Options)
	// Now is the clock of log rate limiting; nil means time.Now.
	Now func() time.Time
	// Lazy makes Reconcile leave inactive every plugin whose catalog entry (its last
	// successful activation with the same bytes, config and host bundle) holds no
	// pre-execute hook: Tools and Commands list those from the catalog (Cached), and the
	// first call to one of their names activates the plugin. The zero value, eager,
	// activates every desired plugin in Reconcile, as a long-lived embedder, `cwx repl` and
	// `cwx serve --mcp` want; `cwx tool list|call` and `cwx command list|run` are lazy
	// (ARCHITECTURE.md, “Catalog”).
	Lazy bool
}

// Approver answers approval cards (gate.Approver).
type Approver = gate.Approver

// ApprovalCard is what an Approver is shown (gate.Card).
type ApprovalCard = gate.Card

// Decision is an Approver's answer: AllowOnce, AllowSession, AllowToolForSession or
// DenyDecision (gate.Decision).
type Decision = gate.Decision

// The decisions, so an Approver needs nothing below the Manager. AllowSession remembers the
// card's Key (this exact input) for the Manager's lifetime, AllowToolForSession its ToolKey
// (any input to that tool of that plugin build, from the same origin); a Forced card
// (shell) remembers neither and offers no ToolKey.
const (
	DenyDecision        = gate.DenyDecision
	AllowOnce           = gate.AllowOnce
	AllowSession        = gate.AllowSession
	AllowToolForSession = gate.AllowToolForSession
)

// ApproverFunc adapts a function to Approver (gate.ApproverFunc).
type ApproverFunc = gate.ApproverFunc

// Manager is the core: it runs the plugins the user enabled and trusted in their hosts,
// keeps the owner registry, and is the single gate every tool and command call passes. It is
// safe for concurrent use.
type Manager struct {
	o     Options
	log   hclog.Logger
	home  string
	store *plugins.Store
	reg   *registry.Registry
	gate  *gate.Gate
	nat   nativeTable // the native tools, fixed at Open
	diags *diagWriter
	logs  *logLimiter

	reconcileMu sync.Mutex // one reconcile at a time

	// mu guards the fields below it up to callSeq; it is never held across I/O. Lock
	// order: mu before the registry's lock and before an owner's.
	mu      sync.Mutex
	cfg     *config.Config             // +checklocks:mu
	desired map[string]plugins.Desired // +checklocks:mu
	// owners holds the latest owner per plugin id.
	owners map[string]*owner // +checklocks:mu
	// blocked maps a plugin id to the last receipt problem recorded for it.
	blocked map[string]string            // +checklocks:mu
	tiers   map[protocol.Tier]*tierState // +checklocks:mu
	// rt is the runtime, pinned at the first tier start.
	rt *runtime.Runtime // +checklocks:mu
	// wrapHost lets tests observe what reaches a host.
	wrapHost func(host) host // +checklocks:mu
	watching bool            // +checklocks:mu
	closed   bool            // +checklocks:mu

	callSeq   atomic.Uint64
	cc        coreCalls                         // tickets and the invocations core/call serves (invocation.go)
	newTier   func(protocol.Tier) (tier, error) // set by Open; tests replace the supervisor before the first Reconcile
	bg        context.Context
	bgCancel  context.CancelFunc
	wg        sync.WaitGroup // watcher and diagnostics goroutines
	closeOnce sync.Once
	stopped   chan struct{} // closed when Close finished
	changes   *changeFeed   // the catalog's change feed (changes.go)
	sandbox   sandboxState  // the plugin tier's sandbox, decided once (sandbox.go)

	// hookDeadline bounds a batch of pre-execute hooks; 0 is hooks.BatchDeadline (prehook.go).
	hookDeadline time.Duration

	lazy lazyState // the plugin catalog and the plugins it stands in for (lazy.go)

	builtin builtinState // the builtin modules' last work and reported notes (builtin.go)

	cmdHooks cmdHookState // the command hooks of the current configuration (builtin_hooks.go)

	// hooksDown is the last denial for hook holders that are not live, so that it is logged
	// when it changes rather than at every call (prehook.go).
	hooksDown struct {
		mu   sync.Mutex
		last string // +checklocks:mu
	}
}

// tierState is what the Manager keeps about one tier, in one place (guarded by
// Manager.mu).
type tierState struct {
	rt        tier   // nil until the tier is first needed
	crashes   int    // unexpected ends of the tier's hosts seen by this Manager
	hostGen   uint64 // newest incarnation the owner layer saw
	exitedGen uint64 // newest incarnation hostExited handled
	// suspects were activating together when a host died with no single activation to
	// blame; the next incarnation activates them one at a time, after the others.
	suspects map[string]bool
	// lastBlame is the newest fault or host end blamed on a plugin of the tier, as
	// blameLine writes it (TierStatus.LastBlame).
	lastBlame string
}

// tierLocked returns t's state for a change, creating it. m.tiers holds an entry only for a
// tier that was started: callers are the tier's creation and what its hosts report.
//
// +checklocks:m.mu
func (m *Manager) tierLocked(t protocol.Tier) *tierState {
	ts := m.tiers[t]
	if ts == nil {
		ts = &tierState{}
		m.tiers[t] = ts
	}
	return ts
}

// peekLocked returns a copy of t's state to read: the zero value for a tier never started.
//
// +checklocks:m.mu
func (m *Manager) peekLocked(t protocol.Tier) tierState {
	if ts := m.tiers[t]; ts != nil {
		return *ts
	}
	return tierState{}
}

// Open reads the cwx home, config.toml and the plugin state. It materializes nothing and
// starts no tier: tiers start in Reconcile, only when a desired plugin needs one. When a
// plugin is enabled it checks, once per process, that the shim program (Options.ShimPath or
// this executable) runs nodeshim.Main, by running it once as `<program> nodeshim` with a
// tier nodeshim refuses; a program that does not is ErrNoShim, saying what to change.
func Open(ctx context.Context, o Options) (*Manager, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	home := o.Home
	if home == "" {
		h, err := config.Home()
		if err != nil {
			return nil, err
		}
		home = h
	}
	log := o.Logger
	if log == nil {
		log = DefaultLogger()
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Bundle.Bytes == nil {
		o.Bundle = bundle.Embedded()
	}
	cfg, err := config.LoadHome(home)
	if err != nil {
		return nil, err
	}
	posture, err := gate.ResolvePosture(o.Approval, cfg.ExtensionHost.Approval)
	if err != nil {
		return nil, err
	}
	provided, err := jshost.Provided()
	if err != nil {
		return nil, fmt.Errorf("read the host's provided modules: %w", err)
	}
	store, err := plugins.Open(plugins.Options{Home: home, Provided: provided.Provided, Refused: provided.Refused})
	if err != nil {
		return nil, err
	}
	st, err := store.State()
	if err != nil {
		return nil, err
	}
	if anyEnabled(st) && !o.Lazy { // a lazy Manager checks at its first tier start (lazy.go)
		if err := checkShim(ctx, o.ShimPath, probeCache(home, log)); err != nil {
			return nil, err
		}
	}
	nat, err := openNatives(o, append([]string{home}, cfg.Hooks.Files...))
	if err != nil {
		return nil, err
	}
	bg, cancel := context.WithCancel(context.Background())
	feed := &changeFeed{}
	m := &Manager{
		o: o, log: log, home: home, store: store,
		reg:     registry.New(registry.Options{NativeTools: nat.set.Names(), BuiltinCommands: o.BuiltinCommands, Changed: feed.notify}),
		gate:    gate.New(posture, o.Approver),
		nat:     nat,
		logs:    newLogLimiter(o.Now),
		cfg:     cfg,
		desired: map[string]plugins.Desired{}, owners: map[string]*owner{}, blocked: map[string]string{},
		tiers: map[protocol.Tier]*tierState{},
		bg:    bg, bgCancel: cancel, stopped: make(chan struct{}),
		changes: feed,
	}
	m.cmdHooks.transcripts.Dir = filepath.Join(home, "transcripts") // README, “Command hooks”
	m.newTier = m.supervisedTier
	if o.Lazy {
		m.newTier = m.shimCheckedTier
	}
	m.lazy.open(home, o.Bundle, log)
	m.diags = newDiagWriter(store, log)
	m.wg.Add(1)
	go func() { defer m.wg.Done(); m.diags.run(bg) }()
	return m, nil
}

// Close revokes nothing by itself: it fails the calls in flight, stops the state watcher and
// shuts every tier down within its bound (host/shutdown, then SIGTERM, then SIGKILL at
// supervisor.DefaultKillAfter). It returns ctx's error if ctx ends first; the shutdown still completes in the
// background within its bound.
func (m *Manager) Close(ctx context.Context) error {
	m.closeOnce.Do(func() {
		m.mu.Lock()
		m.closed = true
		for _, o := range m.owners {
			o.end(causeClosed)
		}
		tiers := make([]tier, 0, len(m.tiers))
		for _, ts := range m.tiers {
			if ts.rt != nil {
				tiers = append(tiers, ts.rt)
			}
		}
		m.mu.Unlock()
		m.bgCancel()
		go func() {
			defer close(m.stopped)
			var wg sync.WaitGroup
			for _, t := range tiers {
				wg.Add(1)
				go func() { defer wg.Done(); t.Stop() }()
			}
			wg.Wait()
			m.wg.Wait()
		}()
	})
	select {
	case <-m.stopped:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("close the extension hosts: %w", context.Cause(ctx))
	}
}

// Home is the cwx home this Manager reads.
func (m *Manager) Home() string { return m.home }

// Plugins returns the plugin store (install, review, trust, enable, disable, remove, show).
// Changes made through it take effect at the next Reconcile, or within the poll interval
// once Reconcile has run.
func (m *Manager) Plugins() *PluginStore { return m.store }

var errClosed = errors.New("the extension manager is closed")
