package owners

import (
	"slices"
	"strings"

	"github.com/cwx-dev/cwx/core/catalog"
	"github.com/cwx-dev/cwx/core/plugins"
	"github.com/cwx-dev/cwx/core/protocol"
	"github.com/cwx-dev/cwx/core/registry"
)

// persistClaims writes what o registered, now its plugin's claims, into the plugin's record.
// It runs on the activation's own goroutine, after the registry made o Active.
func (l *Layer) persistClaims(o *Owner) {
	tools, commands, ok := l.reg.Claims(o.id)
	if !ok || isBuiltinDesired(o.want) {
		return
	}
	if err := l.store.SetClaims(o.id, tools, commands); err != nil {
		l.log.Warn("claims not recorded", "plugin", o.id, "error", err)
	}
}

// persistCatalog writes what the owner o registered as its plugin's catalog entry, unless
// the entry already holds exactly that. It runs on the activation's goroutine after the
// registry made o Active, and writes nothing if o ended meanwhile.
func (l *Layer) persistCatalog(o *Owner) {
	e := catalog.Entry{Key: l.lazy.key(o.want), Tools: []catalog.Tool{}, Commands: []catalog.Command{}, Hooks: []catalog.Hook{}, Sections: []catalog.Section{}}
	for _, t := range l.reg.Tools() {
		if t.Owner == o.ref {
			e.Tools = append(e.Tools, catalog.Tool{Name: t.Name, Description: t.Description, InputSchema: t.InputSchema})
		}
	}
	for _, c := range l.reg.Commands() {
		if c.Owner == o.ref {
			e.Commands = append(e.Commands, catalog.Command{Name: c.Name, Description: c.Description, ArgumentHint: c.ArgumentHint})
		}
	}
	for _, h := range l.reg.Hooks() {
		if h.Owner == o.ref {
			e.Hooks = append(e.Hooks, catalog.Hook{Event: h.Event})
		}
	}
	for _, s := range l.reg.PromptSections() {
		if s.Owner == o.ref {
			e.Sections = append(e.Sections, catalog.Section{ID: s.ID, Text: s.Text})
		}
	}
	if l.reg.State(o.ref) != registry.Active {
		return // revoked or ended while the registrations were read: they may be incomplete
	}
	if len(e.Hooks) > 0 {
		l.lazy.mu.Lock()
		l.lazy.holders[o.id] = e.Key
		l.lazy.mu.Unlock()
	}
	l.lazy.mu.Lock()
	cur, ok := l.lazy.entries[o.id]
	l.lazy.mu.Unlock()
	if !ok {
		cur, ok = l.lazy.cat.Lookup(e.Key)
	}
	if !ok || !cur.Equal(e) {
		if err := l.lazy.cat.Put(e); err != nil {
			l.log.Warn("catalog entry not written", "plugin", o.id, "error", err)
			return
		}
		l.log.Debug("catalog entry written", "plugin", o.id)
	}
	l.lazy.mu.Lock()
	l.lazy.entries[o.id] = e
	l.lazy.mu.Unlock()
}

// evicted ends an owner the registry failed because another plugin outranked it for a name
// while both were activating; its activation goroutine then undoes it in the host.
func (l *Layer) evicted(ev *registry.Owner) {
	l.mu.Lock()
	o := l.owners[ev.Ref.PluginID]
	l.mu.Unlock()
	if o != nil && o.ref == ev.Ref {
		o.end(causeActivationFailed(ev.Reason))
	}
	l.diags.add(ev.Ref.PluginID, diagActivationFailed, ev.Reason)
	l.log.Warn("plugin activation failed", "plugin", ev.Ref.PluginID, "generation", ev.Ref.Generation, "reason", ev.Reason)
}

func (l *Layer) isLive(kind protocol.RegisterKind, name string) bool {
	_, ok := l.liveOwner(kind, name)
	return ok
}

// liveOwner returns the plugin whose Active owner registers name.
func (l *Layer) liveOwner(kind protocol.RegisterKind, name string) (string, bool) {
	if kind == protocol.KindCommand {
		c, ok := l.reg.Command(name)
		return c.PluginID, ok
	}
	t, ok := l.reg.Tool(name)
	return t.PluginID, ok
}

// lookupEntries reads the catalog entries of the desired plugins (disk I/O, no lock held).
// An eager reconcile defers none of them, but reads them too: an entry that lists a
// pre-execute hook makes its plugin's absence deny calls (DownHolders; core prehook.go) from the start.
func (l *Layer) lookupEntries(want map[string]plugins.Desired) map[string]catalog.Entry {
	out := map[string]catalog.Entry{}
	for id, d := range want {
		if e, ok := l.lazy.cat.Lookup(l.lazy.key(d)); ok {
			out[id] = e
		}
	}
	return out
}

// planLocked records the entries of a reconcile and decides which desired plugins with no
// owner are deferred: under modeLazy those whose entry holds no hook, under modeAdvertise
// every one with an entry, under modeEager none. A plugin a call demanded is never deferred.
//
// +checklocks:l.mu
func (l *Layer) planLocked(mode reconcileMode, entries map[string]catalog.Entry) {
	lz := &l.lazy
	lz.mu.Lock()
	defer lz.mu.Unlock()
	lz.entries = entries
	lz.deferred = map[string]bool{}
	if mode == modeEager {
		return
	}
	for id := range l.desired {
		e, ok := entries[id]
		if !ok || lz.demanded[id] || l.owners[id] != nil {
			continue
		}
		if mode == modeAdvertise || !holdsHooks(id, e) {
			lz.deferred[id] = true
		}
	}
}

// Cached is one tool or command a deferred plugin's catalog entry lists.
type Cached[T catalog.Tool | catalog.Command] struct {
	PluginID string
	Entry    T
}

// CachedTools lists the tools of deferred plugins from their entries, leaving out a name in
// taken (live or native, compared folded) and adding the ones it lists. Between two entries
// listing one name, the plugin the claim table gives it to is listed.
func (l *Layer) CachedTools(taken map[string]bool) []Cached[catalog.Tool] {
	var out []Cached[catalog.Tool]
	for _, c := range l.cachedEntries() {
		for _, t := range c.e.Tools {
			key := registry.Fold(t.Name)
			if taken[key] || (c.rivals[key] && l.reg.Claimant(protocol.KindTool, t.Name) != c.id) {
				continue
			}
			taken[key] = true
			out = append(out, Cached[catalog.Tool]{PluginID: c.id, Entry: t})
		}
	}
	return out
}

// CachedCommands is CachedTools for commands; taken holds "command:" + the folded name.
func (l *Layer) CachedCommands(taken map[string]bool) []Cached[catalog.Command] {
	var out []Cached[catalog.Command]
	for _, c := range l.cachedEntries() {
		for _, cmd := range c.e.Commands {
			key := "command:" + registry.Fold(cmd.Name)
			if taken[key] || (c.rivals[key] && l.reg.Claimant(protocol.KindCommand, cmd.Name) != c.id) {
				continue
			}
			taken[key] = true
			out = append(out, Cached[catalog.Command]{PluginID: c.id, Entry: cmd})
		}
	}
	return out
}

// cachedEntries returns the entries of the deferred plugins that have no owner, by id.
func (l *Layer) cachedEntries() []cachedEntry {
	l.mu.Lock()
	l.lazy.mu.Lock()
	var out []cachedEntry
	for id := range l.lazy.deferred {
		if e, ok := l.lazy.entries[id]; ok && l.owners[id] == nil {
			out = append(out, cachedEntry{id: id, e: e})
		}
	}
	l.lazy.mu.Unlock()
	l.mu.Unlock()
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
