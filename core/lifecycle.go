package core

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/cwx-dev/cwx/core/protocol"
	"github.com/cwx-dev/cwx/core/rpc"
)

// revokeDrainBound bounds the wait for a revoked owner's calls (twice the cancel grace).
const revokeDrainBound = 2 * rpc.CancelGrace

// Diagnostic kinds the Manager records in a plugin's ring.
const (
	diagActivationFailed = "activation_failed"
	diagFaulted          = "faulted"
	diagRefused          = "refused"
	diagReceipt          = "receipt"
	diagConfig           = "config"
	diagDirty            = "dirty_teardown"
	diagLog              = "log"
	diagHostExited       = "host_exited"
)

// activateMissing activates, on incarnation h of tier t, every desired plugin of that tier
// that has no owner (or only an owner of an older incarnation). Each plugin activates on its
// own goroutine, so a slow or broken one never delays another; it returns when all are done
// (each bounded by ActivateDeadline).
func (m *Manager) activateMissing(ctx context.Context, t protocol.Tier, h host) {
	if ctx.Err() != nil {
		return
	}
	gen := h.Generation()
	m.mu.Lock()
	if m.wrapHost != nil {
		h = m.wrapHost(h)
	}
	if m.closed || gen < m.hostGen[t] {
		m.mu.Unlock()
		return // a newer incarnation replaced h; its HostReady activates
	}
	m.hostGen[t] = gen
	var stale []*owner
	for id, o := range m.owners {
		if o.tier == t && o.live() && o.gen < gen {
			// a restart the owner layer was not told about (a planned restart): replay
			stale = append(stale, o)
			delete(m.owners, id)
		}
	}
	var todo []*owner
	for id, d := range m.desired {
		if tierOf(id) != t {
			continue
		}
		if o := m.owners[id]; o != nil && (o.live() || o.sameIdentity(d)) {
			continue // live, or failed/faulted with these very bytes and config
		}
		ref, err := m.reg.BeginOwner(id, t)
		if err != nil {
			m.log.Warn("cannot begin owner", "plugin", id, "error", err)
			continue
		}
		o := newOwner(d, ref, h)
		m.owners[id] = o
		todo = append(todo, o)
	}
	m.mu.Unlock()
	for _, o := range stale {
		_ = m.reg.Revoke(o.ref, o.tier, "host restarted")
		o.end(causeHostExited(errHostRestarted))
	}
	// Owners that were activating together when a host died unattributed are replayed one
	// at a time after the others, so a crash during activation is blamed on exactly one.
	var suspects []*owner
	var wg sync.WaitGroup
	m.mu.Lock()
	sus := m.suspects[t]
	m.mu.Unlock()
	for _, o := range todo {
		if sus[o.id] {
			suspects = append(suspects, o)
			continue
		}
		wg.Add(1)
		go func() { defer wg.Done(); m.activate(ctx, o) }()
	}
	wg.Wait()
	slices.SortFunc(suspects, func(a, b *owner) int { return strings.Compare(a.id, b.id) })
	for _, o := range suspects {
		m.activate(ctx, o)
		m.mu.Lock()
		ph := o.phase
		if ph == phaseActive || ph == phaseFailed || ph == phaseFaulted { // cleared or blamed
			delete(m.suspects[t], o.id)
		}
		m.mu.Unlock()
		if ph == phaseActivating || ph == phaseRevoked {
			return // the host died under it: the next incarnation goes on from here
		}
	}
}

// activate runs every entry of o's plugin under one owner. Any failure fails the owner
// (the host rolls its registrations back) and is recorded in the diagnostics ring.
func (m *Manager) activate(ctx context.Context, o *owner) {
	d := o.want
	gone := func(err error) {
		// The incarnation ended under the activation. hostExited blames the owner (when it
		// was activating alone) or forgets it for replay; if it already ran for this
		// incarnation, the owner is forgotten here so the next incarnation replays it.
		m.mu.Lock()
		if o.gen > m.exitedGen[o.tier] || o.phase != phaseActivating {
			m.mu.Unlock()
			return
		}
		if m.owners[o.id] == o {
			delete(m.owners, o.id)
		}
		o.phase = phaseRevoked
		m.mu.Unlock()
		_ = m.reg.Revoke(o.ref, o.tier, "host exited during activation")
		o.end(causeHostExited(err))
	}
	fail := func(reason string) {
		_ = m.reg.Fail(o.ref, o.tier, reason)
		m.mu.Lock()
		first := o.phase == phaseActivating
		if first {
			o.phase, o.reason = phaseFailed, reason
		}
		m.mu.Unlock()
		o.end(&endCause{kind: ErrNotAvailable, msg: "activation failed: " + reason})
		if !first {
			return // already failed (blamed for a crash) or revoked meanwhile
		}
		m.diags.add(o.id, diagActivationFailed, reason)
		m.log.Warn("plugin activation failed", "plugin", o.id, "generation", o.ref.Generation, "reason", reason)
	}
	if d.Config.Err != nil {
		fail(d.Config.Err.Error())
		return
	}
	if err := m.store.VerifyEntries(d.Record); err != nil {
		fail(err.Error())
		return
	}
	dataDir, err := m.store.Layout().EnsureDataDir(d.ID)
	if err != nil {
		fail(fmt.Sprintf("create the data directory: %v", err))
		return
	}
	cfgJSON := d.Config.JSON
	if cfgJSON == nil {
		cfgJSON = []byte("{}")
	}
	for _, e := range d.Entries {
		p := protocol.ActivateParams{Owner: o.ref, PluginName: d.ID, Entry: protocol.EntryRef{Path: e.Path, SHA256: e.SHA256},
			Config: cfgJSON, DataDir: dataDir}
		msg, err := o.h.Call(ctx, protocol.MethodExtActivate, p, rpc.CallOpts{Timeout: ActivateDeadline})
		if errors.Is(err, ErrNotAvailable) {
			gone(err)
			return
		}
		if err != nil && ctx.Err() != nil {
			// the caller gave up (Reconcile's context, a tier stop): not the plugin's fault;
			// forget the owner so the next Reconcile activates it, and undo it in the host
			m.abandon(o)
			return
		}
		if err != nil {
			fail(fmt.Sprintf("ext/activate of %s: %v", e.Rel, err))
			return
		}
		res, ok := msg.Value.(*protocol.ActivateResult)
		if !ok {
			fail(fmt.Sprintf("ext/activate of %s: unexpected answer", e.Rel))
			return
		}
		if res.Status != protocol.ActivateOK {
			fail(res.Diagnostic)
			return
		}
	}
	if err := m.reg.Activate(o.ref, o.tier); err != nil {
		// revoked or the host went away while the activation ran: undo it in the host
		m.deactivate(o)
		return
	}
	m.mu.Lock()
	if o.phase == phaseActivating {
		o.phase = phaseActive
	}
	m.mu.Unlock()
	m.log.Info("plugin active", "plugin", o.id, "generation", o.ref.Generation, "host_generation", o.gen)
}

// revoke takes an owner back synchronously: its registrations are dropped at once, its calls
// in flight are cancelled (`$/cancel`; each resolves Cancelled("extension was revoked")
// within the 500 ms cancel grace), then the host is asked to deactivate it within
// DeactivateDeadline. An answer other than {disposed: true, leaked: []} is a dirty
// teardown, reported to the supervisor.
func (m *Manager) revoke(o *owner, reason string) {
	_ = m.reg.Revoke(o.ref, o.tier, reason)
	m.mu.Lock()
	wasLive := o.live()
	if wasLive {
		o.phase, o.reason = phaseRevoked, reason
	}
	drained := o.drain()
	m.mu.Unlock()
	o.end(causeRevoked)
	if !wasLive {
		return
	}
	// rpc resolves a cancelled call within its cancel grace; the bound here only keeps a
	// misbehaving host implementation from holding revocation
	select {
	case <-drained:
	case <-time.After(revokeDrainBound):
		m.log.Warn("calls still in flight after revocation", "plugin", o.id, "generation", o.ref.Generation)
	}
	m.deactivate(o)
}

// abandon forgets an owner whose activation was cancelled by its caller.
func (m *Manager) abandon(o *owner) {
	_ = m.reg.Revoke(o.ref, o.tier, "activation cancelled")
	m.mu.Lock()
	if m.owners[o.id] == o {
		delete(m.owners, o.id)
	}
	o.phase = phaseRevoked
	m.mu.Unlock()
	o.end(causeRevoked)
	m.log.Debug("activation abandoned", "plugin", o.id, "generation", o.ref.Generation)
	ctx, cancel := context.WithTimeout(context.Background(), DeactivateDeadline)
	defer cancel()
	_, _ = o.h.Call(ctx, protocol.MethodExtDeactivate, protocol.DeactivateParams{Owner: o.ref}, rpc.CallOpts{Timeout: DeactivateDeadline})
}

// deactivate sends ext/deactivate for o and reports a dirty teardown.
func (m *Manager) deactivate(o *owner) {
	ctx, cancel := context.WithTimeout(context.Background(), DeactivateDeadline)
	defer cancel()
	msg, err := o.h.Call(ctx, protocol.MethodExtDeactivate, protocol.DeactivateParams{Owner: o.ref}, rpc.CallOpts{Timeout: DeactivateDeadline})
	if errors.Is(err, ErrNotAvailable) {
		// the host is gone (its owners with it), restarting, busy or unresponsive: the
		// heartbeat and the crash budget deal with it; it is not this plugin's teardown
		m.log.Debug("ext/deactivate not delivered", "plugin", o.id, "generation", o.ref.Generation, "error", err)
		return
	}
	var detail string
	switch res, ok := msgValue[protocol.DeactivateResult](msg); {
	case err != nil:
		detail = "ext/deactivate: " + err.Error()
	case !ok:
		detail = "ext/deactivate: unexpected answer"
	case !res.Disposed || len(res.Leaked) > 0:
		detail = fmt.Sprintf("disposed %t, leaked [%s]", res.Disposed, strings.Join(res.Leaked, ", "))
	default:
		m.log.Debug("plugin deactivated", "plugin", o.id, "generation", o.ref.Generation)
		return
	}
	m.log.Warn("dirty teardown", "plugin", o.id, "generation", o.ref.Generation, "detail", detail)
	m.diags.add(o.id, diagDirty, detail)
	if t := m.tier(o.tier); t != nil {
		t.ReportDirtyTeardown()
	}
}

func msgValue[T any](msg *protocol.Message) (*T, bool) {
	if msg == nil {
		return nil, false
	}
	v, ok := msg.Value.(*T)
	return v, ok
}

// hostExited drops the owners of an ended incarnation: the sole owner that was activating
// is failed (not replayed); the others are forgotten so the next HostReady replays them
// with fresh generations. Calls in flight already failed HostExited in the rpc peer.
func (m *Manager) hostExited(t protocol.Tier, gen uint64, cause error, activating *protocol.OwnerRef, planned bool) {
	reason := cause.Error()
	if activating != nil { // the supervisor saw exactly this ext/activate in flight
		_ = m.reg.Fail(*activating, t, "host crashed during activation: "+reason)
	}
	_, blamed := m.reg.HostExited(t, reason)
	if activating != nil {
		blamed = activating.PluginID
	}
	m.mu.Lock()
	if !planned {
		m.crashes[t]++
	}
	m.exitedGen[t] = max(m.exitedGen[t], gen)
	var failed []*owner
	if blamed == "" {
		for id, o := range m.owners {
			if o.tier == t && o.gen <= gen && o.phase == phaseActivating {
				if m.suspects[t] == nil {
					m.suspects[t] = map[string]bool{}
				}
				m.suspects[t][id] = true
			}
		}
	}
	for id, o := range m.owners {
		if o.tier != t || o.gen > gen || !o.live() {
			continue
		}
		o.end(causeHostExited(cause))
		if id == blamed && o.phase == phaseActivating {
			o.phase, o.reason = phaseFailed, "host crashed during activation: "+reason
			failed = append(failed, o)
			continue
		}
		delete(m.owners, id)
	}
	sus := len(m.suspects[t])
	m.mu.Unlock()
	m.log.Info("owners of an ended host dropped", "tier", t, "host_generation", gen, "blamed", blamed, "suspects", sus)
	for _, o := range failed {
		m.diags.add(o.id, diagActivationFailed, o.reason)
	}
}

// forgetHeldBack drops failed and faulted owners so the next activation retries them.
func (m *Manager) forgetHeldBack() {
	m.mu.Lock()
	defer m.mu.Unlock()
	for id, o := range m.owners {
		if o.phase == phaseFailed || o.phase == phaseFaulted || o.phase == phaseRevoked {
			delete(m.owners, id)
		}
	}
}
