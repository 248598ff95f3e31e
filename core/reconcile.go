package core

import (
	"context"
	"errors"
	"fmt"
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
func (m *Manager) Reconcile(ctx context.Context) error {
	return m.reconcile(ctx, m.mode())
}

// reconcile is Reconcile; mode says which desired plugins it activates (lazy.go).
func (m *Manager) reconcile(ctx context.Context, mode reconcileMode) error {
	m.reconcileMu.Lock()
	defer m.reconcileMu.Unlock()
	m.startWatcher()
	cfg, err := config.LoadHome(m.home)
	if err != nil {
		return err
	}
	desired, blocked, _, err := m.store.Desired(cfg)
	if err != nil {
		return err
	}
	m.noteBlocked(blocked)
	want := make(map[string]plugins.Desired, len(desired))
	for _, d := range desired {
		want[d.ID] = d
	}
	for _, d := range m.builtinDesired(cfg, want) { // the builtin modules with work (builtin.go)
		want[d.ID] = d
	}

	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return errClosed
	}
	m.cfg = cfg
	var revoke []*owner
	for id, o := range m.owners {
		d, ok := want[id]
		if ok && o.sameIdentity(d) {
			continue
		}
		if m.stateOf(o).Live() {
			revoke = append(revoke, o)
		}
		delete(m.owners, id)
	}
	m.mu.Unlock()

	m.revokeAll(revoke, "the plugin was disabled, untrusted or changed")

	var fresh []plugins.Desired
	m.mu.Lock()
	for id, d := range want {
		if m.owners[id] == nil {
			fresh = append(fresh, d)
		}
	}
	m.mu.Unlock()
	// bytes are re-hashed before a plugin's first activation in this process
	unverified := map[string]string{}
	for _, d := range fresh {
		if err := m.verifyDesired(d); err != nil {
			delete(want, d.ID)
			unverified[d.ID] = err.Error()
			m.diags.add(d.ID, diagReceipt, err.Error())
			m.log.Warn("plugin not activated", "plugin", d.ID, "error", err)
		}
	}
	m.reg.SetClaims(claimsOf(want)) // known before any host starts
	entries := m.lookupEntries(want)
	m.mu.Lock()
	m.desired = want
	m.planLocked(mode, entries)
	tiers := map[protocol.Tier]bool{}
	for id := range want {
		if m.lazy.isDeferred(id) {
			continue // the catalog stands in for it until a call needs it
		}
		if o := m.owners[id]; o == nil || m.stateOf(o).Live() {
			tiers[tierOf(id)] = true
		}
	}
	m.mu.Unlock()

	var errs []error
	for _, t := range []protocol.Tier{protocol.TierPlugin, protocol.TierBuiltin} {
		if !tiers[t] {
			continue
		}
		h, err := m.ensureTier(ctx, t)
		if err != nil {
			errs = append(errs, fmt.Errorf("start the %s tier: %w", t, err))
			continue
		}
		m.activateMissing(ctx, t, h)
	}
	errs = append(errs, m.resettleBuiltin(ctx, cfg)...) // names the plugins just took (builtin.go)
	// a cancelled reconcile reports the cancellation, not half-done owners
	if ctx.Err() == nil {
		errs = append(errs, m.pluginFailures(unverified)...)
	}
	return errors.Join(errs...)
}

// Reload re-reads config.toml and the state like Reconcile, and also retries the plugins
// held back after a failed activation or a fault (`cwx plugin reload`).
func (m *Manager) Reload(ctx context.Context) error {
	m.forgetHeldBack()
	return m.Reconcile(ctx)
}

// revokeAll revokes owners concurrently and returns when every one is torn down.
func (m *Manager) revokeAll(owners []*owner, reason string) {
	var wg sync.WaitGroup
	for _, o := range owners {
		wg.Add(1)
		go func() { defer wg.Done(); m.revoke(o, reason) }()
	}
	wg.Wait()
}

// noteBlocked records, once per distinct reason, why an enabled plugin is not desired.
func (m *Manager) noteBlocked(blocked []plugins.Blocked) {
	m.mu.Lock()
	var note []plugins.Blocked
	seen := map[string]bool{}
	for _, b := range blocked {
		seen[b.ID] = true
		if m.blocked[b.ID] != b.Err.Error() {
			m.blocked[b.ID] = b.Err.Error()
			note = append(note, b)
		}
	}
	for id := range m.blocked {
		if !seen[id] {
			delete(m.blocked, id)
		}
	}
	m.mu.Unlock()
	for _, b := range note {
		m.diags.add(b.ID, diagReceipt, b.Err.Error())
	}
}

// startWatcher starts polling the state generation (once; reconcileMu held).
func (m *Manager) startWatcher() {
	m.mu.Lock()
	if m.watching || m.closed || m.o.PollInterval < 0 {
		m.mu.Unlock()
		return
	}
	m.watching = true
	m.mu.Unlock()
	w, err := plugins.NewWatcher(m.store)
	if err != nil {
		m.log.Warn("cannot watch the plugin state", "error", err)
		return
	}
	every := m.o.PollInterval
	if every == 0 {
		every = plugins.PollInterval
	}
	m.wg.Add(2)
	go func() {
		defer m.wg.Done()
		t := time.NewTicker(every)
		defer t.Stop()
		w.Run(m.bg, t.C)
	}()
	go func() {
		defer m.wg.Done()
		for {
			select {
			case <-m.bg.Done():
				return
			case <-w.Changed():
				if _, err := PluginErrors(m.Reconcile(m.bg)); err != nil && m.bg.Err() == nil {
					m.log.Warn("reconcile after a state change", "error", err)
				}
			}
		}
	}()
}
