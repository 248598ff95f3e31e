package core

import (
	"context"

	"github.com/cwx-dev/cwx/core/catalog"
	"github.com/cwx-dev/cwx/core/gate"
	"github.com/cwx-dev/cwx/core/mcpclient"
	"github.com/cwx-dev/cwx/core/owners"
	"github.com/cwx-dev/cwx/core/plugins"
	"github.com/cwx-dev/cwx/core/protocol"
	"github.com/cwx-dev/cwx/core/registry"
	"github.com/cwx-dev/cwx/core/services"
	"github.com/hashicorp/go-hclog"
)

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

	cc coreCalls // tickets, the invocations and their requests (invocation.go, corecall.go)

	hooks *cmdHookRunner // the command hooks of the current configuration (builtin_hooks.go)
	pre   *preHooks      // what asks the pre-execute hooks of every gated call (prehook.go)

	mcp *mcpclient.Set // the MCP servers (mcpcall.go)
}

// Close revokes nothing by itself: it fails the calls in flight, stops the state watcher and
// shuts every tier down within its bound (host/shutdown, then SIGTERM, then SIGKILL at
// supervisor.DefaultKillAfter). It returns ctx's error if ctx ends first; the shutdown still completes in the
// background within its bound.
func (m *Manager) Close(ctx context.Context) error {
	m.mcp.Close()
	return m.own.Close(ctx)
}

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

// Status reports every host: both tiers' shared hosts and the plugins' own hosts, each with
// the plugins it serves; a host never started is "idle".
func (m *Manager) Status() []TierStatus { return m.own.Status() }

// Host reports the incarnation of tier t's shared host: runtime pid, host generation and
// crash count.
func (m *Manager) Host(t Tier) HostInfo { return m.own.Host(protocol.SharedHost(t)) }

// HostOf is the host plugin id lives in: its tier's shared host or, when config.toml
// isolates it (isolation = "process"), its own.
func (m *Manager) HostOf(pluginID string) HostKey { return m.own.HostOf(pluginID) }

// HostAt reports the incarnation of host k (HostOf names a plugin's).
func (m *Manager) HostAt(k HostKey) HostInfo { return m.own.Host(k) }

// KillRuntime sends SIGKILL to the runtime of tier t's shared host (a test hook for people:
// the repl's `/host kill`). The supervisor sees the crash and restarts within its budget.
func (m *Manager) KillRuntime(t Tier) error { return m.own.KillRuntime(protocol.SharedHost(t)) }

// KillHost is KillRuntime for host k: a plugin's own, or a tier's shared host (and then
// every plugin there loses its host with it).
func (m *Manager) KillHost(k HostKey) error { return m.own.KillRuntime(k) }

// Retry clears the crash budget of every Failed host of tier t; the next need spawns each
// again (and replays the desired owners).
func (m *Manager) Retry(t Tier) { m.own.RetryTier(t) }

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

// SkillsList discovers and audits the skills under the roots of Options.Skills; an agent
// that provides none has none.
func (m *Manager) SkillsList(ctx context.Context) ([]Skill, []SkillProblem, error) {
	return services.SkillsList(ctx, m.o.Skills)
}
