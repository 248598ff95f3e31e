package core

import (
	"context"
	"fmt"
	"path/filepath"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/cwx-dev/cwx/core/bundle"
	"github.com/cwx-dev/cwx/core/catalog"
	"github.com/cwx-dev/cwx/core/config"
	"github.com/cwx-dev/cwx/core/gate"
	"github.com/cwx-dev/cwx/core/natives"
	"github.com/cwx-dev/cwx/core/owners"
	"github.com/cwx-dev/cwx/core/plugins"
	"github.com/cwx-dev/cwx/core/registry"
	"github.com/cwx-dev/cwx/core/supervisor"
	"github.com/cwx-dev/cwx/nodeshim/jshost"
)

// Deadlines of the call path (ARCHITECTURE.md, “Lifecycles and numbers”).
const (
	ToolCallDeadline   = 120 * time.Second
	CommandRunDeadline = 30 * time.Second
	ActivateDeadline   = owners.ActivateDeadline // the host's own bound is 5 s
	DeactivateDeadline = owners.DeactivateDeadline
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
	// natives.BuiltinWith with the home and the hooks files protected; an embedder adds its own with natives.BuiltinWith(o).With(...), o naming the paths to protect, each
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
// safe for concurrent use. The owner layer (core/owners) runs the owners and their hosts; the
// Manager is its facade and the call path.
type Manager struct {
	o     Options
	log   hclog.Logger
	home  string
	store *plugins.Store
	own   *owners.Layer
	reg   *registry.Registry // the owner layer's
	gate  *gate.Gate
	nat   nativeTable // the native tools, fixed at Open

	cc coreCalls // tickets and the invocations core/call serves (invocation.go)

	// hookDeadline bounds a batch of pre-execute hooks; 0 is hooks.BatchDeadline (prehook.go).
	hookDeadline time.Duration

	hooks *cmdHookRunner // the command hooks of the current configuration (builtin_hooks.go)

	hooksDown hooksDownNote // the last denial for hook holders that are not live (prehook.go)
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
	if anyEnabled(st) && !o.Lazy { // a lazy Manager checks at its first tier start
		if err := owners.CheckShim(ctx, o.ShimPath, home, log); err != nil {
			return nil, err
		}
	}
	nat, err := openNatives(o, append([]string{home}, cfg.Hooks.Files...))
	if err != nil {
		return nil, err
	}
	m := &Manager{o: o, log: log, home: home, store: store, gate: gate.New(posture, o.Approver), nat: nat}
	m.hooks = &cmdHookRunner{log: log, gate: m.gate}
	m.hooks.transcripts.Dir = filepath.Join(home, "transcripts") // README, “Command hooks”
	oo := owners.Options{
		Home: home, Logger: log, Store: store, NativeTools: nat.set.Names(), BuiltinCommands: o.BuiltinCommands,
		Config: cfg, Requests: hostRequests{m},
		Builtin: map[string]owners.BuiltinSource{ScriptToolsModule: func(_ *config.Config, want map[string]plugins.Desired) (owners.BuiltinWork, error) {
			return scriptToolsWork(home, nat, m.reg, want)
		}, HooksModule: m.hooks.hooksWork},
		Bundle: o.Bundle, ShimPath: o.ShimPath, PollInterval: o.PollInterval, Tier: o.Tier, Lazy: o.Lazy, Now: o.Now,
	}
	if testSeams != nil {
		testSeams(m, &oo)
	}
	m.own = owners.New(oo)
	m.reg = m.own.Registry()
	m.hooks.own = m.own
	return m, nil
}

// testSeams, set only by this package's tests, adjusts each Manager's owner-layer options
// (fake tiers, hosts observed).
var testSeams func(*Manager, *owners.Options)

// Close revokes nothing by itself: it fails the calls in flight, stops the state watcher and
// shuts every tier down within its bound (host/shutdown, then SIGTERM, then SIGKILL at
// supervisor.DefaultKillAfter). It returns ctx's error if ctx ends first; the shutdown still completes in the
// background within its bound.
func (m *Manager) Close(ctx context.Context) error { return m.own.Close(ctx) }

// Home is the cwx home this Manager reads.
func (m *Manager) Home() string { return m.home }

// Plugins returns the plugin store (install, review, trust, enable, disable, remove, show).
// Changes made through it take effect at the next Reconcile, or within the poll interval
// once Reconcile has run.
func (m *Manager) Plugins() *PluginStore { return m.store }

// Reconcile brings the live owners in line with what is desired (enabled ∧ trusted ∧
// receipt valid, read afresh from state.json and config.toml): owners no longer desired are
// revoked, owners whose closure hash or config digest changed are revoked and activated
// again under a new generation, missing owners are activated in parallel. A tier is started
// only when a desired plugin needs it; with nothing desired nothing is spawned or
// materialized. A plugin that failed or faulted is not retried until its bytes or config
// change or Reload is called. The error joins, besides a tier that could not start, one
// *PluginError per desired plugin that is failed or faulted afterwards (PluginErrors splits
// them off; Owners lists every owner). After the first Reconcile the Manager polls the state
// generation every plugins.PollInterval and reconciles by itself when another process changes it.
func (m *Manager) Reconcile(ctx context.Context) error { return m.own.Reconcile(ctx) }

// Reload re-reads config.toml and the state like Reconcile, and also retries the plugins
// held back after a failed activation or a fault (`cwx plugin reload`).
func (m *Manager) Reload(ctx context.Context) error { return m.own.Reload(ctx) }

// Advertise is Reconcile for a listing: it activates only the desired plugins with no valid
// catalog entry, and defers every other one, hooks or not, so that Tools and Commands answer
// from the catalog. With every enabled plugin cached it starts no process at all. A later
// call to a deferred plugin's tool or command activates it, with the hook holders.
func (m *Manager) Advertise(ctx context.Context) error { return m.own.Advertise(ctx) }

// Status reports both tiers; a tier never started is "idle".
func (m *Manager) Status() []TierStatus { return m.own.Status() }

// Host reports one tier's incarnation: runtime pid, host generation and crash count.
func (m *Manager) Host(t Tier) HostInfo { return m.own.Host(t) }

// KillRuntime sends SIGKILL to the tier's runtime process (a test hook for people: the
// repl's `/host kill`). The supervisor sees the crash and restarts within its budget.
func (m *Manager) KillRuntime(t Tier) error { return m.own.KillRuntime(t) }

// Retry clears a Failed tier's crash budget; its next need spawns it again (and replays
// the desired owners).
func (m *Manager) Retry(t Tier) { m.own.Retry(t) }

// Owner reports the plugin's latest owner in this Manager (after Reconcile): its state,
// the reason when it is not active (activation failure, refused registration, fault), and
// the names it has live. The plugin's diagnostics ring (Plugins().Get) keeps the history.
func (m *Manager) Owner(pluginID string) (OwnerInfo, bool) { return m.own.Owner(pluginID) }

// Owners reports the latest owner of every plugin this Manager activated, sorted by plugin
// id: its state, the reason when it is not active and how long its activation took.
func (m *Manager) Owners() []OwnerInfo { return m.own.Owners() }

// BuiltinModules lists every pinned builtin module: its digest, whether it had work at this
// Manager's last Reconcile, its owner's state and live tools, why it has no live owner (its
// file differs from the pin, or the owner's failure, fault or revocation), and what was refused.
func (m *Manager) BuiltinModules() []BuiltinModuleInfo { return m.own.BuiltinModules() }

// SandboxStatus decides, once per Manager, whether the plugin tier runs sandboxed: it
// resolves the runtime and bubblewrap and runs the probe (itself once per process).
func (m *Manager) SandboxStatus() SandboxStatus { return m.own.SandboxStatus() }

// Catalog is the plugin catalog of this Manager's home.
func (m *Manager) Catalog() *catalog.Store { return m.own.Catalog() }

// Changes returns a channel that receives a Change after the live catalog changes, until
// ctx ends or the Manager closes; then the channel is closed. Changes are coalesced: a
// receiver that falls behind finds one Change with the newest generation. Nothing is
// polled: the registry reports each change as it happens.
func (m *Manager) Changes(ctx context.Context) <-chan Change { return m.own.Changes(ctx) }

// CatalogGeneration is the generation of the live catalog: the number of changes since
// Open. Compare it with a Change's to know whether a listing is current.
func (m *Manager) CatalogGeneration() uint64 { return m.own.CatalogGeneration() }

// FlushDiagnostics waits until every diagnostic queued so far is in state.json.
func (m *Manager) FlushDiagnostics(ctx context.Context) error { return m.own.FlushDiagnostics(ctx) }

// NotLive is the error a call to name would fail with when no live tool or command has it:
// a *NotLiveError naming the plugin the name belongs to and why it is not active, when
// the claim table knows. kind is "tool" or "command".
func (m *Manager) NotLive(kind, name string) error { return m.own.NotLive(kind, name) }
