package owners

import (
	"slices"

	"github.com/cwx-dev/cwx/core/plugins"
	"github.com/cwx-dev/cwx/core/protocol"
	"github.com/cwx-dev/cwx/core/registry"
)

// The states a NotLiveError names (NotLiveError.State): why the plugin a name belongs to
// does not serve it in this process.
const (
	AbsentFailed       = "failed"               // its activation failed
	AbsentFaulted      = "faulted"              // it faulted after activating
	AbsentActivating   = "activating"           // still activating
	AbsentStopped      = "stopped"              // revoked in this process
	AbsentNotActivated = "not activated"        // desired, but not activated here
	AbsentStale        = "stale"                // active, and no longer registers the name
	AbsentDisabled     = plugins.HeldDisabled   // installed, not enabled
	AbsentNotTrusted   = plugins.HeldNotTrusted // no receipt
	AbsentNeedsReview  = plugins.HeldReview     // its bytes, the policy or its services changed
	AbsentDevEnded     = plugins.HeldDevEnded   // its dev receipt's session is gone
	AbsentChanged      = "staged copy changed"  // its staged bytes no longer hash to its receipt
)

// notLive explains why no live tool or command has name. When the claim table gives the
// name to an enabled plugin, it says which and why that plugin is not active (its
// activation failed, it faulted, it is still activating or it never ran in this process);
// otherwise, when the record of an installed plugin that is not desired claims it, which
// and why (disabled, not trusted, needs review, its dev session ended). Near lists the
// known names it nearly is.
func (l *Layer) notLive(kind protocol.RegisterKind, name string) *NotLiveError {
	e := &NotLiveError{Kind: string(kind), Name: name, Near: nearNames(name, l.reg.KnownNames(kind))}
	id := l.reg.Claimant(kind, name)
	if id == "" {
		l.storedClaimant(e)
		return e
	}
	e.Plugin = id
	ro, ok := l.reg.Owner(id)
	switch {
	case ok && ro.State == registry.Failed:
		e.State, e.Why, e.Failed = AbsentFailed, "whose activation failed: "+ro.Reason, true
	case ok && ro.State == registry.Faulted:
		e.State, e.Why, e.Failed = AbsentFaulted, "which faulted: "+ro.Reason, true
	case slices.Contains(e.Near, claimedAs(l.reg, kind, id, name)):
		// the plugin registers the name spelled otherwise: the spelling is the answer
	case !ok:
		e.State, e.Why = AbsentNotActivated, "which has not been activated"
	case ro.State == registry.Activating:
		e.State, e.Why = AbsentActivating, "which is still activating"
	case ro.State == registry.Revoked:
		e.State, e.Why = AbsentStopped, "which was stopped: "+ro.Reason
	default:
		e.State, e.Why = AbsentStale, "which does not register it now"
	}
	return e
}

// claimedAs is the name, as plugin id registered it, that name folds to.
func claimedAs(reg *registry.Registry, kind protocol.RegisterKind, id, name string) string {
	tools, commands, _ := reg.Claims(id)
	if kind == protocol.KindCommand {
		tools = commands
	}
	for _, n := range tools {
		if registry.Fold(n) == registry.Fold(name) {
			return n
		}
	}
	return ""
}

// storedClaimant fills e from the first installed plugin, not desired now, whose record
// claims the name (the names it registered at its last successful activation).
func (l *Layer) storedClaimant(e *NotLiveError) {
	recs, err := l.store.List()
	if err != nil {
		return // the state file's own error is every other command's to report
	}
	for _, r := range recs {
		if r.Claims == nil || !slices.ContainsFunc(claimList(r.Claims, e.Kind), func(n string) bool { return registry.Fold(n) == registry.Fold(e.Name) }) {
			continue
		}
		e.Plugin = r.ID
		e.State, e.Why = l.store.HeldBack(r)
		l.mu.Lock()
		why, changed := l.unverified[r.ID]
		l.mu.Unlock()
		if e.State == "" && changed {
			e.State, e.Why = AbsentChanged, "whose staged copy changed since it was trusted ("+why+")"
		}
		if e.State != "" {
			return
		}
		e.Plugin = "" // desired after all: the claim table will know it once reconciled
	}
}

func claimList(c *plugins.Claims, kind string) []string {
	if kind == string(protocol.KindCommand) {
		return c.Commands
	}
	return c.Tools
}

// NotLive is the error a call to name would fail with when no live tool or command has it:
// a *NotLiveError naming the plugin the name belongs to and why it is not active, when
// the claim table or a plugin's record knows. kind is "tool" or "command".
func (l *Layer) NotLive(kind, name string) error {
	return l.notLive(protocol.RegisterKind(kind), name)
}

// vanished is the error of a call whose name the entry of plugin id listed and no live
// plugin registers: the plugin was activated for it and does not register it (its entry is
// replaced), or its activation failed.
func (l *Layer) vanished(kind protocol.RegisterKind, name, id string) error {
	e := &NotLiveError{Kind: string(kind), Name: name, Plugin: id}
	ro, ok := l.reg.Owner(id)
	switch {
	case ok && ro.State == registry.Active:
		e.State, e.Why = AbsentStale, "whose catalog entry listed it, but which no longer registers it (the entry is replaced)"
	case ok && ro.State == registry.Failed:
		e.State, e.Why, e.Failed = AbsentFailed, "whose activation failed: "+ro.Reason, true
	case ok && ro.State == registry.Faulted:
		e.State, e.Why, e.Failed = AbsentFaulted, "which faulted: "+ro.Reason, true
	default:
		e.State, e.Why = AbsentNotActivated, "which was not activated"
	}
	return e
}

// maxNear bounds the near misses a NotLiveError lists.
const maxNear = 3

// nearNames lists the names of known that name nearly is: the same name folded (another
// case, `-` for `_`) first, then those within a small edit distance of it, closest first.
func nearNames(name string, known []string) []string {
	type near struct {
		name string
		d    int
	}
	key := registry.Fold(name)
	limit := min(2, max(1, len(key)/4))
	var out []near
	for _, k := range known {
		if k == name {
			continue
		}
		fk := registry.Fold(k)
		if fk == key {
			out = append(out, near{k, 0})
		} else if d := editDistance(key, fk, limit); d <= limit {
			out = append(out, near{k, d})
		}
	}
	slices.SortStableFunc(out, func(a, b near) int { return a.d - b.d })
	names := make([]string, 0, min(len(out), maxNear))
	for _, n := range out[:min(len(out), maxNear)] {
		names = append(names, n.name)
	}
	return names
}

// editDistance is the Levenshtein distance of a and b counted in bytes, or limit+1 as
// soon as it must exceed limit.
func editDistance(a, b string, limit int) int {
	if d := len(a) - len(b); d > limit || -d > limit {
		return limit + 1
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		best := cur[0]
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			best = min(best, cur[j])
		}
		if best > limit {
			return limit + 1
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
