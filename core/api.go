package core

import (
	"os"

	"github.com/hashicorp/go-hclog"

	"github.com/cwx-dev/cwx/core/plugins"
	"github.com/cwx-dev/cwx/core/protocol"
	"github.com/cwx-dev/cwx/core/supervisor"
)

// The types the Manager's methods take and return, named here so that an embedder imports
// core (and nodeshim for its main) and nothing below it. Each is the same type as the one
// in the package that keeps the fact, documented there.
type (
	// PluginStore is the plugin store Plugins returns: Install, Review, Trust, Enable,
	// Disable, Untrust, Remove, Get, List (plugins.Store).
	PluginStore = plugins.Store
	// PluginRecord is one installed plugin in the store (plugins.Record).
	PluginRecord = plugins.Record
	// InstallResult is what PluginStore.Install returns (plugins.InstallResult).
	InstallResult = plugins.InstallResult
	// PluginReview is what PluginStore.Review returns; its Token is what Trust takes
	// (plugins.Review).
	PluginReview = plugins.Review
	// Tier is a trust tier: TierPlugin or TierBuiltin (protocol.Tier). Host, KillRuntime and
	// Retry take one; TierStatus names one.
	Tier = protocol.Tier
	// TierState is a tier's state in TierStatus (supervisor.State).
	TierState = supervisor.State
)

// The tiers.
const (
	TierPlugin  = protocol.TierPlugin
	TierBuiltin = protocol.TierBuiltin
)

// The states of a tier (TierStatus.State).
const (
	TierIdle         = supervisor.StateIdle
	TierStarting     = supervisor.StateStarting
	TierReady        = supervisor.StateReady
	TierUnresponsive = supervisor.StateUnresponsive
	TierRestarting   = supervisor.StateRestarting
	TierFailed       = supervisor.StateFailed
	TierStopping     = supervisor.StateStopping
	TierStopped      = supervisor.StateStopped
)

// DefaultLogger is the logger of a Manager opened without Options.Logger: warnings and
// errors, one line each, on stderr (a plugin's failed activation, a host restart, a dirty
// teardown), so an embedder sees what went wrong without configuring anything.
func DefaultLogger() hclog.Logger {
	return hclog.New(&hclog.LoggerOptions{Name: "cwx", Level: hclog.Warn, Output: os.Stderr})
}

// anyEnabled reports whether any plugin in st is enabled (Open's shim check).
func anyEnabled(st *plugins.State) bool {
	for _, r := range st.Plugins {
		if r.Enabled {
			return true
		}
	}
	return false
}
