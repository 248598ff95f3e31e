package owners

import (
	"path/filepath"
	"sync"
	"time"

	"github.com/cwx-dev/cwx/core/bundle"
	"github.com/cwx-dev/cwx/core/catalog"
	"github.com/cwx-dev/cwx/core/cmdhooks"
	"github.com/cwx-dev/cwx/core/plugins"
	"github.com/cwx-dev/cwx/core/registry"
	"github.com/hashicorp/go-hclog"
)

// Advertise from cache, connect on demand (ARCHITECTURE.md, “Catalog”). After each successful
// activation the plugin's registrations are written to the catalog under the key of its
// bytes, config and host bundle. A lazy Manager (Options.Lazy) then activates, in Reconcile,
// only the desired plugins the catalog cannot stand in for: those with no entry for their
// key, and those whose entry holds a pre-execute hook (their hooks must see every call).
// The others are deferred: Tools and Commands list them from their entries (Cached), and
// the first call to one of their names activates the plugin (demand).

// lazyWait bounds how long a call waits for the hook holders activated beside it (a
// concurrent Reconcile may have begun them): their activation's own deadline, twice.
const lazyWait = 2 * ActivateDeadline

// lazyPoll is how often a call looks at the owners it waits for.
const lazyPoll = 5 * time.Millisecond

// maxResolve bounds how many plugins one call activates for its name: the one whose entry
// lists it, and the ones it moved to.
const maxResolve = 4

// reconcileMode says which desired plugins a reconcile activates.
type reconcileMode int

const (
	// modeEager activates every desired plugin.
	modeEager reconcileMode = iota
	// modeLazy defers the plugins with a valid catalog entry that holds no hook.
	modeLazy
	// modeAdvertise defers every plugin with a valid catalog entry (a listing needs no hook).
	modeAdvertise
)

// lazyState is the catalog and what it stands in for. Lock order: Manager.mu before mu.
type lazyState struct {
	cat    *catalog.Store
	bundle func() string // the host bundle's digest, computed once

	mu sync.Mutex
	// entries are the valid catalog entries of desired plugins, as the last lazy or
	// advertising reconcile read them or an activation wrote them.
	entries map[string]catalog.Entry // +checklocks:mu
	// deferred are desired plugins left inactive until a call needs them.
	deferred map[string]bool // +checklocks:mu
	// demanded are plugins a call activated; they are never deferred again by this Manager.
	demanded map[string]bool // +checklocks:mu
	// holders are the plugins this Manager saw Active with a pre-execute hook, under the key
	// they held it with, whether or not their catalog entry could be written (DownHolders; core prehook.go).
	holders map[string]catalog.Key // +checklocks:mu
}

// holdsHookLocked reports whether plugin d holds a pre-execute hook: its entry for its current key
// lists one, or it was seen Active with one under that key in this process.
//
// +checklocks:l.mu
func (l *lazyState) holdsHookLocked(d plugins.Desired) bool {
	if e, ok := l.entries[d.ID]; ok && e.HasHooks() {
		return true
	}
	k, ok := l.holders[d.ID]
	return ok && k == l.key(d)
}

func (l *lazyState) open(home string, b bundle.Bundle, log hclog.Logger) {
	l.cat = catalog.Open(filepath.Join(home, "catalog"), log.Named("catalog"))
	l.bundle = sync.OnceValue(b.SHA256)
	l.mu.Lock()
	l.entries, l.deferred, l.demanded = map[string]catalog.Entry{}, map[string]bool{}, map[string]bool{}
	l.holders = map[string]catalog.Key{}
	l.mu.Unlock()
}

func (l *lazyState) key(d plugins.Desired) catalog.Key {
	return catalog.Key{PluginID: d.ID, Closure: d.Closure, Config: d.Config.Digest, Bundle: l.bundle()}
}

func (l *lazyState) isDeferred(id string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.deferred[id]
}

// cachedEntry is the entry of a deferred plugin with no owner, and the names (folded;
// commands prefixed "command:") that more than one such entry lists.
type cachedEntry struct {
	id     string
	e      catalog.Entry
	rivals map[string]bool
}

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

// holdsHooks reports whether catalog entry e of plugin id holds a pre-execute hook: it lists
// one, or it is the builtin hooks module's, whose command hooks judge calls themselves.
func holdsHooks(id string, e catalog.Entry) bool { return e.HasHooks() || id == cmdhooks.Owner }
