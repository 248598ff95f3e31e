package core

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/cwx-dev/cwx/core/protocol"
	"github.com/cwx-dev/cwx/core/registry"
	"github.com/cwx-dev/cwx/core/rpc"
	"github.com/cwx-dev/cwx/core/supervisor"
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
	stale, todo, suspects := m.claim(t, h)
	for _, o := range stale {
		_ = m.reg.Revoke(o.ref, o.tier, "host restarted")
		o.end(causeHostExited(errHostRestarted))
	}
	var wg sync.WaitGroup
	var alone []*owner
	for _, o := range todo {
		if suspects[o.id] {
			alone = append(alone, o)
			continue
		}
		wg.Add(1)
		go func() { defer wg.Done(); m.activate(ctx, o) }()
	}
	wg.Wait()
	m.activateSuspects(ctx, t, alone)
}

// claim begins, on incarnation h of tier t, an owner for every desired plugin of the tier
// that has none (or only one of an older incarnation, which it returns as stale), and
// returns the suspects of the tier's last unattributed crash.
func (m *Manager) claim(t protocol.Tier, h host) (stale, todo []*owner, suspects map[string]bool) {
	gen := h.Generation()
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.wrapHost != nil {
		h = m.wrapHost(h)
	}
	ts := m.tierLocked(t)
	if m.closed || gen < ts.hostGen {
		return nil, nil, nil // a newer incarnation replaced h; its HostReady activates
	}
	ts.hostGen = gen
	for id, o := range m.owners {
		if o.tier == t && o.gen < gen && m.stateOf(o).Live() {
			// a restart the owner layer was not told about (a planned restart): replay
			stale = append(stale, o)
			delete(m.owners, id)
		}
	}
	for id, d := range m.desired {
		if tierOf(id) != t || m.lazy.isDeferred(id) {
			continue
		}
		if o := m.owners[id]; o != nil && (m.stateOf(o).Live() || o.sameIdentity(d)) {
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
	return stale, todo, maps.Clone(ts.suspects)
}

// activateSuspects activates the suspects of an unattributed crash one at a time, after the
// others, so a crash during one of their activations is blamed on exactly that one. A
// suspect cleared (active) or blamed (failed, faulted) is no longer one.
func (m *Manager) activateSuspects(ctx context.Context, t protocol.Tier, suspects []*owner) {
	slices.SortFunc(suspects, func(a, b *owner) int { return strings.Compare(a.id, b.id) })
	for _, o := range suspects {
		m.activate(ctx, o)
		st := m.stateOf(o)
		if st == registry.Activating || st == registry.Revoked {
			return // the host died under it: the next incarnation goes on from here
		}
		m.mu.Lock()
		delete(m.tierLocked(t).suspects, o.id)
		m.mu.Unlock()
	}
}

// activate runs every entry of o's plugin under one owner. Any failure fails the owner
// (the host rolls its registrations back) and is recorded in the diagnostics ring.
func (m *Manager) activate(ctx context.Context, o *owner) {
	start := time.Now()
	d := o.want
	fail := func(reason string) { m.activationFailed(o, reason) }
	if d.Config.Err != nil {
		fail(d.Config.Err.Error())
		return
	}
	// the whole closure, before every activation: replays and restarts load modules afresh
	// (ARCHITECTURE.md, “Plugins and trust”)
	if err := m.verifyDesired(d); err != nil {
		fail(err.Error())
		return
	}
	dataDir, err := m.ensureDataDir(d)
	if err != nil {
		fail(fmt.Sprintf("create the data directory: %v", err))
		return
	}
	if err := checkStorage(m.dataPlace(d)); err != nil { // the quota of owner-local storage
		fail(err.Error())
		return
	}
	cfgJSON := d.Config.JSON
	if cfgJSON == nil {
		cfgJSON = []byte("{}")
	}
	for _, e := range d.Entries {
		p := protocol.ActivateParams{Owner: o.ref, PluginName: d.ID, Entry: protocol.EntryRef{Path: e.Path, SHA256: e.SHA256},
			Config: cfgJSON, DataDir: dataDir}
		msg, err := o.h.Activate(ctx, p, rpc.CallOpts{Timeout: ActivateDeadline})
		if errors.Is(err, ErrNotAvailable) {
			m.activationGone(o, err)
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
	o.activatedIn.Store(int64(time.Since(start)))
	m.persistClaims(o)
	m.persistCatalog(o)
	m.log.Info("plugin active", "plugin", o.id, "generation", o.ref.Generation, "host_generation", o.gen)
}

// activationGone handles an incarnation that ended under o's activation. hostExited blames
// the owner or forgets it for replay; if it already ran for this incarnation without seeing
// the owner, the owner is forgotten here so the next incarnation replays it.
func (m *Manager) activationGone(o *owner, err error) {
	m.mu.Lock()
	if o.gen > m.peekLocked(o.tier).exitedGen || m.stateOf(o) != registry.Activating {
		m.mu.Unlock()
		return
	}
	if m.owners[o.id] == o {
		delete(m.owners, o.id)
	}
	_ = m.reg.Revoke(o.ref, o.tier, "host exited during activation")
	m.mu.Unlock()
	o.end(causeHostExited(err))
}

// activationFailed fails o with reason and records it, unless o already ended otherwise
// (blamed for a crash, or revoked meanwhile).
func (m *Manager) activationFailed(o *owner, reason string) {
	first := m.reg.Fail(o.ref, o.tier, reason) == nil
	o.end(&endCause{kind: ErrNotAvailable, msg: "activation failed: " + reason})
	if !first {
		return
	}
	m.diags.add(o.id, diagActivationFailed, reason)
	m.log.Warn("plugin activation failed", "plugin", o.id, "generation", o.ref.Generation, "reason", reason)
}

// revoke takes an owner back synchronously: its registrations are dropped at once, its calls
// in flight are cancelled (`$/cancel`; each resolves Cancelled("extension was revoked")
// within rpc.CancelGrace), then the host is asked to deactivate it within
// DeactivateDeadline. An answer other than {disposed: true, leaked: []} is a dirty
// teardown, reported to the supervisor.
func (m *Manager) revoke(o *owner, reason string) {
	wasLive := m.reg.Revoke(o.ref, o.tier, reason) == nil
	drained := o.end(causeRevoked)
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

// hostExited drops the owners of an ended incarnation that was not killed for a hang (see
// hostEnded).
func (m *Manager) hostExited(t protocol.Tier, gen uint64, cause error, activating *protocol.OwnerRef, planned bool) {
	m.hostEnded(t, gen, cause, supervisor.ExitInfo{Activating: activating, Planned: planned})
}

// hostEnded drops the owners of an ended incarnation: the one it is blamed on is failed
// (not replayed); the others are forgotten so the next HostReady replays them with fresh
// generations. Calls in flight already failed HostExited in the rpc peer. A host killed for
// not answering blames the owner whose callback its watchdog named (ExitInfo.Busy), else its
// activating owner, for blocking it; any other end blames the activating owner for crashing
// it. The blame is logged and kept for `cwx host status` (TierStatus.LastBlame).
func (m *Manager) hostEnded(t protocol.Tier, gen uint64, cause error, info supervisor.ExitInfo) {
	reason := cause.Error()
	m.mu.Lock()
	ts := m.tierLocked(t)
	if info.Crash() {
		ts.crashes++
	}
	ts.exitedGen = max(ts.exitedGen, gen)
	live := m.liveOnLocked(t, gen)
	blamed, crashed := m.blameLocked(ts, live, info, reason)
	if blamed != nil {
		delete(ts.suspects, blamed.id)
		ts.lastBlame = blameLine(blamed.id, crashed)
	}
	for _, l := range live {
		l.o.end(causeHostExited(cause))
		if l.o == blamed {
			_ = m.reg.Fail(l.o.ref, t, crashed)
			continue
		}
		_ = m.reg.Revoke(l.o.ref, t, "host exited: "+reason)
		delete(m.owners, l.o.id)
	}
	suspects := len(ts.suspects)
	m.mu.Unlock()
	id := ""
	if blamed != nil {
		id = blamed.id
		m.diags.add(blamed.id, diagActivationFailed, crashed)
		m.log.Warn("host end blamed on a plugin", "tier", t, "host_generation", gen, "plugin", id, "reason", crashed)
	}
	m.log.Info("owners of an ended host dropped", "tier", t, "host_generation", gen, "blamed", id, "suspects", suspects)
}

// blameLine is how a blame reads in `cwx host status`.
func blameLine(id, reason string) string { return "plugin `" + id + "`: " + reason }

// liveOwner is an owner of an ended incarnation that was live, with its state then.
type liveOwner struct {
	o  *owner
	st registry.State
}

// liveOnLocked returns the owners of tier t's incarnations up to gen that are live.
//
// +checklocks:m.mu
func (m *Manager) liveOnLocked(t protocol.Tier, gen uint64) []liveOwner {
	var live []liveOwner
	for _, o := range m.owners {
		if o.tier != t || o.gen > gen {
			continue
		}
		if st := m.stateOf(o); st.Live() {
			live = append(live, liveOwner{o, st})
		}
	}
	return live
}

// blameLocked decides, in the one place that does, whom the end of an incarnation is
// blamed on, and why. The supervisor reports the facts. A host killed for not answering
// (info.Hung) whose watchdog named the owner of the callback that held its event loop
// (info.Busy) is blamed on that owner, active or activating. Otherwise the owner whose
// ext/activate was in flight, when exactly one was, is blamed; with none in flight, the sole
// owner still activating is. When several were activating and none was reported, each
// becomes a suspect of ts: the next incarnation activates the suspects one at a time after
// the others, so the next crash names the culprit. Anything else is unattributed (nil).
//
// +checklocks:m.mu
func (m *Manager) blameLocked(ts *tierState, live []liveOwner, info supervisor.ExitInfo, reason string) (*owner, string) {
	if info.Hung && info.Busy != nil {
		for _, l := range live {
			if l.o.ref == *info.Busy {
				return l.o, "a callback of the plugin did not return and blocked the host: " + reason
			}
		}
	}
	crashed := "host crashed during activation: " + reason
	if info.Hung {
		crashed = fmt.Sprintf("apply did not finish within %s and blocked the host", hostActivateMS*time.Millisecond)
	}
	var activating []*owner
	for _, l := range live {
		if l.st == registry.Activating {
			activating = append(activating, l.o)
		}
	}
	switch {
	case info.Activating != nil:
		for _, o := range activating {
			if o.ref == *info.Activating {
				return o, crashed
			}
		}
		return nil, ""
	case len(activating) == 1:
		return activating[0], crashed
	}
	for _, o := range activating {
		if ts.suspects == nil {
			ts.suspects = map[string]bool{}
		}
		ts.suspects[o.id] = true
	}
	return nil, ""
}

// forgetHeldBack drops failed and faulted owners so the next activation retries them.
func (m *Manager) forgetHeldBack() {
	m.mu.Lock()
	defer m.mu.Unlock()
	for id, o := range m.owners {
		if !m.stateOf(o).Live() {
			delete(m.owners, id)
		}
	}
}
