package supervisor

import (
	"context"
	"errors"
	"fmt"

	"github.com/cwx-dev/cwx/core/bundle"
	"github.com/cwx-dev/cwx/core/protocol"
	"github.com/cwx-dev/cwx/core/rpc"
)

// errHandshakeTimeout is the cause of a handshake that missed its deadline.
var errHandshakeTimeout = errors.New("handshake deadline passed")

// handshake waits for host/hello, checks it, initializes and waits for host/ready, all
// within the handshake deadline.
func (t *TierRuntime) handshake(ctx context.Context, inc *incarnation) error {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	timer := t.o.Clock.AfterFunc(t.o.HandshakeTimeout, func() { cancel(errHandshakeTimeout) })
	defer timer.Stop()

	var hello *protocol.HelloParams
	select {
	case hello = <-inc.hello:
	case <-inc.peerDone:
		return t.endedDuring(inc, "before host/hello")
	case <-ctx.Done():
		return t.abandoned(ctx, "no host/hello")
	}
	if err := t.checkHello(hello, inc.helloSHA256()); err != nil {
		return err
	}
	limits := protocol.HostLimits{
		MaxFrame: protocol.MaxFrame, MaxInflight: protocol.MaxInflight,
		ActivateDeadlineMS: 5000, DisposeDeadlineMS: 2000,
	}
	if t.o.Debugged {
		limits.ActivateDeadlineMS = uint64(DebuggedDeadline.Milliseconds())
	}
	_, err := inc.peer.Call(ctx, protocol.MethodHostInitialize,
		protocol.InitializeParams{Protocol: protocol.Version, Limits: limits, FetchProxy: t.o.Sandbox != nil}, rpc.CallOpts{})
	switch {
	case err == nil:
	case errors.Is(err, rpc.ErrHostExited):
		return t.endedDuring(inc, "before answering host/initialize")
	case ctx.Err() != nil:
		return t.abandoned(ctx, "host/initialize unanswered")
	default:
		return fmt.Errorf("host/initialize failed: %w", err)
	}
	return t.awaitReady(ctx, inc)
}

// awaitReady waits for host/ready. The reader handles the host's notifications in frame
// order, so a host/ready that came before the end of the incarnation has been noted by the
// time the end is seen: then the handshake completed, and the end that followed it (a
// violating request right after host/ready) is an exit after ready, not a failed start,
// however the two were found.
func (t *TierRuntime) awaitReady(ctx context.Context, inc *incarnation) error {
	select {
	case <-inc.readyNote:
		return nil
	case <-inc.peerDone:
		select {
		case <-inc.readyNote:
			return nil
		default:
		}
		return t.endedDuring(inc, "before host/ready")
	case <-ctx.Done():
		return t.abandoned(ctx, "no host/ready")
	}
}

func (t *TierRuntime) abandoned(ctx context.Context, what string) error {
	if errors.Is(context.Cause(ctx), errHandshakeTimeout) {
		return fmt.Errorf("handshake timed out after %s: %s", t.o.HandshakeTimeout, what)
	}
	return fmt.Errorf("handshake abandoned (%s): %w", what, context.Cause(ctx))
}

// endedDuring describes an incarnation that ended inside the handshake.
func (t *TierRuntime) endedDuring(inc *incarnation, when string) error {
	return fmt.Errorf("extension host ended during the handshake (%s): %w", when, endCause(inc))
}

// checkHello applies the identity checks of core/protocol doc.go, “Handshake” in order; the first
// failure is the reason.
func (t *TierRuntime) checkHello(h *protocol.HelloParams, bundleSHA256 string) error {
	o := &t.o
	if h.Protocol.Min > protocol.Version || h.Protocol.Max < protocol.Version {
		return fmt.Errorf("host speaks protocol %d..=%d, core speaks %d", h.Protocol.Min, h.Protocol.Max, protocol.Version)
	}
	if string(h.Runtime.Name) != string(o.Runtime.Kind) {
		return fmt.Errorf("host reports runtime %q but %q was launched", h.Runtime.Name, o.Runtime.Kind)
	}
	if h.Tier != o.Tier {
		return fmt.Errorf("host reports tier %q but tier %q was launched", h.Tier, o.Tier)
	}
	got := make([]bundle.ModuleDigest, len(h.BuiltinModules))
	for i, m := range h.BuiltinModules {
		got[i] = bundle.ModuleDigest{ID: m.ID, SHA256: m.SHA256}
	}
	if err := bundle.CheckModules(o.BuiltinModules, got); err != nil {
		return fmt.Errorf("host's %w", err) // every missing, extra, changed and duplicated row
	}
	if h.Runtime.Version != o.Runtime.HelloVersion() {
		return fmt.Errorf("host reports %s version %q but %q was probed", o.Runtime.Kind, h.Runtime.Version, o.Runtime.HelloVersion())
	}
	if h.BundleSHA256 != bundleSHA256 {
		return fmt.Errorf("host reports bundle sha256 %s but the core materialized %s", h.BundleSHA256, bundleSHA256)
	}
	if h.MemoryLimitMiB != nil {
		return fmt.Errorf("host reports a memory limit of %d MiB but none was requested (Linux caps memory with RLIMIT_DATA)", *h.MemoryLimitMiB)
	}
	return nil
}

// hostHandler serves one incarnation's host-originated messages.
type hostHandler struct {
	t   *TierRuntime
	inc *incarnation
}

func (h *hostHandler) HandleNotification(m *protocol.Message) {
	inc := h.inc
	switch m.Method {
	case protocol.MethodHostHello:
		first := false
		inc.helloOnce.Do(func() { first = true; inc.hello <- m.Value.(*protocol.HelloParams) })
		if !first {
			inc.peer.Close(fmt.Errorf("%w: a second host/hello", rpc.ErrViolation))
		}
	case protocol.MethodHostReady:
		inc.readyOnce.Do(func() { close(inc.readyNote) })
	case protocol.MethodHostBusy:
		if p, ok := m.Value.(*protocol.BusyParams); ok {
			inc.noteBusy(p.Owner)
			if p.Owner != nil {
				h.t.o.Logger.Debug("host busy in a plugin's callback", "plugin", p.Owner.PluginID, "generation", inc.gen)
			}
		}
	case protocol.MethodLog:
		if o := h.t.o.Owners; o != nil {
			o.HandleNotification(h.t.o.Host(), inc.gen, m)
			return
		}
		if p, ok := m.Value.(*protocol.LogParams); ok {
			h.t.o.Logger.Named("host").Info(p.Msg, "level", p.Level, "plugin", p.PluginID, "generation", inc.gen)
		}
	default:
		if o := h.t.o.Owners; o != nil {
			o.HandleNotification(h.t.o.Host(), inc.gen, m)
		}
	}
}

func (h *hostHandler) HandleRequest(ctx context.Context, m *protocol.Message) (any, error) {
	if o := h.t.o.Owners; o != nil {
		res, err := o.HandleRequest(ctx, h.t.o.Host(), h.inc.gen, m)
		if errors.Is(err, rpc.ErrViolation) { // the owner layer found the request a violation
			h.inc.peer.Close(err)
		}
		return res, err
	}
	return nil, &protocol.RPCError{Code: protocol.CodeRefused, Message: m.Method + " is not available: no owner layer"}
}
