package core

import (
	"context"
	"errors"
	"fmt"

	"github.com/cwx-dev/cwx/core/protocol"
	"github.com/cwx-dev/cwx/core/registry"
	"github.com/cwx-dev/cwx/core/supervisor"
	"github.com/cwx-dev/cwx/core/tickets"
)

// ownerLayer is the Manager as the supervisor's owner layer (supervisor.Owners).
type ownerLayer struct{ m *Manager }

var _ supervisor.Owners = ownerLayer{}

// HostReady replays every desired owner of the tier on the new incarnation, each under a
// fresh generation and token, in parallel.
func (l ownerLayer) HostReady(ctx context.Context, t protocol.Tier, gen uint64, h *supervisor.Host) error {
	l.m.activateMissing(ctx, t, h)
	return nil
}

// HostExited drops the incarnation's owners; the sole owner that was activating is failed.
func (l ownerLayer) HostExited(t protocol.Tier, gen uint64, info supervisor.ExitInfo) {
	cause := info.Reason
	if cause == nil {
		cause = errHostExitedUnsaid
	}
	l.m.cc.tickets().RevokeHost(tickets.Host{Tier: t, Generation: gen})
	l.m.hostEnded(t, gen, cause, info)
}

// HandleRequest answers what a host asks of the core.
func (l ownerLayer) HandleRequest(ctx context.Context, t protocol.Tier, gen uint64, msg *protocol.Message) (any, error) {
	m := l.m
	switch p := msg.Value.(type) {
	case *protocol.RegisterParams:
		if !m.ownerOnHost(p.Owner, gen) {
			return registry.Result(0, &registry.Refusal{Kind: string(p.Kind), Name: p.Spec.Name, Cause: registry.ErrStaleOwner,
				Reason: fmt.Sprintf("%s: owner %s generation %d is not live on this host", registry.ErrStaleOwner, p.Owner.PluginID, p.Owner.Generation)}), nil
		}
		handle, evicted, err := m.reg.Admit(t, p)
		if evicted != nil {
			m.evicted(evicted)
		}
		if err != nil {
			var r *registry.Refusal
			if errors.As(err, &r) && !errors.Is(err, registry.ErrStaleOwner) {
				m.diags.add(p.Owner.PluginID, diagRefused, err.Error())
			}
			m.log.Info("registration refused", "plugin", p.Owner.PluginID, "kind", p.Kind, "name", p.Spec.Name, "reason", err)
		}
		return registry.Result(handle, err), nil
	case *protocol.UnregisterParams:
		if m.ownerOnHost(p.Owner, gen) {
			m.reg.Unregister(t, p)
		}
		return protocol.Empty{}, nil
	case *protocol.CoreCallParams:
		return m.serveCoreCall(ctx, t, gen, p)
	case *protocol.UserAskParams:
		return m.serveUserAsk(ctx, t, gen, p)
	}
	return nil, &protocol.RPCError{Code: protocol.CodeRefused, Message: fmt.Sprintf("%s is not supported by this core", msg.Method)}
}

// ownerOnHost reports whether ref names the latest owner of its plugin and that owner lives
// in incarnation gen: a callback from an older incarnation never reaches a newer owner.
func (m *Manager) ownerOnHost(ref protocol.OwnerRef, gen uint64) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	o := m.owners[ref.PluginID]
	return o != nil && o.ref == ref && o.gen == gen
}

// HandleNotification takes log and ext/faulted. It never blocks: diagnostics are written
// by their own goroutine.
func (l ownerLayer) HandleNotification(t protocol.Tier, gen uint64, msg *protocol.Message) {
	switch p := msg.Value.(type) {
	case *protocol.LogParams:
		l.m.hostLog(t, gen, p)
	case *protocol.FaultedParams:
		l.m.faulted(t, gen, p)
	}
}

// faulted marks the owner Faulted: registrations dropped, calls failed NotAvailable, not
// replayed until its identity changes or a reload. The host disposes the owner itself.
func (m *Manager) faulted(t protocol.Tier, gen uint64, p *protocol.FaultedParams) {
	if !m.ownerOnHost(p.Owner, gen) {
		return
	}
	if err := m.reg.Fault(p.Owner, t, p.Error); err != nil {
		return
	}
	m.mu.Lock()
	o := m.owners[p.Owner.PluginID]
	m.mu.Unlock()
	if o != nil && o.ref == p.Owner { // the registry took it from live to Faulted just now
		o.end(causeFaulted(p.Error))
	}
	m.mu.Lock()
	m.tierLocked(t).lastBlame = blameLine(p.Owner.PluginID, "faulted: "+p.Error)
	m.mu.Unlock()
	m.diags.add(p.Owner.PluginID, diagFaulted, p.Error)
	m.log.Warn("plugin faulted", "plugin", p.Owner.PluginID, "generation", p.Owner.Generation, "error", p.Error)
}

// hostLog passes a host's log line to hclog and the plugin's diagnostics ring, rate-limited
// per plugin.
func (m *Manager) hostLog(t protocol.Tier, gen uint64, p *protocol.LogParams) {
	key := p.PluginID
	if key == "" {
		key = "host:" + string(t)
	}
	ok, dropped := m.logs.allow(key)
	if !ok {
		return
	}
	msg := p.Msg
	if dropped > 0 {
		msg = fmt.Sprintf("%s (%d earlier lines dropped by the rate limit)", msg, dropped)
	}
	args := []any{"tier", t, "host_generation", gen, "plugin", p.PluginID}
	switch p.Level {
	case "error":
		m.log.Error("host: "+msg, args...)
	case "warn":
		m.log.Warn("host: "+msg, args...)
	case "debug", "trace":
		m.log.Debug("host: "+msg, args...)
	default:
		m.log.Info("host: "+msg, args...)
	}
	if p.PluginID != "" {
		m.diags.add(p.PluginID, diagLog, p.Level+": "+msg)
	}
}
