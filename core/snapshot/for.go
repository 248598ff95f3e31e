package snapshot

import (
	goruntime "runtime"

	"github.com/cwx-dev/cwx/core/config"
	"github.com/cwx-dev/cwx/core/runtime"
	"github.com/cwx-dev/cwx/nodeshim/jshost"
)

// For returns the snapshot inputs of a Node host started with rt, or why that host never
// starts from a snapshot: snapshot = "off", not Node, not Linux (the
// descriptor is read through /proc), or a bundle other than the embedded one (the snapshot
// entry is its twin). ARCHITECTURE.md, “Host snapshot”.
func For(home string, eh config.ExtensionHost, rt runtime.Runtime, bundleSHA256 string) (Options, string) {
	switch {
	case eh.Snapshot == config.SnapshotOff:
		return Options{}, `off ([extension_host] snapshot = "off")`
	case rt.Kind != runtime.KindNode:
		return Options{}, "not for " + string(rt.Kind) + " (Node only)"
	case goruntime.GOOS != "linux":
		return Options{}, "not on " + goruntime.GOOS + " (Linux only)"
	case bundleSHA256 != jshost.BundleSHA256():
		return Options{}, "not for a bundle other than the embedded one"
	}
	return Options{
		Home: home, Node: rt.Path, Version: rt.Version,
		BuildFlags: rt.SnapshotBuildFlags(), RunFlags: rt.Args(),
		Entry: jshost.SnapshotEntry(), EntrySHA256: jshost.SnapshotEntrySHA256(),
	}, ""
}
