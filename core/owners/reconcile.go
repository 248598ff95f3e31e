package owners

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/cwx-dev/cwx/core/config"
	"github.com/cwx-dev/cwx/core/plugins"
	"github.com/cwx-dev/cwx/core/protocol"
)

// Reconcile brings the live owners in line with what is desired (enabled ∧ trusted ∧
// receipt valid, read afresh from state.json and config.toml): owners no longer desired are
// revoked, owners whose closure hash or config digest changed are revoked and activated
// again under a new generation, missing owners are activated in parallel. A tier is started
// only when a desired plugin needs it; with nothing desired nothing is spawned or
// materialized. A plugin that failed or faulted is not retried until its bytes or config
// change or Reload is called. The error joins, besides a tier that could not start, one
// *PluginError per desired plugin that is failed or faulted afterwards (PluginErrors splits
// them off; Owners lists every owner). After the first Reconcile the Manager polls the state
// generation every plugins.PollInterval and reconciles by itself when another process changes it.
func (l *Layer) Reconcile(ctx context.Context) error {
	return l.reconcile(ctx, l.mode())
}

// Advertise is Reconcile for a listing: it activates only the desired plugins with no valid
// catalog entry, and defers every other one, hooks or not, so that Tools and Commands answer
// from the catalog. With every enabled plugin cached it starts no process at all. A later
// call to a deferred plugin's tool or command activates it, with the hook holders.
func (l *Layer) Advertise(ctx context.Context) error {
	return l.reconcile(ctx, modeAdvertise)
}

// reconcile is Reconcile; mode says which desired plugins it activates (catalog.go).
func (l *Layer) reconcile(ctx context.Context, mode reconcileMode) error {
	l.reconcileMu.Lock()
	defer l.reconcileMu.Unlock()
	l.startWatcher()
	cfg, err := config.LoadHome(l.home)
	if err != nil {
		return err
	}
	cfg = isolated(cfg, l.o.Isolate)
	desired, blocked, _, err := l.store.Desired(cfg)
	if err != nil {
		return err
	}
	l.noteBlocked(blocked)
	want := make(map[string]plugins.Desired, len(desired))
	for _, d := range desired {
		want[d.ID] = d
	}
	for _, d := range l.builtinDesired(cfg, want) { // the builtin modules with work (start.go)
		want[d.ID] = d
	}

	l.mu.Lock()
	if l.closed {
		l.mu.Unlock()
		return errClosed
	}
	l.cfg = cfg
	var revoke []*Owner
	for id, o := range l.owners {
		d, ok := want[id]
		if ok && o.sameIdentity(d) && o.host == hostFor(cfg, id) && !l.regrantedLocked(cfg, o.host) {
			continue // else moved between hosts or given other grants: revoked, activated anew
		}
		if l.stateOf(o).Live() {
			revoke = append(revoke, o)
		}
		delete(l.owners, id)
	}
	l.mu.Unlock()

	l.revokeAll(revoke, "the plugin was disabled, untrusted or changed")
	l.stopUnneeded(cfg, want)

	var fresh []plugins.Desired
	l.mu.Lock()
	for id, d := range want {
		if l.owners[id] == nil {
			fresh = append(fresh, d)
		}
	}
	l.mu.Unlock()
	// bytes are re-hashed before a plugin's first activation in this process
	unverified := map[string]string{}
	for _, d := range fresh {
		if err := l.verifyDesired(d); err != nil {
			delete(want, d.ID)
			unverified[d.ID] = err.Error()
			if re, ok := errors.AsType[*plugins.ReceiptError](err); ok && re.Detail != "" {
				unverified[d.ID] = re.Detail // the state says the rest (AbsentChanged)
			}
			l.diags.add(d.ID, diagReceipt, err.Error())
			l.log.Warn("plugin not activated", "plugin", d.ID, "error", err)
		}
	}
	l.reg.SetClaims(claimsOf(want)) // known before any host starts
	entries := l.lookupEntries(want)
	l.mu.Lock()
	l.desired = want
	l.unverified = unverified
	l.planLocked(mode, entries)
	hosts := map[protocol.HostKey]bool{}
	for id := range want {
		if l.lazy.isDeferred(id) {
			continue // the catalog stands in for it until a call needs it
		}
		if o := l.owners[id]; o == nil || l.stateOf(o).Live() {
			hosts[hostFor(cfg, id)] = true
		}
	}
	l.mu.Unlock()

	errs := l.startHosts(ctx, hosts)
	errs = append(errs, l.resettleBuiltin(ctx, cfg)...) // names the plugins just took (lifecycle.go)
	// a cancelled reconcile reports the cancellation, not half-done owners
	if ctx.Err() == nil {
		errs = append(errs, l.pluginFailures(unverified)...)
	}
	return errors.Join(errs...)
}

// regrantedLocked reports whether k is a plugin's own host whose sandbox was built with
// other grants than cfg gives the plugin now.
//
// +checklocks:l.mu
func (l *Layer) regrantedLocked(cfg *config.Config, k protocol.HostKey) bool {
	ts := l.tiers[k]
	return k.Isolated() && ts != nil && ts.rt != nil && ts.grants != grantsKey(cfg, k.Group)
}

// stopUnneeded stops the own host of every plugin that no longer has one (disabled,
// untrusted, or moved to the shared host) or whose grants changed: its owner was revoked
// just now. The next need of the plugin's own host starts a new one.
func (l *Layer) stopUnneeded(cfg *config.Config, want map[string]plugins.Desired) {
	l.mu.Lock()
	var stop []Tier
	for k, ts := range l.tiers {
		if !k.Isolated() {
			continue
		}
		if _, ok := want[k.Group]; ok && hostFor(cfg, k.Group) == k && !l.regrantedLocked(cfg, k) {
			continue
		}
		if ts.rt != nil {
			stop = append(stop, ts.rt)
		}
		delete(l.tiers, k)
	}
	l.mu.Unlock()
	var wg sync.WaitGroup
	for _, t := range stop {
		wg.Add(1)
		go func() { defer wg.Done(); t.Stop() }()
	}
	wg.Wait()
}

// startHosts starts every host of hosts that is not running and activates there what is
// missing: the plugin tier's hosts in parallel (each plugin's activation on its own
// goroutine too), then the builtin tier's, so that a plugin's names are registered before a
// builtin module's work could take them (resettleBuiltin). It returns when all are done, with
// one error per host that could not start, in the order of hostOrder.
func (l *Layer) startHosts(ctx context.Context, hosts map[protocol.HostKey]bool) []error {
	keys := slices.SortedFunc(maps.Keys(hosts), hostOrder)
	errs := make([]error, len(keys))
	run := func(i int, k protocol.HostKey) {
		h, err := l.ensureTier(ctx, k)
		if err != nil {
			errs[i] = fmt.Errorf("start %s: %w", hostPhrase(k), err)
			return
		}
		l.activateMissing(ctx, k, h)
	}
	var wg sync.WaitGroup
	for i, k := range keys {
		if k.Tier == protocol.TierPlugin {
			wg.Add(1)
			go func() { defer wg.Done(); run(i, k) }()
		}
	}
	wg.Wait()
	for i, k := range keys {
		if k.Tier != protocol.TierPlugin {
			run(i, k)
		}
	}
	return slices.DeleteFunc(errs, func(err error) bool { return err == nil })
}

// Reload re-reads config.toml and the state like Reconcile, and also retries the plugins
// held back after a failed activation or a fault (`cwx plugin reload`).
func (l *Layer) Reload(ctx context.Context) error {
	l.forgetHeldBack()
	return l.Reconcile(ctx)
}

// revokeAll revokes owners concurrently and returns when every one is torn down.
func (l *Layer) revokeAll(owners []*Owner, reason string) {
	var wg sync.WaitGroup
	for _, o := range owners {
		wg.Add(1)
		go func() { defer wg.Done(); l.revoke(o, reason) }()
	}
	wg.Wait()
}

// noteBlocked records, once per distinct reason, why an enabled plugin is not desired.
func (l *Layer) noteBlocked(blocked []plugins.Blocked) {
	l.mu.Lock()
	var note []plugins.Blocked
	seen := map[string]bool{}
	for _, b := range blocked {
		seen[b.ID] = true
		if l.blocked[b.ID] != b.Err.Error() {
			l.blocked[b.ID] = b.Err.Error()
			note = append(note, b)
		}
	}
	for id := range l.blocked {
		if !seen[id] {
			delete(l.blocked, id)
		}
	}
	l.mu.Unlock()
	for _, b := range note {
		l.diags.add(b.ID, diagReceipt, b.Err.Error())
	}
}

// startWatcher starts polling the state generation (once; reconcileMu held).
func (l *Layer) startWatcher() {
	l.mu.Lock()
	if l.watching || l.closed || l.o.PollInterval < 0 {
		l.mu.Unlock()
		return
	}
	l.watching = true
	l.mu.Unlock()
	w, err := plugins.NewWatcher(l.store)
	if err != nil {
		l.log.Warn("cannot watch the plugin state", "error", err)
		return
	}
	every := l.o.PollInterval
	if every == 0 {
		every = plugins.PollInterval
	}
	l.wg.Add(2)
	go func() {
		defer l.wg.Done()
		t := time.NewTicker(every)
		defer t.Stop()
		w.Run(l.bg, t.C)
	}()
	go func() {
		defer l.wg.Done()
		for {
			select {
			case <-l.bg.Done():
				return
			case <-w.Changed():
				if _, err := PluginErrors(l.Reconcile(l.bg)); err != nil && l.bg.Err() == nil {
					l.log.Warn("reconcile after a state change", "error", err)
				}
			}
		}
	}()
}
