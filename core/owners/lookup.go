package owners

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/cwx-dev/cwx/core/protocol"
	"github.com/cwx-dev/cwx/core/registry"
	"github.com/cwx-dev/cwx/core/rpc"
)

// replacedWait bounds how long a call whose host ended before it was sent waits for its
// plugin to be live again on the next incarnation: a restart, the replay of the innocent
// owners and one suspect's activation deadline.
const replacedWait = 3 * ActivateDeadline

// Target is one call's snapshot, taken once at its start: the registry's Target (handle,
// owner ref, tier, the tier's other Active owners, the compiled schema) and the layer's
// owner it names, the plugin's current one. The call path asks the registry nothing more.
type Target struct {
	registry.Target
	Holder *Owner
}

// Lookup takes the snapshot of the live tool or command name: one registry look-up, the
// plugin's current owner, which must be the one the registry names, and its receipt, all in
// memory. Liveness is checked again only at send time (Owner.Send).
func (l *Layer) Lookup(kind protocol.RegisterKind, name string) (Target, error) {
	find := l.reg.LookupTool
	if kind == protocol.KindCommand {
		find = l.reg.LookupCommand
	}
	tg, ok := find(name)
	if !ok {
		return Target{}, l.notLive(kind, name)
	}
	l.mu.Lock()
	o := l.owners[tg.Owner.PluginID]
	l.mu.Unlock()
	if o == nil || o.ref != tg.Owner {
		return Target{}, fmt.Errorf("%w: %s %q belongs to an owner that is no longer current", ErrNotAvailable, kind, name)
	}
	if err := l.checkReceipt(o.want); err != nil {
		return Target{}, fmt.Errorf("%w: %s %q: %w", ErrNotAvailable, kind, name, err)
	}
	return Target{Target: tg, Holder: o}, nil
}

// LookupRunnable takes the call's snapshot (Lookup) once the target's host can run it. A
// JS host runs its plugins on one thread: while another plugin's activation is in flight on
// the same incarnation, that activation may have blocked the thread for good (an apply that
// never yields), and a call sent now would only fail when the heartbeat or the activation
// deadline ends the host, although its own plugin is innocent. So, only while an
// activation is in flight there, the call first pings the host: an answer means the thread
// runs and the call is sent; a host that ends under the ping never received the call, which
// takes a new snapshot on the next incarnation, where the suspect replay (lifecycle.go)
// activates the culprit alone, after the others. Without an activation in flight this costs
// one look at the owner table.
//
// An error while ctx ends is ctx's or the ping's, for the caller to word.
func (l *Layer) LookupRunnable(ctx context.Context, kind protocol.RegisterKind, name string) (Target, error) {
	tg, err := l.Lookup(kind, name)
	if err != nil || !l.activatingBeside(tg.Holder) {
		return tg, err
	}
	var changes <-chan Change
	var failed *Owner // the owner whose host ended under the ping
	limit := time.NewTimer(replacedWait)
	defer limit.Stop()
	for {
		if err == nil && tg.Holder != failed {
			if !l.activatingBeside(tg.Holder) {
				return tg, nil
			}
			perr := l.probe(ctx, tg.Holder)
			if perr == nil {
				return tg, nil
			}
			if ctx.Err() != nil {
				return Target{}, perr
			}
			failed = tg.Holder
			if changes == nil { // subscribe, then look again: no change is missed
				wctx, cancel := context.WithCancel(ctx)
				defer cancel()
				changes = l.Changes(wctx)
				tg, err = l.Lookup(kind, name)
				continue
			}
		}
		select { // not live yet on the next incarnation: wait for the catalog to change
		case _, open := <-changes:
			if !open { // the Manager closed
				return Target{}, fmt.Errorf("%w: %s %q: the core is closing", ErrNotAvailable, kind, name)
			}
		case <-limit.C:
			if err != nil {
				return Target{}, err
			}
			return Target{}, l.notLive(kind, name)
		case <-ctx.Done():
			return Target{}, ctx.Err()
		}
		tg, err = l.Lookup(kind, name)
	}
}

// activatingBeside reports whether another owner is activating on o's incarnation.
func (l *Layer) activatingBeside(o *Owner) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, other := range l.owners {
		if other != o && other.host == o.host && other.gen == o.gen && l.stateOf(other) == registry.Activating {
			return true
		}
	}
	return false
}

// probe pings o's incarnation; it returns nil once the host answers, and an error when the
// host ends first (or ctx ends). The owner's end (which a host's end causes) ends the ping.
func (l *Layer) probe(ctx context.Context, o *Owner) error {
	pctx, stop := o.Bound(ctx)
	defer stop()
	_, err := o.h.Call(pctx, protocol.MethodHostPing, protocol.Empty{}, rpc.CallOpts{})
	if err != nil && pctx.Err() != nil && ctx.Err() == nil {
		return errors.Join(err, context.Cause(pctx))
	}
	return err
}

// Demand makes a call's plugins live before the call is looked up: the deferred plugin
// whose entry lists name (when name is not live), every plugin (builtin modules included)
// whose entry holds a pre-execute hook, and every plugin with no entry, which may hold one,
// so that the hooks see the call. It waits until each of them is settled (active, failed or
// faulted).
// When the plugin activated for name does not register it, its entry is replaced by the
// activation and name is resolved again: another deferred entry that lists it is activated
// in turn (the name moved); when none does, the call fails saying the name vanished.
func (l *Layer) Demand(ctx context.Context, kind protocol.RegisterKind, name string) error {
	if !l.o.Lazy && !l.anyDeferred() {
		return nil // eager: Reconcile activates everything, and nothing was advertised
	}
	var listed []string // plugins activated because their entry listed name, in order
	for range maxResolve {
		target, start, watch := l.undefer(kind, name, listed)
		if target == "" && len(start) == 0 && l.settled(watch) {
			break
		}
		if err := l.activateNow(ctx, start, watch); err != nil {
			return err
		}
		if target == "" {
			break
		}
		listed = append(listed, target)
		if l.isLive(kind, name) {
			break
		}
	}
	if len(listed) == 0 {
		return nil
	}
	first := listed[0]
	if owner, ok := l.liveOwner(kind, name); ok {
		if owner != first {
			l.log.Warn("catalog entry out of date: the name moved to another plugin", "kind", kind, "name", name,
				"listed_by", first, "registered_by", owner)
		}
		return nil
	}
	return l.vanished(kind, name, first)
}

// undefer takes out of the deferred set the plugin whose entry lists name (unless name is
// live or that plugin was tried already) and every deferred plugin whose entry holds a
// hook. It returns that plugin (target, or ""), the plugins taken out (start) and every
// plugin the call waits for (watch: start, the desired hook holders, the desired plugins
// with no entry).
func (l *Layer) undefer(kind protocol.RegisterKind, name string, tried []string) (target string, start, watch []string) {
	live := name == "" || l.isLive(kind, name)
	l.mu.Lock()
	defer l.mu.Unlock()
	lz := &l.lazy
	lz.mu.Lock()
	defer lz.mu.Unlock()
	if !live {
		for _, id := range slices.Sorted(maps.Keys(lz.deferred)) {
			e := lz.entries[id]
			if !slices.Contains(tried, id) && (kind == protocol.KindTool && e.HasTool(name) || kind == protocol.KindCommand && e.HasCommand(name)) {
				target = id
				break
			}
		}
	}
	for id := range l.desired {
		e, cached := lz.entries[id]
		if id == target || !cached || holdsHooks(id, e) {
			watch = append(watch, id)
			if lz.deferred[id] {
				delete(lz.deferred, id)
				lz.demanded[id] = true
				start = append(start, id)
			}
		}
	}
	slices.Sort(start)
	slices.Sort(watch)
	return target, start, watch
}

// settled reports whether every plugin of ids has an owner that is no longer activating.
func (l *Layer) settled(ids []string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, id := range ids {
		if _, desired := l.desired[id]; !desired {
			continue // disabled or changed meanwhile: nothing to wait for
		}
		o := l.owners[id]
		if o == nil || l.stateOf(o) == registry.Activating {
			return false
		}
	}
	return true
}

// activateNow starts the tiers of start and of the unsettled plugins of watch, activates
// what is missing there, and waits (at most lazyWait) until every plugin of watch is
// settled. A plugin that does not settle in time is logged and left: its hooks are not
// live, as for a plugin whose activation failed.
func (l *Layer) activateNow(ctx context.Context, start, watch []string) error {
	hosts := map[protocol.HostKey]bool{}
	l.mu.Lock()
	for _, id := range append(slices.Clone(start), watch...) {
		hosts[hostFor(l.cfg, id)] = true
	}
	l.mu.Unlock()
	if errs := l.startHosts(ctx, hosts); len(errs) > 0 {
		return errs[0]
	}
	limit := time.NewTimer(lazyWait)
	defer limit.Stop()
	tick := time.NewTicker(lazyPoll)
	defer tick.Stop()
	for !l.settled(watch) {
		select {
		case <-ctx.Done():
			return fmt.Errorf("%w: %w", ErrCancelled, context.Cause(ctx))
		case <-limit.C:
			l.log.Warn("plugins still activating when the call went on", "plugins", strings.Join(watch, ", "))
			return nil
		case <-tick.C:
		}
	}
	return nil
}

// AwaitSettled waits, at most lazyWait, until plugin id is desired and settled (its owner
// active, failed or faulted), and reports whether it is; false when ctx ends first.
func (l *Layer) AwaitSettled(ctx context.Context, id string) bool {
	ready := func() bool {
		l.mu.Lock()
		_, desired := l.desired[id]
		l.mu.Unlock()
		return desired && l.settled([]string{id})
	}
	limit := time.NewTimer(lazyWait)
	defer limit.Stop()
	tick := time.NewTicker(lazyPoll)
	defer tick.Stop()
	for !ready() {
		select {
		case <-ctx.Done():
			return false
		case <-limit.C:
			return false
		case <-tick.C:
		}
	}
	return true
}
