package owners

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cwx-dev/cwx/core/config"
	"github.com/cwx-dev/cwx/core/plugins"
	"github.com/cwx-dev/cwx/core/protocol"
	"github.com/cwx-dev/cwx/core/registry"
	"github.com/cwx-dev/cwx/core/rpc"
)

// Deadlines of an activation and a teardown.
const (
	ActivateDeadline   = 6 * time.Second // the host's own bound is 5 s
	DeactivateDeadline = 2500 * time.Millisecond
	hostActivateMS     = 5000
)

// Host is one incarnation of a host as the layer uses it (*supervisor.Host).
type Host interface {
	Call(ctx context.Context, method string, params any, o rpc.CallOpts) (*protocol.Message, error)
	// Activate sends ext/activate, so that the supervisor can name the owner a crash
	// during it is blamed on.
	Activate(ctx context.Context, p protocol.ActivateParams, o rpc.CallOpts) (*protocol.Message, error)
	Generation() uint64
}

// TierOf is the tier that serves a plugin id: host:<module> owners are builtin. Which host
// of the tier serves it is config's (hostFor).
func TierOf(id string) protocol.Tier {
	if len(id) > len(registry.HostIDPrefix) && id[:len(registry.HostIDPrefix)] == registry.HostIDPrefix {
		return protocol.TierBuiltin
	}
	return protocol.TierPlugin
}

// hostFor is the host that serves plugin id under cfg: a builtin module's tier's, a plugin's
// own when config.toml isolates it (Config.Isolated), else the plugin tier's shared one.
func hostFor(cfg *config.Config, id string) protocol.HostKey {
	t := TierOf(id)
	if t == protocol.TierPlugin && cfg != nil && cfg.Isolated(id) {
		return protocol.HostKey{Tier: t, Group: id}
	}
	return protocol.SharedHost(t)
}

// grantsKey is plugin id's grants under cfg as one comparable string: a change asks for a
// new host (its sandbox binds them).
func grantsKey(cfg *config.Config, id string) string {
	if cfg == nil {
		return ""
	}
	g := cfg.Plugin(id).Grants
	return fmt.Sprintf("%q %q %t", g.Read, g.Network, g.ConfirmHookNetwork)
}

// Owner is one activation of one plugin as the layer runs it: the identity it was activated
// with (closure and config digest), its OwnerRef, the incarnation it lives in and its calls
// in flight. Its state (activating, active, failed, faulted, revoked) is the registry's, read
// by ref; the owner keeps no copy of it. The fields above mu never change after newOwner.
type Owner struct {
	id   string
	host protocol.HostKey // the host it lives in: its tier's shared one, or its own
	want plugins.Desired
	ref  protocol.OwnerRef
	h    Host
	gen  uint64 // host generation h serves
	// mounts are what the sandbox of its host shows it (runtime.Profile.Mounts); empty when
	// the host runs unsandboxed.
	mounts []string
	// activatedIn is how long the activation took (verification to live), once it is live.
	activatedIn atomic.Int64

	ctx    context.Context // ends when the owner ends; calls derive from it
	cancel context.CancelCauseFunc

	// mu guards the owner's admission of calls, the one count of its calls in flight that
	// revocation waits on (the rpc peer counts slots, per incarnation, for its own limit).
	mu       sync.Mutex
	ended    bool          // +checklocks:mu
	inflight int           // +checklocks:mu
	drained  chan struct{} // +checklocks:mu
}

func newOwner(d plugins.Desired, k protocol.HostKey, ref protocol.OwnerRef, h Host, mounts []string) *Owner {
	ctx, cancel := context.WithCancelCause(context.Background())
	return &Owner{id: d.ID, host: k, want: d, ref: ref, h: h, gen: h.Generation(), mounts: mounts,
		ctx: ctx, cancel: cancel}
}

// Ref is the owner's identity in the registry and on the wire.
func (o *Owner) Ref() protocol.OwnerRef { return o.ref }

// Generation is the host generation (incarnation) the owner lives in.
func (o *Owner) Generation() uint64 { return o.gen }

// Closure is the closure hash of the plugin build the owner runs (approval keys bind to it).
func (o *Owner) Closure() string { return o.want.Closure }

// Dev reports whether the owner runs a plugin trusted by a dev receipt (`cwx plugin dev`):
// its tools are asked every time (gate.Request.Dev).
func (o *Owner) Dev() bool {
	r := o.want.Record
	return r != nil && r.Trust != nil && r.Trust.IsDev()
}

// Context ends when the owner ends; its cause is an *EndCause.
func (o *Owner) Context() context.Context { return o.ctx }

// Send sends one request to the owner's incarnation, admitted unless the owner ended
// (ErrOwnerEnded, and the host saw nothing): counted in flight meanwhile, so revocation
// waits for it. It is the call path's one liveness check at send time: every path that
// ends an owner in the registry ends it here too. ctx should end with the owner (Bound).
func (o *Owner) Send(ctx context.Context, method string, params any, opts rpc.CallOpts) (*protocol.Message, error) {
	if !o.enter() {
		return nil, ErrOwnerEnded
	}
	defer o.leave()
	return o.h.Call(ctx, method, params, opts)
}

// Bound returns a context that ends with ctx or with the owner, whichever ends first,
// carrying that one's cause; stop releases it.
func (o *Owner) Bound(ctx context.Context) (context.Context, func()) { return EndsWith(ctx, o.ctx) }

// EndsWith returns a context that ends with ctx or with end, whichever ends first, carrying
// that one's cause (an owner's or an invocation's end names why a call was cut short); stop
// releases it.
func EndsWith(ctx, end context.Context) (context.Context, func()) {
	c, cancel := context.WithCancelCause(ctx)
	unhook := context.AfterFunc(end, func() { cancel(context.Cause(end)) })
	return c, func() { unhook(); cancel(nil) }
}

// sameIdentity reports whether d would be activated exactly like o was.
func (o *Owner) sameIdentity(d plugins.Desired) bool {
	return o.want.Closure == d.Closure && o.want.Config.Digest == d.Config.Digest
}

// end ends the owner with cause: no call is admitted from now on and the calls in flight
// are cancelled with cause (the first cause given wins). It returns a channel closed once
// no call is in flight, which revocation waits on.
func (o *Owner) end(cause error) <-chan struct{} {
	o.mu.Lock()
	o.ended = true
	drained := o.drainedLocked()
	o.mu.Unlock()
	o.cancel(cause)
	return drained
}

// enter admits a call unless the owner ended.
func (o *Owner) enter() bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.ended {
		return false
	}
	o.inflight++
	return true
}

// leave ends an admitted call.
func (o *Owner) leave() {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.inflight--
	if o.inflight == 0 && o.drained != nil {
		close(o.drained)
		o.drained = nil
	}
}

// inFlight counts the calls admitted and not yet left.
func (o *Owner) inFlight() int {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.inflight
}

// drainedLocked returns a channel closed once no call is in flight.
//
// +checklocks:o.mu
func (o *Owner) drainedLocked() <-chan struct{} {
	if o.inflight == 0 {
		ch := make(chan struct{})
		close(ch)
		return ch
	}
	if o.drained == nil {
		o.drained = make(chan struct{})
	}
	return o.drained
}
