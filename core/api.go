package core

import (
	"os"
	"unicode/utf8"

	"github.com/hashicorp/go-hclog"

	"github.com/cwx-dev/cwx/core/config"
	"github.com/cwx-dev/cwx/core/inert"
	"github.com/cwx-dev/cwx/core/owners"
	"github.com/cwx-dev/cwx/core/plugins"
	"github.com/cwx-dev/cwx/core/protocol"
	"github.com/cwx-dev/cwx/core/runtime"
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
	// TierStatus is one tier's state (owners.TierStatus): the supervisor's view, with its
	// crash count within the budget's window, and the live owners, last blame and sandbox.
	// Its JSON form is `cwx host status --json`.
	TierStatus = owners.TierStatus
	// HostInfo is what the repl prints about one tier's current incarnation (owners.HostInfo).
	HostInfo = owners.HostInfo
	// OwnerInfo is what `cwx plugin show` reports about a plugin's owner (owners.OwnerInfo).
	OwnerInfo = owners.OwnerInfo
	// BuiltinModuleInfo describes one pinned builtin module (owners.BuiltinModuleInfo).
	BuiltinModuleInfo = owners.BuiltinModuleInfo
	// SandboxStatus says how the plugin tier is contained (owners.SandboxStatus).
	SandboxStatus = owners.SandboxStatus
	// Change says that the live catalog changed (owners.Change): read Tools and Commands again.
	Change = owners.Change
	// PluginError is one enabled, trusted plugin that is not active after Reconcile
	// (owners.PluginError); errors.Is matches its Kind.
	PluginError = owners.PluginError
	// NotLiveError: no live tool or command has the name (owners.NotLiveError); a case of
	// ErrNotAvailable, and of ErrUnknownTool when no plugin claims the name.
	NotLiveError = owners.NotLiveError
	// DownHolder is one plugin whose hooks cannot be asked: its state and what to do
	// (owners.DownHolder).
	DownHolder = owners.DownHolder
)

// BuiltinSandboxNote is what the builtin tier's status says: it is first-party code that
// starts user hooks, so it is not put in the plugin tier's sandbox.
const BuiltinSandboxNote = owners.BuiltinSandboxNote

// RequiredRefusedNote is what the surfaces say under sandbox = "required" when the sandbox
// does not work: the plugin tier does not run at all, so it is not "unsandboxed".
const RequiredRefusedNote = owners.RequiredRefusedNote

// MaxStorageBytes bounds a plugin's owner-local storage folder; a larger one is refused
// before activation (owners.MaxStorageBytes).
const MaxStorageBytes = owners.MaxStorageBytes

// PluginErrors splits an error returned by Reconcile or Reload into the per-plugin failures
// it joins and the rest (a tier that could not start, config.toml that does not load, a
// cancelled context), nil when there is no other error.
func PluginErrors(err error) (failed []*PluginError, rest error) { return owners.PluginErrors(err) }

// SandboxFor is SandboxStatus without a Manager, for the surfaces that read only the home
// (a review, `plugin show`): config.toml's mode, the runtime it resolves and the probe.
func SandboxFor(home string) SandboxStatus { return owners.SandboxFor(home) }

// SandboxUserFor is the identity the plugin tier's runtime gets inside the sandbox: nil when
// cwx does not run as root, else [extension_host] sandbox_uid (owners.SandboxUserFor).
func SandboxUserFor(eh config.ExtensionHost, shim string) (*runtime.SandboxUser, error) {
	return owners.SandboxUserFor(eh, shim)
}

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

// StripEscapes removes what would let plugin text drive a terminal or reorder itself on
// screen: escape sequences and the refused characters of package inert (inert.Strip, the
// one strip function every printer uses).
func StripEscapes(s string) string { return inert.Strip(s) }

// CutText cuts s to at most max bytes on a UTF-8 boundary and reports whether it cut.
func CutText(s string, max int) (string, bool) {
	if len(s) <= max {
		return s, false
	}
	i := max
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i], true
}
