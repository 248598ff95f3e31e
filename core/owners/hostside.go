package owners

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/cwx-dev/cwx/core/internal/lazyre"
	"github.com/cwx-dev/cwx/core/protocol"
	"github.com/cwx-dev/cwx/core/registry"
	"github.com/cwx-dev/cwx/core/supervisor"
)

var _ supervisor.Owners = (*Layer)(nil)

// HostReady replays every desired owner of the host on the new incarnation, each under a
// fresh generation and token, in parallel.
func (l *Layer) HostReady(ctx context.Context, t protocol.HostKey, gen uint64, h *supervisor.Host) error {
	l.Ready(ctx, t, h)
	return nil
}

// Ready activates, on incarnation h of host t, every desired plugin of the host that has no
// owner there (HostReady for any Host).
func (l *Layer) Ready(ctx context.Context, t protocol.HostKey, h Host) { l.activateMissing(ctx, t, h) }

// HostExited drops the incarnation's owners; the sole owner that was activating is failed.
func (l *Layer) HostExited(t protocol.HostKey, gen uint64, info supervisor.ExitInfo) {
	cause := info.Reason
	if cause == nil {
		cause = errHostExitedUnsaid
	}
	if l.o.Requests != nil {
		l.o.Requests.HostEnded(t, gen)
	}
	l.fetch.HostEnded(t, gen)
	l.hostEnded(t, gen, cause, info)
}

// HandleRequest answers what a host asks of the core.
func (l *Layer) HandleRequest(ctx context.Context, t protocol.HostKey, gen uint64, msg *protocol.Message) (any, error) {
	switch p := msg.Value.(type) {
	case *protocol.RegisterParams:
		if !l.ownerOnHost(p.Owner, t, gen) {
			return registry.Result(0, &registry.Refusal{Kind: string(p.Kind), Name: p.Spec.Name, Cause: registry.ErrStaleOwner,
				Reason: fmt.Sprintf("%s: owner %s generation %d is not live on this host", registry.ErrStaleOwner, p.Owner.PluginID, p.Owner.Generation)}), nil
		}
		if why := l.hookNetwork(p); why != "" {
			l.diags.add(p.Owner.PluginID, diagRefused, why)
			return registry.Result(0, &registry.Refusal{Kind: string(p.Kind), Name: p.Spec.Name, Cause: registry.ErrRefused, Reason: why}), nil
		}
		handle, evicted, err := l.reg.Admit(t, p)
		if evicted != nil {
			l.evicted(evicted)
		}
		if err != nil {
			var r *registry.Refusal
			if errors.As(err, &r) && !errors.Is(err, registry.ErrStaleOwner) {
				l.diags.add(p.Owner.PluginID, diagRefused, err.Error())
			}
			l.log.Info("registration refused", "plugin", p.Owner.PluginID, "kind", p.Kind, "name", p.Spec.Name, "reason", err)
		}
		return registry.Result(handle, err), nil
	case *protocol.UnregisterParams:
		if l.ownerOnHost(p.Owner, t, gen) {
			l.reg.Unregister(t, p)
		}
		return protocol.Empty{}, nil
	case *protocol.NetFetchParams, *protocol.NetWriteParams, *protocol.NetReadParams, *protocol.NetCloseParams:
		return l.serveFetch(ctx, t, gen, msg)
	case *protocol.CoreCallParams, *protocol.UserAskParams:
		if l.o.Requests != nil {
			return l.o.Requests.HandleRequest(ctx, t, gen, msg)
		}
	}
	return nil, &protocol.RPCError{Code: protocol.CodeRefused, Message: fmt.Sprintf("%s is not supported by this core", msg.Method)}
}

// hookNetwork refuses a pre-execute hook of a plugin granted network origins unless
// config.toml confirms it: a hook sees every gated call's full input, and with network it
// could send it away (ARCHITECTURE.md, “Grants”).
func (l *Layer) hookNetwork(p *protocol.RegisterParams) string {
	if p.Kind != protocol.KindHook {
		return ""
	}
	l.mu.Lock()
	g := l.cfg.Plugin(p.Owner.PluginID).Grants
	l.mu.Unlock()
	if len(g.Network) == 0 || g.ConfirmHookNetwork {
		return ""
	}
	return fmt.Sprintf("a pre-execute hook sees every tool call's arguments, and this plugin may send data to %s; "+
		"set confirm_hook_network = true under [plugins.%q] in config.toml to allow both", strings.Join(g.Network, ", "), p.Owner.PluginID)
}

// ownerOnHost reports whether ref names the latest owner of its plugin and that owner lives
// in incarnation gen of host k: a callback from an older incarnation never reaches a newer
// owner, nor one from another host an owner it does not hold.
func (l *Layer) ownerOnHost(ref protocol.OwnerRef, k protocol.HostKey, gen uint64) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	o := l.owners[ref.PluginID]
	return o != nil && o.ref == ref && o.host == k && o.gen == gen
}

// HandleNotification takes log and ext/faulted. It never blocks: diagnostics are written
// by their own goroutine.
func (l *Layer) HandleNotification(t protocol.HostKey, gen uint64, msg *protocol.Message) {
	switch p := msg.Value.(type) {
	case *protocol.LogParams:
		l.hostLog(t, gen, p)
	case *protocol.FaultedParams:
		l.faulted(t, gen, p)
	}
}

// faulted marks the owner Faulted: registrations dropped, calls failed NotAvailable, not
// replayed until its identity changes or a reload. The host disposes the owner itself. The
// blame is recorded before the registry says Faulted, so whoever sees the state also finds the
// blame in the tier's status; it is taken back if the registry refuses the fault.
func (l *Layer) faulted(t protocol.HostKey, gen uint64, p *protocol.FaultedParams) {
	if !l.ownerOnHost(p.Owner, t, gen) {
		return
	}
	line := blameLine(p.Owner.PluginID, "faulted: "+p.Error)
	l.mu.Lock()
	ts := l.tierLocked(t)
	prev := ts.lastBlame
	ts.lastBlame = line
	l.mu.Unlock()
	if err := l.reg.Fault(p.Owner, t, p.Error); err != nil {
		l.mu.Lock()
		if ts.lastBlame == line {
			ts.lastBlame = prev
		}
		l.mu.Unlock()
		return
	}
	l.mu.Lock()
	o := l.owners[p.Owner.PluginID]
	l.mu.Unlock()
	if o != nil && o.ref == p.Owner { // the registry took it from live to Faulted just now
		o.end(causeFaulted(p.Error))
	}
	l.diags.add(p.Owner.PluginID, diagFaulted, p.Error)
	l.log.Warn("plugin faulted", "plugin", p.Owner.PluginID, "generation", p.Owner.Generation, "error", p.Error)
}

// hostFrame is a stack frame of the host's own code or the runtime's internals: a plugin's
// author has nothing to do with it, so its log lines leave it out.
var hostFrame = lazyre.New(`(?m)^[ \t]+at [^\n]*(?:/cwx-extension-host\.mjs:\d|\(node:internal/|node:internal/|\(native\))[^\n]*\n?`)

// stripHostFrames removes the host's and the runtime's own frames from a logged stack.
func stripHostFrames(msg string) string {
	if !strings.Contains(msg, "\n") {
		return msg
	}
	return strings.TrimRight(hostFrame().ReplaceAllString(msg, ""), "\n")
}

// thrownWhileActivating reports whether p is an error line with a stack from a plugin that is
// activating: the host logging an error its apply threw, before the activation fails with it.
func (l *Layer) thrownWhileActivating(p *protocol.LogParams) bool {
	if p.Level != "error" || p.PluginID == "" || !strings.Contains(p.Msg, "\n    at ") {
		return false
	}
	ro, ok := l.reg.Owner(p.PluginID)
	return ok && ro.State == registry.Activating
}

// hostLog passes a host's log line to hclog and the plugin's diagnostics ring, rate-limited
// per plugin.
func (l *Layer) hostLog(t protocol.HostKey, gen uint64, p *protocol.LogParams) {
	key := p.PluginID
	if key == "" {
		key = "host:" + t.String()
	}
	ok, dropped := l.logs.allow(key)
	if !ok {
		return
	}
	msg := stripHostFrames(p.Msg)
	if dropped > 0 {
		msg = fmt.Sprintf("%s (%d earlier lines dropped by the rate limit)", msg, dropped)
	}
	args := []any{"host", t.String(), "host_generation", gen, "plugin", p.PluginID}
	if l.thrownWhileActivating(p) {
		// the host's own report of what the plugin threw while activating: the activation's
		// failure says it once, in the author's terms (file:line:col), so it is a core debug
		// line, not one of the plugin's ("host: " lines are the plugin's log file's)
		l.log.Debug("activation threw: "+msg, args...)
		return
	}
	switch p.Level {
	case "error":
		l.log.Error("host: "+msg, args...)
	case "warn":
		l.log.Warn("host: "+msg, args...)
	case "debug", "trace":
		l.log.Debug("host: "+msg, args...)
	default:
		l.log.Info("host: "+msg, args...)
	}
	if p.PluginID != "" {
		l.diags.add(p.PluginID, diagLog, p.Level+": "+msg)
	}
}
