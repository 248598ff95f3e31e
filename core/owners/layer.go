package owners

import (
	"context"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/cwx-dev/cwx/core/bundle"
	"github.com/cwx-dev/cwx/core/catalog"
	"github.com/cwx-dev/cwx/core/config"
	"github.com/cwx-dev/cwx/core/fetchproxy"
	"github.com/cwx-dev/cwx/core/plugins"
	"github.com/cwx-dev/cwx/core/protocol"
	"github.com/cwx-dev/cwx/core/registry"
	"github.com/cwx-dev/cwx/core/runtime"
	"github.com/cwx-dev/cwx/core/supervisor"
)

// Requests is what the layer hands on of what a host asks: the requests it does not answer
// itself (core/call, user/ask), and the end of an incarnation, which ends what the call path
// keeps for it (its tickets). The call path implements it.
type Requests interface {
	HandleRequest(ctx context.Context, k protocol.HostKey, gen uint64, msg *protocol.Message) (any, error)
	HostEnded(k protocol.HostKey, gen uint64)
}

// Options configure a Layer.
type Options struct {
	Home   string
	Logger hclog.Logger
	Store  *plugins.Store
	// NativeTools and BuiltinCommands are the names the registry reserves for the core.
	NativeTools, BuiltinCommands []string
	// Config is the configuration read at open; every Reconcile reads it afresh.
	Config *config.Config
	// Requests answers what the layer does not; nil refuses those requests.
	Requests Requests
	// Builtin computes each builtin module's work, by module id, at every Reconcile.
	Builtin map[string]BuiltinSource
	// Bundle, ShimPath, PollInterval, Tier and Lazy are core.Options' fields of those names.
	Bundle       bundle.Bundle
	ShimPath     string
	PollInterval time.Duration
	Tier         func(*supervisor.Options)
	Lazy         bool
	// Isolate are core.Options.Isolate: plugins given a host of their own whatever
	// config.toml says.
	Isolate []string
	// Now is the clock of log rate limiting.
	Now func() time.Time
	// NewTier, when set, creates a host's runtime in place of real, the supervisor's (tests
	// give fakes, or count the real ones).
	NewTier func(k protocol.HostKey, real func(protocol.HostKey) (Tier, error)) (Tier, error)
	// Fetch configures the fetch proxy that serves the hosts' net/* requests (its Logger
	// defaults to Logger); Fetch.Invocation ties a request's ticket to its invocation.
	Fetch fetchproxy.Options
	// WrapHost, when set, wraps every incarnation the layer activates owners on (tests
	// observe what reaches a host).
	WrapHost func(Host) Host
}

// tierState is what the layer keeps about one host (a tier's shared host or a plugin's
// own), in one place (guarded by Layer.mu).
type tierState struct {
	rt        Tier   // nil until the tier is first needed
	hostGen   uint64 // newest incarnation the owner layer saw
	exitedGen uint64 // newest incarnation hostEnded handled
	// suspects were activating together when a host died with no single activation to
	// blame; the next incarnation activates them one at a time, after the others.
	suspects map[string]bool
	// lastBlame is the newest fault or host end blamed on a plugin of the tier, as
	// blameLine writes it (TierStatus.LastBlame).
	lastBlame string
	// grants is, for a plugin's own host, the grants its sandbox was built with (grantsKey).
	grants string
	// mounts are what its sandbox shows a runtime (runtime.Profile.Mounts), nil unsandboxed.
	mounts []string
}

// Layer is the owner layer: the owners of the desired plugins, their activation, replay and
// revocation, the tiers whose hosts they live in, the catalog that stands in for deferred
// plugins, and the answers to what hosts report. It is safe for concurrent use.
type Layer struct {
	o     Options
	log   hclog.Logger
	home  string
	store *plugins.Store
	reg   *registry.Registry
	diags *diagWriter
	logs  *logLimiter

	reconcileMu sync.Mutex // one reconcile at a time

	// mu guards the fields below it; it is never held across I/O. Lock order: mu before the
	// registry's lock, an owner's and lazy.mu.
	mu      sync.Mutex
	cfg     *config.Config             // +checklocks:mu
	desired map[string]plugins.Desired // +checklocks:mu
	// owners holds the latest owner per plugin id.
	owners map[string]*Owner // +checklocks:mu
	// unverified maps a plugin the last reconcile left out, its staged bytes no longer
	// hashing to its receipt, to why (absent.go says so for its names).
	unverified map[string]string // +checklocks:mu
	// blocked maps a plugin id to the last receipt problem recorded for it.
	blocked map[string]string               // +checklocks:mu
	tiers   map[protocol.HostKey]*tierState // +checklocks:mu
	// rt is the runtime, pinned at the first tier start.
	rt       *runtime.Runtime // +checklocks:mu
	watching bool             // +checklocks:mu
	closed   bool             // +checklocks:mu

	newTier   func(protocol.HostKey) (Tier, error)
	bg        context.Context
	bgCancel  context.CancelFunc
	wg        sync.WaitGroup // watcher and diagnostics goroutines
	closeOnce sync.Once
	stopped   chan struct{} // closed when Close finished
	changes   *changeFeed
	sandbox   sandboxState // the plugin tier's sandbox, decided once
	lazy      lazyState    // the plugin catalog and the plugins it stands in for
	builtin   builtinState // the builtin modules' last work and reported notes
	fetch     *fetchproxy.Proxy
	// snapFailed holds the snapshot keys whose build failed in this process: not tried again
	snapFailed sync.Map
}

// tierLocked returns k's state for a change, creating it. l.tiers holds an entry only for a
// host that was started: callers are the host's creation and what its incarnations report.
//
// +checklocks:l.mu
func (l *Layer) tierLocked(k protocol.HostKey) *tierState {
	ts := l.tiers[k]
	if ts == nil {
		ts = &tierState{}
		l.tiers[k] = ts
	}
	return ts
}

// peekLocked returns a copy of k's state to read: the zero value for a host never started.
//
// +checklocks:l.mu
func (l *Layer) peekLocked(k protocol.HostKey) tierState {
	if ts := l.tiers[k]; ts != nil {
		return *ts
	}
	return tierState{}
}

// stateOf returns o's state: the registry's record of it, the only one.
func (l *Layer) stateOf(o *Owner) registry.State { return l.reg.State(o.ref) }

// Current returns the plugin's latest owner, nil when it has none.
func (l *Layer) Current(id string) *Owner {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.owners[id]
}

// Config is the configuration the last Reconcile read (or the one given at open).
func (l *Layer) Config() *config.Config {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.cfg
}

// Started reports how many hosts were started.
func (l *Layer) Started() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for _, ts := range l.tiers {
		if ts.rt != nil {
			n++
		}
	}
	return n
}

// Catalog is the plugin catalog of the layer's home.
func (l *Layer) Catalog() *catalog.Store { return l.lazy.cat }

// Changes returns a channel that receives a Change after the live catalog changes, until
// ctx ends or the Manager closes; then the channel is closed. Changes are coalesced: a
// receiver that falls behind finds one Change with the newest generation. Nothing is
// polled: the registry reports each change as it happens.
func (l *Layer) Changes(ctx context.Context) <-chan Change {
	c := l.changes.subscribe()
	sub, cancel := context.WithCancel(ctx)
	stopBg := context.AfterFunc(l.bg, cancel)
	context.AfterFunc(sub, func() {
		stopBg()
		cancel()
		l.changes.unsubscribe(c)
	})
	return c
}

// CatalogGeneration is the generation of the live catalog: the number of changes since
// Open. Compare it with a Change's to know whether a listing is current.
func (l *Layer) CatalogGeneration() uint64 { return l.changes.generation() }

// CatalogChanged records a change of the live catalog made outside the registry (an MCP
// server's admitted tools: its start, a list_changed re-admission, its end), so Changes
// delivers it like the registry's own. It never blocks.
func (l *Layer) CatalogChanged() { l.changes.notify() }

// FlushDiagnostics waits until every diagnostic queued so far is in state.json.
func (l *Layer) FlushDiagnostics(ctx context.Context) error {
	select {
	case <-l.diags.flushed():
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// mode is the mode of Reconcile: lazy when Options.Lazy asks for it.
func (l *Layer) mode() reconcileMode {
	if l.o.Lazy {
		return modeLazy
	}
	return modeEager
}

func (l *Layer) anyDeferred() bool {
	l.lazy.mu.Lock()
	defer l.lazy.mu.Unlock()
	return len(l.lazy.deferred) > 0
}

// Registry is the registry the layer keeps the owners in; the call path looks up and
// validates through it.
func (l *Layer) Registry() *registry.Registry { return l.reg }
