package owners

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/cwx-dev/cwx/core/config"
	"github.com/cwx-dev/cwx/core/plugins"
	"github.com/cwx-dev/cwx/core/protocol"
	"github.com/cwx-dev/cwx/core/registry"
	"github.com/cwx-dev/cwx/core/rpc"
	"github.com/cwx-dev/cwx/core/supervisor"
)

// revokeDrainBound bounds the wait for a revoked owner's calls (twice the cancel grace).
const revokeDrainBound = 2 * rpc.CancelGrace

// activateMissing activates, on incarnation h of host t, every desired plugin of that host
// that has no owner (or only an owner of an older incarnation). Each plugin activates on its
// own goroutine, so a slow or broken one never delays another; it returns when all are done
// (each bounded by ActivateDeadline).
func (l *Layer) activateMissing(ctx context.Context, t protocol.HostKey, h Host) {
	if ctx.Err() != nil {
		return
	}
	stale, todo, suspects := l.claim(t, h)
	for _, o := range stale {
		_ = l.reg.Revoke(o.ref, o.host, "host restarted")
		o.end(causeHostExited(errHostRestarted))
	}
	var wg sync.WaitGroup
	var alone []*Owner
	for _, o := range todo {
		if suspects[o.id] {
			alone = append(alone, o)
			continue
		}
		wg.Add(1)
		go func() { defer wg.Done(); l.activate(ctx, o) }()
	}
	wg.Wait()
	l.activateSuspects(ctx, t, alone)
}

// claim begins, on incarnation h of host t, an owner for every desired plugin of the host
// that has none (or only one of an older incarnation, which it returns as stale), and
// returns the suspects of the host's last unattributed crash.
func (l *Layer) claim(t protocol.HostKey, h Host) (stale, todo []*Owner, suspects map[string]bool) {
	gen := h.Generation()
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.o.WrapHost != nil {
		h = l.o.WrapHost(h)
	}
	ts := l.tierLocked(t)
	if l.closed || gen < ts.hostGen {
		return nil, nil, nil // a newer incarnation replaced h; its HostReady activates
	}
	ts.hostGen = gen
	for id, o := range l.owners {
		if o.host == t && o.gen < gen && l.stateOf(o).Live() {
			// a restart the owner layer was not told about (a planned restart): replay
			stale = append(stale, o)
			delete(l.owners, id)
		}
	}
	for id, d := range l.desired {
		if hostFor(l.cfg, id) != t || l.lazy.isDeferred(id) {
			continue
		}
		if o := l.owners[id]; o != nil && (l.stateOf(o).Live() || o.sameIdentity(d)) {
			continue // live, or failed/faulted with these very bytes and config
		}
		ref, err := l.reg.BeginOwner(id, t)
		if err != nil {
			l.log.Warn("cannot begin owner", "plugin", id, "error", err)
			continue
		}
		o := newOwner(d, t, ref, h, ts.mounts)
		l.owners[id] = o
		todo = append(todo, o)
	}
	return stale, todo, maps.Clone(ts.suspects)
}

// activateSuspects activates the suspects of an unattributed crash one at a time, after the
// others, so a crash during one of their activations is blamed on exactly that one. A
// suspect cleared (active) or blamed (failed, faulted) is no longer one.
func (l *Layer) activateSuspects(ctx context.Context, t protocol.HostKey, suspects []*Owner) {
	slices.SortFunc(suspects, func(a, b *Owner) int { return strings.Compare(a.id, b.id) })
	for _, o := range suspects {
		l.activate(ctx, o)
		st := l.stateOf(o)
		if st == registry.Activating || st == registry.Revoked {
			return // the host died under it: the next incarnation goes on from here
		}
		l.mu.Lock()
		delete(l.tierLocked(t).suspects, o.id)
		l.mu.Unlock()
	}
}

// activate runs every entry of o's plugin under one owner. Any failure fails the owner
// (the host rolls its registrations back) and is recorded in the diagnostics ring.
func (l *Layer) activate(ctx context.Context, o *Owner) {
	start := time.Now()
	d := o.want
	fail := func(reason string) { l.activationFailed(o, reason) }
	if d.Config.Err != nil {
		fail(d.Config.Err.Error())
		return
	}
	// the whole closure, before every activation: replays and restarts load modules afresh
	// (ARCHITECTURE.md, “Plugins and trust”)
	if err := l.verifyDesired(d); err != nil {
		fail(err.Error())
		return
	}
	dataDir, err := l.ensureDataDir(d, o.host.Isolated())
	if err != nil {
		fail(fmt.Sprintf("create the data directory: %v", err))
		return
	}
	if err := checkStorage(l.dataPlace(d)); err != nil { // the quota of owner-local storage
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
			l.activationGone(o, err)
			return
		}
		if err != nil && ctx.Err() != nil {
			// the caller gave up (Reconcile's context, a tier stop): not the plugin's fault;
			// forget the owner so the next Reconcile activates it, and undo it in the host
			l.abandon(o)
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
	if err := l.reg.Activate(o.ref, o.host); err != nil {
		// revoked or the host went away while the activation ran: undo it in the host
		l.deactivate(o)
		return
	}
	o.activatedIn.Store(int64(time.Since(start)))
	l.persistClaims(o)
	l.persistCatalog(o)
	l.log.Info("plugin active", "plugin", o.id, "generation", o.ref.Generation, "host_generation", o.gen)
}

// activationGone handles an incarnation that ended under o's activation. hostExited blames
// the owner or forgets it for replay; if it already ran for this incarnation without seeing
// the owner, the owner is forgotten here so the next incarnation replays it.
func (l *Layer) activationGone(o *Owner, err error) {
	l.mu.Lock()
	if o.gen > l.peekLocked(o.host).exitedGen || l.stateOf(o) != registry.Activating {
		l.mu.Unlock()
		return
	}
	if l.owners[o.id] == o {
		delete(l.owners, o.id)
	}
	_ = l.reg.Revoke(o.ref, o.host, "host exited during activation")
	l.mu.Unlock()
	o.end(causeHostExited(err))
}

// activationFailed fails o with reason and records it, unless o already ended otherwise
// (blamed for a crash, or revoked meanwhile).
func (l *Layer) activationFailed(o *Owner, reason string) {
	first := l.reg.Fail(o.ref, o.host, reason) == nil
	o.end(causeActivationFailed(reason))
	if !first {
		return
	}
	l.diags.add(o.id, diagActivationFailed, reason)
	l.log.Warn("plugin activation failed", "plugin", o.id, "generation", o.ref.Generation, "reason", reason)
}

// revoke takes an owner back synchronously: its registrations are dropped at once, its calls
// in flight are cancelled (`$/cancel`; each resolves Cancelled("extension was revoked")
// within rpc.CancelGrace), then the host is asked to deactivate it within
// DeactivateDeadline. An answer other than {disposed: true, leaked: []} is a dirty
// teardown, reported to the supervisor.
func (l *Layer) revoke(o *Owner, reason string) {
	wasLive := l.reg.Revoke(o.ref, o.host, reason) == nil
	drained := o.end(causeRevoked)
	if !wasLive {
		return
	}
	// rpc resolves a cancelled call within its cancel grace; the bound here only keeps a
	// misbehaving host implementation from holding revocation
	select {
	case <-drained:
	case <-time.After(revokeDrainBound):
		l.log.Warn("calls still in flight after revocation", "plugin", o.id, "generation", o.ref.Generation)
	}
	l.deactivate(o)
}

// abandon forgets an owner whose activation was cancelled by its caller.
func (l *Layer) abandon(o *Owner) {
	_ = l.reg.Revoke(o.ref, o.host, "activation cancelled")
	l.mu.Lock()
	if l.owners[o.id] == o {
		delete(l.owners, o.id)
	}
	l.mu.Unlock()
	o.end(causeRevoked)
	l.log.Debug("activation abandoned", "plugin", o.id, "generation", o.ref.Generation)
	ctx, cancel := context.WithTimeout(context.Background(), DeactivateDeadline)
	defer cancel()
	_, _ = o.h.Call(ctx, protocol.MethodExtDeactivate, protocol.DeactivateParams{Owner: o.ref}, rpc.CallOpts{Timeout: DeactivateDeadline})
}

// deactivate sends ext/deactivate for o and reports a dirty teardown.
func (l *Layer) deactivate(o *Owner) {
	ctx, cancel := context.WithTimeout(context.Background(), DeactivateDeadline)
	defer cancel()
	msg, err := o.h.Call(ctx, protocol.MethodExtDeactivate, protocol.DeactivateParams{Owner: o.ref}, rpc.CallOpts{Timeout: DeactivateDeadline})
	if errors.Is(err, ErrNotAvailable) {
		// the host is gone (its owners with it), restarting, busy or unresponsive: the
		// heartbeat and the crash budget deal with it; it is not this plugin's teardown
		l.log.Debug("ext/deactivate not delivered", "plugin", o.id, "generation", o.ref.Generation, "error", err)
		return
	}
	var detail string
	switch res, ok := protocol.ValueOf[protocol.DeactivateResult](msg); {
	case err != nil:
		detail = "ext/deactivate: " + err.Error()
	case !ok:
		detail = "ext/deactivate: unexpected answer"
	case !res.Disposed || len(res.Leaked) > 0:
		detail = fmt.Sprintf("disposed %t, leaked [%s]", res.Disposed, strings.Join(res.Leaked, ", "))
	default:
		l.log.Debug("plugin deactivated", "plugin", o.id, "generation", o.ref.Generation)
		return
	}
	l.log.Warn("dirty teardown", "plugin", o.id, "generation", o.ref.Generation, "detail", detail)
	l.diags.add(o.id, diagDirty, detail)
	if t := l.tier(o.host); t != nil {
		t.ReportDirtyTeardown()
	}
}

// hostEnded drops the owners of an ended incarnation: the one it is blamed on is failed
// (not replayed); the others are forgotten so the next HostReady replays them with fresh
// generations. Calls in flight already failed HostExited in the rpc peer. A host killed for
// not answering blames the owner whose callback its watchdog named (ExitInfo.Busy), else its
// activating owner, for blocking it; any other end blames the activating owner for crashing
// it. The blame is logged and kept for `cwx host status` (TierStatus.LastBlame).
func (l *Layer) hostEnded(t protocol.HostKey, gen uint64, cause error, info supervisor.ExitInfo) {
	reason := cause.Error()
	l.mu.Lock()
	ts := l.tierLocked(t)
	ts.exitedGen = max(ts.exitedGen, gen)
	live := l.liveOnLocked(t, gen)
	blamed, crashed := l.blameLocked(ts, live, info, reason)
	switch {
	case blamed != nil:
		delete(ts.suspects, blamed.id)
		ts.lastBlame = blameLine(blamed.id, crashed)
	case t.Isolated() && !info.Planned:
		// a plugin's own host serves only it: its end is the plugin's, replayed within the
		// host's own crash budget
		ts.lastBlame = blameLine(t.Group, "its own host ended: "+reason)
	}
	for _, lo := range live {
		lo.o.end(causeHostExited(cause))
		if lo.o == blamed {
			_ = l.reg.Fail(lo.o.ref, t, crashed)
			continue
		}
		_ = l.reg.Revoke(lo.o.ref, t, "host exited: "+reason)
		delete(l.owners, lo.o.id)
	}
	suspects := len(ts.suspects)
	l.mu.Unlock()
	id := ""
	if blamed != nil {
		id = blamed.id
		l.diags.add(blamed.id, diagActivationFailed, crashed)
		l.log.Warn("host end blamed on a plugin", "host", t.String(), "host_generation", gen, "plugin", id, "reason", crashed)
	}
	l.log.Info("owners of an ended host dropped", "host", t.String(), "host_generation", gen, "blamed", id, "suspects", suspects)
}

// blameLine is how a blame reads in `cwx host status`.
func blameLine(id, reason string) string { return "plugin `" + id + "`: " + reason }

// liveOwner is an owner of an ended incarnation that was live, with its state then.
type liveOwner struct {
	o  *Owner
	st registry.State
}

// liveOnLocked returns the owners of host t's incarnations up to gen that are live.
//
// +checklocks:l.mu
func (l *Layer) liveOnLocked(t protocol.HostKey, gen uint64) []liveOwner {
	var live []liveOwner
	for _, o := range l.owners {
		if o.host != t || o.gen > gen {
			continue
		}
		if st := l.stateOf(o); st.Live() {
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
// +checklocks:l.mu
func (l *Layer) blameLocked(ts *tierState, live []liveOwner, info supervisor.ExitInfo, reason string) (*Owner, string) {
	if info.Hung && info.Busy != nil {
		for _, lo := range live {
			if lo.o.ref == *info.Busy {
				return lo.o, "a callback of the plugin did not return and blocked the host: " + reason
			}
		}
	}
	crashed := "host crashed during activation: " + reason
	if info.Hung {
		crashed = fmt.Sprintf("apply did not finish within %s and blocked the host", hostActivateMS*time.Millisecond)
	}
	var activating []*Owner
	for _, lo := range live {
		if lo.st == registry.Activating {
			activating = append(activating, lo.o)
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
func (l *Layer) forgetHeldBack() {
	l.mu.Lock()
	defer l.mu.Unlock()
	for id, o := range l.owners {
		if !l.stateOf(o).Live() {
			delete(l.owners, id)
		}
	}
}

// resettleBuiltin runs after a Reconcile's activations. A plugin activated in it may have
// registered, first, a name a module's work had given the module (a script named like the
// plugin's new tool); that module's owner then failed with the clash. For every builtin owner
// that is not live, the work is computed again, now seeing the plugin's names, and a module
// whose work changed is activated again with it, in the same Reconcile.
func (l *Layer) resettleBuiltin(ctx context.Context, cfg *config.Config) []error {
	if ctx.Err() != nil {
		return nil
	}
	l.mu.Lock()
	want := maps.Clone(l.desired)
	stuck := false
	for id := range want {
		if o := l.owners[id]; TierOf(id) == protocol.TierBuiltin && o != nil && !l.stateOf(o).Live() {
			stuck = true
		}
	}
	l.mu.Unlock()
	if !stuck {
		return nil
	}
	var redo []plugins.Desired
	for _, d := range l.builtinDesired(cfg, want) {
		if old, ok := want[d.ID]; ok && old.Config.Digest == d.Config.Digest {
			continue
		}
		redo = append(redo, d)
	}
	if len(redo) == 0 {
		return nil
	}
	l.mu.Lock()
	for _, d := range redo {
		l.desired[d.ID] = d
	}
	l.mu.Unlock()
	bk := protocol.SharedHost(protocol.TierBuiltin)
	h, err := l.ensureTier(ctx, bk)
	if err != nil {
		return []error{fmt.Errorf("start the builtin tier: %w", err)}
	}
	l.activateMissing(ctx, bk, h)
	return nil
}
