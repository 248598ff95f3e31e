package core

import (
	"github.com/cwx-dev/cwx/core/plugins"
	"github.com/cwx-dev/cwx/core/protocol"
	"github.com/cwx-dev/cwx/core/registry"
)

// claimsOf is the claim table of the desired plugins as their records persist it: first
// trust and the names of the last successful activation (ARCHITECTURE.md, “Registry
// rules”). Reconcile gives it to the registry before any host starts.
func claimsOf(want map[string]plugins.Desired) map[string]registry.Claim {
	out := make(map[string]registry.Claim, len(want))
	for id, d := range want {
		if isBuiltinDesired(d) {
			continue // a builtin module claims nothing; its names give way (builtin_scripts.go)
		}
		c := registry.Claim{FirstTrust: d.Record.FirstTrust()}
		if d.Record.Claims != nil {
			c.Tools, c.Commands = d.Record.Claims.Tools, d.Record.Claims.Commands
		}
		out[id] = c
	}
	return out
}

// persistClaims writes what o registered, now its plugin's claims, into the plugin's record.
// It runs on the activation's own goroutine, after the registry made o Active.
func (m *Manager) persistClaims(o *owner) {
	tools, commands, ok := m.reg.Claims(o.id)
	if !ok || isBuiltinDesired(o.want) {
		return
	}
	if err := m.store.SetClaims(o.id, tools, commands); err != nil {
		m.log.Warn("claims not recorded", "plugin", o.id, "error", err)
	}
}

// evicted ends an owner the registry failed because another plugin outranked it for a name
// while both were activating; its activation goroutine then undoes it in the host.
func (m *Manager) evicted(ev *registry.Owner) {
	m.mu.Lock()
	o := m.owners[ev.Ref.PluginID]
	m.mu.Unlock()
	if o != nil && o.ref == ev.Ref {
		o.end(&endCause{kind: ErrNotAvailable, msg: "activation failed: " + ev.Reason})
	}
	m.diags.add(ev.Ref.PluginID, diagActivationFailed, ev.Reason)
	m.log.Warn("plugin activation failed", "plugin", ev.Ref.PluginID, "generation", ev.Ref.Generation, "reason", ev.Reason)
}

// notLive explains why no live tool or command has name: when the claim table gives the
// name to a plugin, which plugin, and why it is not active (its activation failed, it
// faulted, it is still activating or it never ran in this process).
func (m *Manager) notLive(kind protocol.RegisterKind, name string) *NotLiveError {
	e := &NotLiveError{Kind: string(kind), Name: name}
	id := m.reg.Claimant(kind, name)
	if id == "" {
		return e
	}
	e.Plugin = id
	ro, ok := m.reg.Owner(id)
	switch {
	case !ok:
		e.Why = "which has not been activated"
	case ro.State == registry.Failed:
		e.Why = "whose activation failed: " + ro.Reason
	case ro.State == registry.Faulted:
		e.Why = "which faulted: " + ro.Reason
	case ro.State == registry.Activating:
		e.Why = "which is still activating"
	case ro.State == registry.Revoked:
		e.Why = "which was stopped: " + ro.Reason
	default:
		e.Why = "which does not register it now"
	}
	return e
}

// NotLive is the error a call to name would fail with when no live tool or command has it:
// a *NotLiveError naming the plugin the name belongs to and why it is not active, when
// the claim table knows. kind is "tool" or "command".
func (m *Manager) NotLive(kind, name string) error {
	return m.notLive(protocol.RegisterKind(kind), name)
}
