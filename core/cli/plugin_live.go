package cli

import (
	"context"
	"errors"
	"io"
	"strings"
	"time"

	"github.com/cwx-dev/cwx/core"
	"github.com/cwx-dev/cwx/core/plugins"
)

// PluginLive is the `live` object of `cwx plugin show ID --json`: the plugin activated in
// this process, with the tools and commands it has live, or why it has none.
type PluginLive struct {
	// Started says whether this process started an extension host to activate the plugin.
	// A plugin that is disabled, not trusted or whose receipt no longer holds is not
	// started; State is then "not started" and Reason the plugin's status.
	Started bool `json:"started"`
	// State is the plugin's owner in this process: active, failed, faulted, revoked,
	// activating (still activating when the wait ended), not activated (the core did not
	// activate it; see Problems and Error) or not started.
	State string `json:"state"`
	// Tier is the trust tier the owner lived in ("plugin" for installed plugins).
	Tier string `json:"tier,omitempty"`
	// Host is the host the owner lived in: its tier for the tier's shared host,
	// "plugin:<id>" for a host of its own (isolation = "process").
	Host string `json:"host,omitempty"`
	// Generation is the owner's generation in this process (it differs between runs).
	Generation uint64 `json:"generation,omitempty"`
	// Reason is why the owner is not active (its activation failure, the refusal that
	// failed it, its fault), or the status that kept it from being started.
	Reason string `json:"reason,omitempty"`
	// Tools and Commands are what the plugin has live after activation.
	Tools    []ToolListItem    `json:"tools"`
	Commands []CommandListItem `json:"commands"`
	// Problems are the diagnostics recorded while activating it here (refused names with
	// their reasons, an activation failure, a fault, a receipt that no longer holds).
	Problems []PluginProblem `json:"problems"`
	// Error is why the extension hosts could not run the plugin at all (no usable
	// runtime, a refused config.toml), or "".
	Error string `json:"error,omitempty"`
	// ElapsedMS is how long activating the plugin and reading its state took (it differs
	// between runs).
	ElapsedMS int64 `json:"elapsed_ms"`
}

// PluginProblem is one diagnostic of a plugin's activation.
type PluginProblem struct {
	Kind    string `json:"kind"`    // activation_failed, faulted, refused, receipt, config, host_exited, dirty_teardown
	Message string `json:"message"` // escapes stripped
}

// Owner states as core.OwnerInfo reports them, and the two the CLI adds.
const (
	ownerActive       = "active"
	ownerActivating   = "activating"
	ownerNotActivated = "not activated"
	ownerNotStarted   = "not started"
)

// showLive activates plugin r in this process and reports what it has live; `cwx plugin
// show` prints it after the stored state. Tests replace it.
var showLive = livePlugin

// diagnosticsFlusher is implemented by core.Manager: it waits until the diagnostics queued
// so far are in state.json.
type diagnosticsFlusher interface {
	FlushDiagnostics(ctx context.Context) error
}

// ownerReporter is implemented by core.Manager: a plugin's owner in this process.
type ownerReporter interface {
	Owner(pluginID string) (core.OwnerInfo, bool)
}

// newLive returns a PluginLive with empty, non-nil lists.
func newLive(state string) PluginLive {
	return PluginLive{State: state, Tools: []ToolListItem{}, Commands: []CommandListItem{}, Problems: []PluginProblem{}}
}

// livePlugin starts the tier plugin r needs when r is enabled (status "enabled"), waits
// for r's owner only (bounded by liveWait; the other enabled plugins activate alongside
// and are cancelled once r settles), reports r's live names and problems, and shuts down.
func livePlugin(ctx context.Context, stderr io.Writer, s *plugins.Store, r *plugins.Record, status string) (live PluginLive, err error) {
	if !plugins.Runnable(status) {
		live = newLive(ownerNotStarted)
		live.Reason = status
		return live, nil
	}
	live = newLive(ownerNotActivated)
	live.Started = true
	start, clock := time.Now(), pluginEnv.now() // start filters the ring; clock times the work
	m, err := openForCommand(ctx, stderr, "")
	if err != nil {
		return live, err
	}
	defer func() { err = firstErr(err, closeCore(m)) }()

	rctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- m.Reconcile(rctx) }()
	rerr, joined := waitOwner(ctx, m, r.ID, done)
	if !joined {
		rerr, joined = settle(ctx, done)
	}
	cancel()
	if !joined {
		rerr = <-done
	}
	_, rerr = core.PluginErrors(rerr) // a plugin's failure is its owner's reason, printed once
	if rerr != nil && !errors.Is(rerr, context.Canceled) {
		live.Error = stripEscapes(advise(rerr))
	}
	fillLive(ctx, m, s, r.ID, start, &live)
	live.ElapsedMS = pluginEnv.now().Sub(clock).Milliseconds()
	return live, nil
}

// settleGrace is how long show lets the other plugins' activations finish once its own
// plugin settled: the host is started by the first activation round, and cancelling that
// round aborts the start (the supervisor kills the host) instead of shutting it down.
const settleGrace = time.Second

// settle waits up to settleGrace for reconcile to end.
func settle(ctx context.Context, done <-chan error) (rerr error, joined bool) {
	t := time.NewTimer(settleGrace)
	defer t.Stop()
	select {
	case err := <-done:
		return err, true
	case <-t.C:
	case <-ctx.Done():
	}
	return nil, false
}

// waitOwner polls until the owner of id is no longer activating, ctx ends or liveWait
// passes. When reconcile ends first (joined), it keeps waiting while the owner is still
// activating: a host that died under the activation fails it only once the supervisor
// reports the exit.
func waitOwner(ctx context.Context, m liveCore, id string, done <-chan error) (rerr error, joined bool) {
	tick := time.NewTicker(livePoll)
	defer tick.Stop()
	limit := time.NewTimer(liveWait)
	defer limit.Stop()
	for {
		info, ok := ownerOf(m, id)
		if ok && info.State != ownerActivating || !ok && joined {
			return rerr, joined
		}
		select {
		case rerr = <-done:
			joined, done = true, nil
		case <-tick.C:
		case <-limit.C:
			return rerr, joined
		case <-ctx.Done():
			return rerr, joined
		}
	}
}

// fillLive copies id's owner, live names and the problems recorded since start into live.
func fillLive(ctx context.Context, m liveCore, s *plugins.Store, id string, start time.Time, live *PluginLive) {
	if info, ok := ownerOf(m, id); ok {
		live.State, live.Tier, live.Generation, live.Reason = info.State, string(info.Tier), info.Generation, stripEscapes(info.Reason)
		live.Host = info.Host
	}
	for _, t := range markDev(m.Plugins(), toolItems(m.Tools())) {
		if t.Plugin == id {
			live.Tools = append(live.Tools, t)
		}
	}
	for _, c := range commandItems(m.Commands(), devPlugins(m.Plugins())) {
		if c.Plugin == id {
			live.Commands = append(live.Commands, c)
		}
	}
	live.Problems = problemsSince(ctx, m, s, id, start)
}

// problemsSince flushes m's diagnostics and returns id's entries recorded since start,
// `log` lines left out.
func problemsSince(ctx context.Context, m liveCore, s *plugins.Store, id string, start time.Time) []PluginProblem {
	if f, ok := m.(diagnosticsFlusher); ok {
		fctx, cancel := context.WithTimeout(ctx, closeWait)
		_ = f.FlushDiagnostics(fctx) // best effort: what is not flushed yet is not shown
		cancel()
	}
	out := []PluginProblem{}
	r, err := s.Get(id)
	if err != nil {
		return out
	}
	for _, d := range r.Diagnostics {
		if d.Kind != "log" && !d.Time.Before(start) {
			out = append(out, PluginProblem{Kind: d.Kind, Message: stripEscapes(adviseText(d.Message))})
		}
	}
	return out
}

// ownerOf reports id's owner in m (core.Manager reports it; a core that cannot has none).
func ownerOf(m liveCore, id string) (core.OwnerInfo, bool) {
	if o, ok := m.(ownerReporter); ok {
		return o.Owner(id)
	}
	return core.OwnerInfo{}, false
}

// writeLiveOnce prints the live part of `cwx plugin show`, leaving out what the diagnostics
// above it (ds) already said.
func writeLiveOnce(w io.Writer, id string, live PluginLive, ds *diagSet) {
	switch {
	case !live.Started:
		printf(w, "live     not started: %s%s\n", oneLine(live.Reason), nextStep(id, live.Reason))
	case live.Error != "" && live.State == ownerNotActivated:
		printf(w, "live     not running: %s\n", oneLine(live.Error))
	case live.State == ownerActive:
		where := "in this process"
		if strings.Contains(live.Host, ":") {
			where += ", in a host of its own"
		}
		printf(w, "live     active %s: %s, %s\n", where, plural(len(live.Tools), "tool"), plural(len(live.Commands), "command"))
	case live.State == ownerActivating:
		printf(w, "live     still activating after %s; show stopped waiting (see CWX_LOG=debug)\n", liveWait)
	case live.Reason != "" && !ds.fresh(live.Reason):
		printf(w, "live     %s in this process, nothing registered (the reason is above)\n", live.State)
	case live.Reason != "":
		printf(w, "live     %s in this process, nothing registered: %s\n", live.State, diagText(ds.text(live.Reason), "    "))
	default:
		printf(w, "live     %s in this process, nothing registered\n", live.State)
	}
	for _, t := range live.Tools {
		printf(w, "  tool     %s: %s\n", t.Name, cutCell(oneLine(t.Description), 72))
	}
	for _, c := range live.Commands {
		usage := "/" + c.Name
		if c.ArgumentHint != "" {
			usage += " " + oneLine(c.ArgumentHint)
		}
		printf(w, "  command  %s: %s\n", usage, cutCell(oneLine(c.Description), 72))
	}
	for _, p := range live.Problems {
		if ds.fresh(p.Message) {
			printf(w, "  %s: %s\n", p.Kind, diagText(ds.text(p.Message), "    "))
		}
	}
}

// nextStep says what makes a plugin that was not started runnable.
func nextStep(id, status string) string {
	switch status {
	case "disabled":
		return " (cwx plugin enable " + shellQuote(id) + ")"
	case "not trusted", "content changed, review again", "capabilities changed, review again":
		return " (cwx plugin review " + shellQuote(id) + ")"
	case "staged copy missing, reinstall":
		return " (cwx plugin install PATH|TARBALL)"
	}
	return ""
}
