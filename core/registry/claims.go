package registry

import (
	"slices"
	"strings"
	"time"

	"github.com/cwx-dev/cwx/core/protocol"
)

// Claim is what the claim table knows of one enabled plugin (ARCHITECTURE.md, “Registry
// rules”): when it was first trusted, which ranks it against other plugins for a name, and
// the tools and commands it registered at its last successful activation.
type Claim struct {
	FirstTrust time.Time
	Tools      []string
	Commands   []string
}

// claimTable maps folded names to the plugins that claim them. It is kept under the
// registry's lock.
type claimTable struct {
	byID  map[string]Claim
	tools map[string][]string // folded tool name → claimant ids
	cmds  map[string][]string // folded command name → claimant ids
}

func newClaimTable(byID map[string]Claim) claimTable {
	t := claimTable{byID: byID, tools: map[string][]string{}, cmds: map[string][]string{}}
	for id, c := range byID {
		for _, n := range c.Tools {
			t.tools[Fold(n)] = append(t.tools[Fold(n)], id)
		}
		for _, n := range c.Commands {
			t.cmds[Fold(n)] = append(t.cmds[Fold(n)], id)
		}
	}
	return t
}

func (t claimTable) index(kind protocol.RegisterKind) map[string][]string {
	if kind == protocol.KindCommand {
		return t.cmds
	}
	return t.tools
}

// less ranks plugin a before plugin b: the earlier first trust, then the smaller id. A
// plugin the table does not know ranks after every one it knows.
func (t claimTable) less(a, b string) bool {
	ca, oka := t.byID[a]
	cb, okb := t.byID[b]
	switch {
	case oka != okb:
		return oka
	case oka && !ca.FirstTrust.Equal(cb.FirstTrust):
		return ca.FirstTrust.Before(cb.FirstTrust)
	}
	return a < b
}

// holder returns the plugin a folded name belongs to: the best-ranked of its claimants, or
// "" when no enabled plugin claims it.
func (t claimTable) holder(kind protocol.RegisterKind, key string) string {
	best := ""
	for _, id := range t.index(kind)[key] {
		if best == "" || t.less(id, best) {
			best = id
		}
	}
	return best
}

// claims reports whether pluginID claims the folded name.
func (t claimTable) claims(kind protocol.RegisterKind, key, pluginID string) bool {
	return slices.Contains(t.index(kind)[key], pluginID)
}

// SetClaims replaces the claim table with the enabled plugins' claims, read from their
// persisted state before any host starts. A plugin whose latest owner is Active keeps the
// names it has registered now, which are newer than any copy on disk.
func (r *Registry) SetClaims(byID map[string]Claim) {
	r.mu.Lock()
	defer r.mu.Unlock()
	merged := make(map[string]Claim, len(byID))
	for id, c := range byID {
		if g, ok := r.latest[id]; ok && r.owners[g].state == Active {
			c.Tools, c.Commands = r.owners[g].names()
		}
		merged[id] = c
	}
	r.claims = newClaimTable(merged)
}

// recordClaimsLocked makes o's registrations its plugin's claims (o just became Active).
//
// +checklocks:r.mu
func (r *Registry) recordClaimsLocked(o *owner) {
	byID := make(map[string]Claim, len(r.claims.byID)+1)
	for id, c := range r.claims.byID {
		byID[id] = c
	}
	c := byID[o.ref.PluginID]
	c.Tools, c.Commands = o.names()
	byID[o.ref.PluginID] = c
	r.claims = newClaimTable(byID)
}

// Claims returns the tools and commands pluginID claims now, sorted: after a successful
// activation, what it registered, for the caller to persist.
func (r *Registry) Claims(pluginID string) (tools, commands []string, ok bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	c, ok := r.claims.byID[pluginID]
	return slices.Clone(c.Tools), slices.Clone(c.Commands), ok
}

// Claimant returns the plugin the claim table gives the tool or command name to, or "".
func (r *Registry) Claimant(kind protocol.RegisterKind, name string) string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return r.claims.holder(kind, Fold(name))
}

// names lists o's registered tools and commands, each sorted.
func (o *owner) names() (tools, commands []string) {
	tools, commands = []string{}, []string{}
	for _, g := range o.regs {
		if g.kind == protocol.KindCommand {
			commands = append(commands, g.name)
		} else if g.kind == protocol.KindTool {
			tools = append(tools, g.name)
		}
	}
	slices.SortFunc(tools, strings.Compare)
	slices.SortFunc(commands, strings.Compare)
	return tools, commands
}

// KnownNames lists every name of kind the registry knows, as given: the live ones, those
// the claim table holds and, for tools, the native ones. A name that is not live is
// compared against them for a near miss (a different case, `-` for `_`, a typo).
func (r *Registry) KnownNames(kind protocol.RegisterKind) []string {
	var out []string
	r.mu.RLock()
	live := r.tools
	if kind == protocol.KindCommand {
		live = r.commands
	} else {
		for _, n := range r.names.natives {
			out = append(out, n)
		}
	}
	for _, g := range live {
		if g.owner.state == Active {
			out = append(out, g.name)
		}
	}
	for _, c := range r.claims.byID {
		if kind == protocol.KindCommand {
			out = append(out, c.Commands...)
		} else {
			out = append(out, c.Tools...)
		}
	}
	r.mu.RUnlock()
	slices.Sort(out)
	return slices.Compact(out)
}
