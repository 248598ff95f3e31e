package owners

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/cwx-dev/cwx/core/bundle"
	"github.com/cwx-dev/cwx/core/errdefs"
	"github.com/cwx-dev/cwx/core/protocol"
	"github.com/cwx-dev/cwx/core/registry"
	"github.com/cwx-dev/cwx/core/supervisor"
)

// OwnerInfo is what `cwx plugin show` reports about a plugin's owner in this process.
type OwnerInfo struct {
	PluginID string        `json:"plugin"`
	Tier     protocol.Tier `json:"tier"`
	// Host is the host it lives in: its tier ("plugin", "builtin") for the shared one,
	// "plugin:<id>" for a host of its own.
	Host       string `json:"host"`
	State      string `json:"state"` // activating, active, failed, faulted, revoked
	Generation uint64 `json:"generation"`
	// HostGeneration is the incarnation of the tier's host the owner lives in.
	HostGeneration uint64   `json:"host_generation"`
	Reason         string   `json:"reason,omitempty"` // why it failed, faulted or was revoked
	Tools          []string `json:"tools"`
	Commands       []string `json:"commands"`
	// Activation is how long its activation took (closure check to live); 0 until it is live.
	Activation time.Duration `json:"activation_ns,omitempty"`
	// InFlight counts its calls in flight now, the count revocation waits on.
	InFlight int `json:"in_flight,omitempty"`
}

// Owner reports the plugin's latest owner in this Manager (after Reconcile): its state,
// the reason when it is not active (activation failure, refused registration, fault), and
// the names it has live. The plugin's diagnostics ring (Plugins().Get) keeps the history.
func (l *Layer) Owner(pluginID string) (OwnerInfo, bool) {
	ro, ok := l.reg.Owner(pluginID)
	if !ok {
		return OwnerInfo{}, false
	}
	info := OwnerInfo{PluginID: pluginID, Tier: ro.Tier, Host: ro.Host.String(), State: ro.State.String(), Generation: ro.Ref.Generation,
		Reason: ro.Reason, Tools: []string{}, Commands: []string{}}
	l.mu.Lock()
	if o := l.owners[pluginID]; o != nil && o.ref == ro.Ref {
		info.HostGeneration = o.gen
		info.Activation = time.Duration(o.activatedIn.Load())
		info.InFlight = o.inFlight()
	}
	l.mu.Unlock()
	for _, t := range l.reg.Tools() {
		if t.Owner == ro.Ref {
			info.Tools = append(info.Tools, t.Name)
		}
	}
	for _, c := range l.reg.Commands() {
		if c.Owner == ro.Ref {
			info.Commands = append(info.Commands, c.Name)
		}
	}
	slices.Sort(info.Tools)
	slices.Sort(info.Commands)
	return info, true
}

// Owners reports the latest owner of every plugin this Manager activated, sorted by plugin
// id: its state, the reason when it is not active and how long its activation took.
func (l *Layer) Owners() []OwnerInfo {
	l.mu.Lock()
	ids := make([]string, 0, len(l.owners))
	for id := range l.owners {
		ids = append(ids, id)
	}
	l.mu.Unlock()
	slices.Sort(ids)
	out := make([]OwnerInfo, 0, len(ids))
	for _, id := range ids {
		if info, ok := l.Owner(id); ok {
			out = append(out, info)
		}
	}
	return out
}

// pluginFailures returns a *PluginError for every desired plugin whose latest owner failed
// or faulted, and for every plugin in unverified (id → why its bytes were refused).
func (l *Layer) pluginFailures(unverified map[string]string) []error {
	l.mu.Lock()
	ids := make([]string, 0, len(l.desired))
	for id := range l.desired {
		ids = append(ids, id)
	}
	l.mu.Unlock()
	for id := range unverified {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	var errs []error
	for _, id := range ids {
		if why, ok := unverified[id]; ok {
			errs = append(errs, &PluginError{Plugin: id, State: AbsentChanged, Reason: why, Kind: errdefs.ErrRefused})
			continue
		}
		ro, ok := l.reg.Owner(id)
		if !ok || (ro.State != registry.Failed && ro.State != registry.Faulted) {
			continue
		}
		kind := ErrExecutionFailed
		l.mu.Lock()
		if d, ok := l.desired[id]; ok && d.Config.Err != nil {
			kind = ErrInvalidInput
		}
		l.mu.Unlock()
		errs = append(errs, &PluginError{Plugin: id, State: ro.State.String(), Reason: ro.Reason, Kind: kind})
	}
	return errs
}

// Retry clears a Failed host's crash budget; its next need spawns it again (and replays
// the desired owners).
func (l *Layer) Retry(t protocol.HostKey) {
	if tr := l.tier(t); tr != nil {
		tr.Retry()
	}
}

// RetryTier is Retry for every host of tier t that was started.
func (l *Layer) RetryTier(t protocol.Tier) {
	for _, k := range l.hostKeys() {
		if k.Tier == t {
			l.Retry(k)
		}
	}
}

// HostOf is the host plugin id lives in under the configuration the last Reconcile read:
// its tier's shared host or, when config.toml isolates it, its own.
func (l *Layer) HostOf(id string) protocol.HostKey {
	l.mu.Lock()
	defer l.mu.Unlock()
	return hostFor(l.cfg, id)
}

// Host reports one host's incarnation: runtime pid, host generation and crash count.
func (l *Layer) Host(t protocol.HostKey) HostInfo {
	info := HostInfo{Tier: t.Tier, Group: t.Group, State: supervisor.StateIdle}
	if tr := l.tier(t); tr != nil {
		st := tr.Status()
		info.State, info.Generation, info.RuntimePID, info.Crashes = st.State, st.Generation, st.RuntimePID, st.Crashes
	}
	return info
}

// KillRuntime sends SIGKILL to the host's runtime process (a test hook for people: the
// repl's `/host kill`). The supervisor sees the crash and restarts within its budget.
func (l *Layer) KillRuntime(t protocol.HostKey) error {
	info := l.Host(t)
	if info.RuntimePID <= 0 {
		return fmt.Errorf("%w: %s has no ready runtime (it is %s)", ErrNotAvailable, t.Describe(), info.State)
	}
	if err := syscall.Kill(info.RuntimePID, syscall.SIGKILL); err != nil {
		return fmt.Errorf("kill the runtime of %s (pid %d): %w", t.Describe(), info.RuntimePID, err)
	}
	return nil
}

// hostKeys lists the hosts that were started, in hostOrder.
func (l *Layer) hostKeys() []protocol.HostKey {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.SortedFunc(maps.Keys(l.tiers), hostOrder)
}

// Status reports every host: both tiers' shared hosts, and the own host of every plugin
// that has one or is configured to (a host never started is "idle"), in hostOrder, each
// with the desired plugins it serves.
func (l *Layer) Status() []TierStatus {
	l.mu.Lock()
	serves := map[protocol.HostKey][]string{protocol.SharedHost(protocol.TierPlugin): nil, protocol.SharedHost(protocol.TierBuiltin): nil}
	for k, ts := range l.tiers {
		if ts.rt != nil {
			serves[k] = nil
		}
	}
	for id := range l.desired {
		k := hostFor(l.cfg, id)
		serves[k] = append(serves[k], id)
	}
	l.mu.Unlock()
	var out []TierStatus
	for _, k := range slices.SortedFunc(maps.Keys(serves), hostOrder) {
		st := supervisor.TierStatus{Tier: k.Tier, Group: k.Group, State: supervisor.StateIdle}
		if tr := l.tier(k); tr != nil {
			st = tr.Status()
		}
		l.mu.Lock()
		peek := l.peekLocked(k)
		l.mu.Unlock()
		note := BuiltinSandboxNote
		if k.Tier == protocol.TierPlugin {
			note = l.SandboxStatus().Note
			if k.Isolated() && l.SandboxStatus().Active {
				note += "; its own host: only this plugin's files"
			}
		}
		slices.Sort(serves[k])
		out = append(out, TierStatus{TierStatus: st, Owners: l.reg.ActiveOwners(k), Plugins: serves[k], Sandbox: note,
			LastBlame: peek.lastBlame, Suspects: slices.Sorted(maps.Keys(peek.suspects))})
	}
	return out
}

// BuiltinModules lists every pinned builtin module: its digest, whether it had work at this
// Manager's last Reconcile, its owner's state and live tools, why it has no live owner (its
// file differs from the pin, or the owner's failure, fault or revocation), and what was refused.
func (l *Layer) BuiltinModules() []BuiltinModuleInfo {
	l.builtin.mu.Lock()
	last := l.builtin.last
	l.builtin.mu.Unlock()
	var out []BuiltinModuleInfo
	for _, pin := range bundle.Pinned() {
		owner := registry.HostIDPrefix + pin.ID
		row := last[pin.ID]
		info := BuiltinModuleInfo{ID: pin.ID, Owner: owner, SHA256: pin.SHA256, Needed: row.needed, State: "idle",
			Problem: row.failed, Notes: slices.Clone(row.notes)}
		if o, ok := l.reg.Owner(owner); ok && row.needed {
			info.State, info.Tools = o.State.String(), o.Tools
			if !o.State.Live() && info.Problem == "" {
				info.Problem = o.Reason
			}
		}
		out = append(out, info)
	}
	return out
}

// DownHolder is one plugin whose hooks cannot be asked: its state and what to do.
type DownHolder struct {
	PluginID string
	// State says why it is not live: "activating", "failed: <reason>", "the plugin tier is
	// restarting", "the plugin tier failed (its crash budget is spent): <reason>", ...
	State string
	// Next is the command that lets calls run again.
	Next string
}

// DownHolders names every enabled, trusted plugin of the plugin tier that holds a
// pre-execute hook (its catalog entry for its current bytes and config lists one, written at
// its last successful activation, in this process or an earlier one, or it was Active with
// one under these bytes and config in this process) and has no Active owner, sorted by id.
// The builtin hooks module is not one of them: a command hook that cannot run blocks the
// calls it matches by itself.
func (l *Layer) DownHolders() []DownHolder {
	type down struct {
		id       string
		host     protocol.HostKey
		o        *Owner
		deferred bool
	}
	var downs []down
	l.mu.Lock()
	l.lazy.mu.Lock()
	for id, d := range l.desired {
		if TierOf(id) != protocol.TierPlugin || !l.lazy.holdsHookLocked(d) {
			continue
		}
		downs = append(downs, down{id: id, host: hostFor(l.cfg, id), o: l.owners[id], deferred: l.lazy.deferred[id]})
	}
	l.lazy.mu.Unlock()
	l.mu.Unlock()
	// the registry is read with no lock of the layer's held
	downs = slices.DeleteFunc(downs, func(d down) bool { return d.o != nil && l.stateOf(d.o) == registry.Active })
	if len(downs) == 0 {
		return nil
	}
	slices.SortFunc(downs, func(a, b down) int { return strings.Compare(a.id, b.id) })
	hostState := func(k protocol.HostKey) string {
		tr := l.tier(k)
		if tr == nil {
			return ""
		}
		st := tr.Status()
		s := string(st.State)
		if st.State == supervisor.StateFailed {
			s = "failed (its crash budget is spent)"
			if st.LastFailure != "" {
				s += ": " + oneLine(st.LastFailure)
			}
		}
		return s
	}
	var out []DownHolder
	for _, d := range downs {
		tierState := hostState(d.host)
		subject := "the plugin tier"
		if d.host.Isolated() {
			subject = "its own host"
		}
		h := DownHolder{PluginID: d.id, Next: fmt.Sprintf("run `cwx plugin disable %s` to go on without its hooks", d.id)}
		ro, ok := l.reg.Owner(d.id)
		switch {
		case d.o != nil && ok && ro.Ref == d.o.ref && (ro.State == registry.Failed || ro.State == registry.Faulted):
			h.State = ro.State.String()
			if ro.Reason != "" {
				h.State += ": " + oneLine(ro.Reason)
			}
			h.Next = fmt.Sprintf("fix it and run `cwx plugin reload`, or run `cwx plugin disable %s` to go on without its hooks", d.id)
		case d.o != nil:
			h.State = l.stateOf(d.o).String()
		case d.deferred:
			h.State = "not activated yet"
		case tierState == "":
			h.State = "its tier is not started"
		default:
			h.State = subject + " is " + tierState
			if strings.HasPrefix(tierState, "failed") {
				h.Next = fmt.Sprintf("fix or disable the plugin that crashes the host and start cwx again (`/host retry` in the repl), or run `cwx plugin disable %s` to go on without its hooks", d.id)
			}
		}
		out = append(out, h)
	}
	return out
}

// oneLine keeps the first line of s.
func oneLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return strings.TrimSpace(s)
}
