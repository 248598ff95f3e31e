package snapshot

import (
	goruntime "runtime"

	"github.com/cwx-dev/cwx/core/config"
	"github.com/cwx-dev/cwx/core/runtime"
	"github.com/cwx-dev/cwx/nodeshim/jshost"
)

// For returns the startup inputs of a host started with rt (a snapshot for Node, a bytecode
// cache for Bun, as o.Kind says), or why that host starts from the bundle as it is:
// snapshot = "off", not Linux (Node reads the descriptor through /proc; the bytecode is kept
// to what is tested), or a bundle other than the embedded one (the entries are its twins).
// ARCHITECTURE.md, “Host snapshot”.
func For(home string, eh config.ExtensionHost, rt runtime.Runtime, bundleSHA256 string) (Options, string) {
	switch {
	case eh.Snapshot == config.SnapshotOff:
		return Options{}, `off ([extension_host] snapshot = "off")`
	case goruntime.GOOS != "linux":
		return Options{}, "not on " + goruntime.GOOS + " (Linux only)"
	case bundleSHA256 != jshost.BundleSHA256():
		return Options{}, "not for a bundle other than the embedded one"
	}
	o := Options{Home: home, Kind: rt.Kind, Runtime: rt.Path, Version: rt.Version, RunFlags: rt.Args()}
	switch rt.Kind {
	case runtime.KindNode:
		o.BuildFlags, o.Entry, o.EntrySHA256 = rt.SnapshotBuildFlags(), jshost.SnapshotEntry(), jshost.SnapshotEntrySHA256()
	case runtime.KindBun:
		o.Entry, o.EntrySHA256 = jshost.BunEntry(), jshost.BunEntrySHA256()
	default:
		return Options{}, "not for " + string(rt.Kind)
	}
	return o, ""
}
