package core

import (
	"context"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/cwx-dev/cwx/core/bundle"
	"github.com/cwx-dev/cwx/core/catalog"
	"github.com/cwx-dev/cwx/core/plugins"
	"github.com/cwx-dev/cwx/core/protocol"
	"github.com/cwx-dev/cwx/core/registry"
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
	// they held it with, whether or not their catalog entry could be written (prehook.go).
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

func (m *Manager) anyDeferred() bool {
	m.lazy.mu.Lock()
	defer m.lazy.mu.Unlock()
	return len(m.lazy.deferred) > 0
}

func (l *lazyState) isDeferred(id string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.deferred[id]
}

// Catalog is the plugin catalog of this Manager's home.
func (m *Manager) Catalog() *catalog.Store { return m.lazy.cat }

// mode is the mode of Reconcile: lazy when Options.Lazy asks for it.
func (m *Manager) mode() reconcileMode {
	if m.o.Lazy {
		return modeLazy
	}
	return modeEager
}

// Advertise is Reconcile for a listing: it activates only the desired plugins with no valid
// catalog entry, and defers every other one, hooks or not, so that Tools and Commands answer
// from the catalog. With every enabled plugin cached it starts no process at all. A later
// call to a deferred plugin's tool or command activates it, with the hook holders.
func (m *Manager) Advertise(ctx context.Context) error {
	return m.reconcile(ctx, modeAdvertise)
}

// lookupEntries reads the catalog entries of the desired plugins (disk I/O, no lock held).
// An eager reconcile defers none of them, but reads them too: an entry that lists a
// pre-execute hook makes its plugin's absence deny calls (prehook.go) from the start.
func (m *Manager) lookupEntries(want map[string]plugins.Desired) map[string]catalog.Entry {
	out := map[string]catalog.Entry{}
	for id, d := range want {
		if e, ok := m.lazy.cat.Lookup(m.lazy.key(d)); ok {
			out[id] = e
		}
	}
	return out
}

// planLocked records the entries of a reconcile and decides which desired plugins with no
// owner are deferred: under modeLazy those whose entry holds no hook, under modeAdvertise
// every one with an entry, under modeEager none. A plugin a call demanded is never deferred.
//
// +checklocks:m.mu
func (m *Manager) planLocked(mode reconcileMode, entries map[string]catalog.Entry) {
	l := &m.lazy
	l.mu.Lock()
	defer l.mu.Unlock()
	l.entries = entries
	l.deferred = map[string]bool{}
	if mode == modeEager {
		return
	}
	for id := range m.desired {
		e, ok := entries[id]
		if !ok || l.demanded[id] || m.owners[id] != nil {
			continue
		}
		if mode == modeAdvertise || !holdsHooks(id, e) {
			l.deferred[id] = true
		}
	}
}

// cachedTools lists the tools of deferred plugins from their entries, each marked Cached,
// leaving out a name in taken (live or native, compared folded). Between two entries
// listing one name, the plugin the claim table gives it to is listed.
func (m *Manager) cachedTools(taken map[string]bool) []ToolInfo {
	var out []ToolInfo
	for _, c := range m.cachedEntries() {
		for _, t := range c.e.Tools {
			key := registry.Fold(t.Name)
			if taken[key] || (c.rivals[key] && m.reg.Claimant(protocol.KindTool, t.Name) != c.id) {
				continue
			}
			taken[key] = true
			out = append(out, ToolInfo{Name: t.Name, PluginID: c.id, Origin: "extension:" + c.id, Description: t.Description,
				InputSchema: slices.Clone(t.InputSchema), Cached: true})
		}
	}
	return out
}

// cachedCommands is cachedTools for commands.
func (m *Manager) cachedCommands(taken map[string]bool) []CommandInfo {
	var out []CommandInfo
	for _, c := range m.cachedEntries() {
		for _, cmd := range c.e.Commands {
			key := "command:" + registry.Fold(cmd.Name)
			if taken[key] || (c.rivals[key] && m.reg.Claimant(protocol.KindCommand, cmd.Name) != c.id) {
				continue
			}
			taken[key] = true
			out = append(out, CommandInfo{Name: cmd.Name, PluginID: c.id, Origin: "extension:" + c.id, Description: cmd.Description,
				ArgumentHint: cmd.ArgumentHint, Cached: true})
		}
	}
	return out
}

// cachedEntry is the entry of a deferred plugin with no owner, and the names (folded;
// commands prefixed "command:") that more than one such entry lists.
type cachedEntry struct {
	id     string
	e      catalog.Entry
	rivals map[string]bool
}

// cachedEntries returns the entries of the deferred plugins that have no owner, by id.
func (m *Manager) cachedEntries() []cachedEntry {
	m.mu.Lock()
	m.lazy.mu.Lock()
	var out []cachedEntry
	for id := range m.lazy.deferred {
		if e, ok := m.lazy.entries[id]; ok && m.owners[id] == nil {
			out = append(out, cachedEntry{id: id, e: e})
		}
	}
	m.lazy.mu.Unlock()
	m.mu.Unlock()
	slices.SortFunc(out, func(a, b cachedEntry) int { return strings.Compare(a.id, b.id) })
	seen := map[string]int{}
	for _, c := range out {
		for _, t := range c.e.Tools {
			seen[registry.Fold(t.Name)]++
		}
		for _, cmd := range c.e.Commands {
			seen["command:"+registry.Fold(cmd.Name)]++
		}
	}
	rivals := map[string]bool{}
	for k, n := range seen {
		if n > 1 {
			rivals[k] = true
		}
	}
	for i := range out {
		out[i].rivals = rivals
	}
	return out
}

// demand makes a call's plugins live before the call is looked up: the deferred plugin
// whose entry lists name (when name is not live), every plugin (builtin modules included)
// whose entry holds a pre-execute hook, and every plugin with no entry, which may hold one,
// so that the hooks see the call. It waits until each of them is settled (active, failed or
// faulted).
// When the plugin activated for name does not register it, its entry is replaced by the
// activation and name is resolved again: another deferred entry that lists it is activated
// in turn (the name moved); when none does, the call fails saying the name vanished.
func (m *Manager) demand(ctx context.Context, kind protocol.RegisterKind, name string) error {
	if !m.o.Lazy && !m.anyDeferred() {
		return nil // eager: Reconcile activates everything, and nothing was advertised
	}
	var listed []string // plugins activated because their entry listed name, in order
	for range maxResolve {
		target, start, watch := m.undefer(kind, name, listed)
		if target == "" && len(start) == 0 && m.settled(watch) {
			break
		}
		if err := m.activateNow(ctx, start, watch); err != nil {
			return err
		}
		if target == "" {
			break
		}
		listed = append(listed, target)
		if m.isLive(kind, name) {
			break
		}
	}
	if len(listed) == 0 {
		return nil
	}
	first := listed[0]
	if owner, ok := m.liveOwner(kind, name); ok {
		if owner != first {
			m.log.Warn("catalog entry out of date: the name moved to another plugin", "kind", kind, "name", name,
				"listed_by", first, "registered_by", owner)
		}
		return nil
	}
	return m.vanished(kind, name, first)
}

// undefer takes out of the deferred set the plugin whose entry lists name (unless name is
// live or that plugin was tried already) and every deferred plugin whose entry holds a
// hook. It returns that plugin (target, or ""), the plugins taken out (start) and every
// plugin the call waits for (watch: start, the desired hook holders, the desired plugins
// with no entry).
func (m *Manager) undefer(kind protocol.RegisterKind, name string, tried []string) (target string, start, watch []string) {
	live := name == "" || m.isLive(kind, name)
	m.mu.Lock()
	defer m.mu.Unlock()
	l := &m.lazy
	l.mu.Lock()
	defer l.mu.Unlock()
	if !live {
		for _, id := range slices.Sorted(maps.Keys(l.deferred)) {
			e := l.entries[id]
			if !slices.Contains(tried, id) && (kind == protocol.KindTool && e.HasTool(name) || kind == protocol.KindCommand && e.HasCommand(name)) {
				target = id
				break
			}
		}
	}
	for id := range m.desired {
		e, cached := l.entries[id]
		if id == target || !cached || holdsHooks(id, e) {
			watch = append(watch, id)
			if l.deferred[id] {
				delete(l.deferred, id)
				l.demanded[id] = true
				start = append(start, id)
			}
		}
	}
	slices.Sort(start)
	slices.Sort(watch)
	return target, start, watch
}

// settled reports whether every plugin of ids has an owner that is no longer activating.
func (m *Manager) settled(ids []string) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, id := range ids {
		if _, desired := m.desired[id]; !desired {
			continue // disabled or changed meanwhile: nothing to wait for
		}
		o := m.owners[id]
		if o == nil || m.stateOf(o) == registry.Activating {
			return false
		}
	}
	return true
}

// activateNow starts the tiers of start and of the unsettled plugins of watch, activates
// what is missing there, and waits (at most lazyWait) until every plugin of watch is
// settled. A plugin that does not settle in time is logged and left: its hooks are not
// live, as for a plugin whose activation failed.
func (m *Manager) activateNow(ctx context.Context, start, watch []string) error {
	tiers := map[protocol.Tier]bool{}
	for _, id := range append(slices.Clone(start), watch...) {
		tiers[tierOf(id)] = true
	}
	for _, t := range []protocol.Tier{protocol.TierPlugin, protocol.TierBuiltin} {
		if !tiers[t] {
			continue
		}
		h, err := m.ensureTier(ctx, t)
		if err != nil {
			return fmt.Errorf("start the %s tier: %w", t, err)
		}
		m.activateMissing(ctx, t, h)
	}
	limit := time.NewTimer(lazyWait)
	defer limit.Stop()
	tick := time.NewTicker(lazyPoll)
	defer tick.Stop()
	for !m.settled(watch) {
		select {
		case <-ctx.Done():
			return fmt.Errorf("%w: %w", ErrCancelled, context.Cause(ctx))
		case <-limit.C:
			m.log.Warn("plugins still activating when the call went on", "plugins", strings.Join(watch, ", "))
			return nil
		case <-tick.C:
		}
	}
	return nil
}

func (m *Manager) isLive(kind protocol.RegisterKind, name string) bool {
	_, ok := m.liveOwner(kind, name)
	return ok
}

// liveOwner returns the plugin whose Active owner registers name.
func (m *Manager) liveOwner(kind protocol.RegisterKind, name string) (string, bool) {
	if kind == protocol.KindCommand {
		c, ok := m.reg.Command(name)
		return c.PluginID, ok
	}
	t, ok := m.reg.Tool(name)
	return t.PluginID, ok
}

// vanished is the error of a call whose name the entry of plugin id listed and no live
// plugin registers: the plugin was activated for it and does not register it (its entry is
// replaced), or its activation failed.
func (m *Manager) vanished(kind protocol.RegisterKind, name, id string) error {
	e := &NotLiveError{Kind: string(kind), Name: name, Plugin: id}
	ro, ok := m.reg.Owner(id)
	switch {
	case ok && ro.State == registry.Active:
		e.Why = "whose catalog entry listed it, but which no longer registers it (the entry is replaced)"
	case ok && ro.State == registry.Failed:
		e.Why = "whose activation failed: " + ro.Reason
	case ok && ro.State == registry.Faulted:
		e.Why = "which faulted: " + ro.Reason
	default:
		e.Why = "which was not activated"
	}
	return e
}

// persistCatalog writes what the owner o registered as its plugin's catalog entry, unless
// the entry already holds exactly that. It runs on the activation's goroutine after the
// registry made o Active, and writes nothing if o ended meanwhile.
func (m *Manager) persistCatalog(o *owner) {
	e := catalog.Entry{Key: m.lazy.key(o.want), Tools: []catalog.Tool{}, Commands: []catalog.Command{}, Hooks: []catalog.Hook{}, Sections: []catalog.Section{}}
	for _, t := range m.reg.Tools() {
		if t.Owner == o.ref {
			e.Tools = append(e.Tools, catalog.Tool{Name: t.Name, Description: t.Description, InputSchema: t.InputSchema})
		}
	}
	for _, c := range m.reg.Commands() {
		if c.Owner == o.ref {
			e.Commands = append(e.Commands, catalog.Command{Name: c.Name, Description: c.Description, ArgumentHint: c.ArgumentHint})
		}
	}
	for _, h := range m.reg.Hooks() {
		if h.Owner == o.ref {
			e.Hooks = append(e.Hooks, catalog.Hook{Event: h.Event})
		}
	}
	for _, s := range m.reg.PromptSections() {
		if s.Owner == o.ref {
			e.Sections = append(e.Sections, catalog.Section{ID: s.ID, Text: s.Text})
		}
	}
	if m.reg.State(o.ref) != registry.Active {
		return // revoked or ended while the registrations were read: they may be incomplete
	}
	if len(e.Hooks) > 0 {
		m.lazy.mu.Lock()
		m.lazy.holders[o.id] = e.Key
		m.lazy.mu.Unlock()
	}
	m.lazy.mu.Lock()
	cur, ok := m.lazy.entries[o.id]
	m.lazy.mu.Unlock()
	if !ok {
		cur, ok = m.lazy.cat.Lookup(e.Key)
	}
	if !ok || !cur.Equal(e) {
		if err := m.lazy.cat.Put(e); err != nil {
			m.log.Warn("catalog entry not written", "plugin", o.id, "error", err)
			return
		}
		m.log.Debug("catalog entry written", "plugin", o.id)
	}
	m.lazy.mu.Lock()
	m.lazy.entries[o.id] = e
	m.lazy.mu.Unlock()
}

// shimCheckedTier is the tier factory of a lazy Manager: the shim check Open makes for an
// eager one (embed.go) runs here, before the first tier starts, so that a command the
// catalog answers runs no program at all. The check runs while the tier is prepared (the
// runtime resolved and probed, the bundle materialized, the sandbox decided), and the tier
// is returned, not yet started, only once the check passed.
func (m *Manager) shimCheckedTier(t protocol.Tier) (tier, error) {
	checked := make(chan error, 1)
	go func() { checked <- checkShim(m.bg, m.o.ShimPath, probeCache(m.home, m.log)) }()
	tr, err := m.supervisedTier(t)
	if cerr := <-checked; cerr != nil {
		if err == nil {
			tr.Stop()
		}
		return nil, cerr
	}
	return tr, err
}
