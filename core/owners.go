package core

import (
	"slices"
	"time"

	"github.com/cwx-dev/cwx/core/protocol"
)

// OwnerInfo is what `cwx plugin show` reports about a plugin's owner in this process.
type OwnerInfo struct {
	PluginID   string        `json:"plugin"`
	Tier       protocol.Tier `json:"tier"`
	State      string        `json:"state"` // activating, active, failed, faulted, revoked
	Generation uint64        `json:"generation"`
	// HostGeneration is the incarnation of the tier's host the owner lives in.
	HostGeneration uint64   `json:"host_generation"`
	Reason         string   `json:"reason,omitempty"` // why it failed, faulted or was revoked
	Tools          []string `json:"tools"`
	Commands       []string `json:"commands"`
	// Activation is how long its activation took (closure check to live); 0 until it is live.
	Activation time.Duration `json:"activation_ns,omitempty"`
}

// Owner reports the plugin's latest owner in this Manager (after Reconcile): its state,
// the reason when it is not active (activation failure, refused registration, fault), and
// the names it has live. The plugin's diagnostics ring (Plugins().Get) keeps the history.
func (m *Manager) Owner(pluginID string) (OwnerInfo, bool) {
	ro, ok := m.reg.Owner(pluginID)
	if !ok {
		return OwnerInfo{}, false
	}
	info := OwnerInfo{PluginID: pluginID, Tier: ro.Tier, State: ro.State.String(), Generation: ro.Ref.Generation,
		Reason: ro.Reason, Tools: []string{}, Commands: []string{}}
	m.mu.Lock()
	if o := m.owners[pluginID]; o != nil && o.ref == ro.Ref {
		info.HostGeneration = o.gen
		info.Activation = time.Duration(o.activatedIn.Load())
	}
	m.mu.Unlock()
	for _, t := range m.reg.Tools() {
		if t.Owner == ro.Ref {
			info.Tools = append(info.Tools, t.Name)
		}
	}
	for _, c := range m.reg.Commands() {
		if c.Owner == ro.Ref {
			info.Commands = append(info.Commands, c.Name)
		}
	}
	slices.Sort(info.Tools)
	slices.Sort(info.Commands)
	return info, true
}
