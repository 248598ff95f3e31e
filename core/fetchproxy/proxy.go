package fetchproxy

import (
	"context"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"
	"golang.org/x/time/rate"

	"github.com/cwx-dev/cwx/core/config"
	"github.com/cwx-dev/cwx/core/egress"
	"github.com/cwx-dev/cwx/core/errdefs"
	"github.com/cwx-dev/cwx/core/protocol"
)

// Limits of one plugin's use of the proxy.
const (
	// MaxOpen is how many exchanges one owner may have open at once.
	MaxOpen = 16
	// DefaultTimeout bounds an exchange made outside an invocation.
	DefaultTimeout = 60 * time.Second
	// MaxExchange bounds any exchange, an invocation's included.
	MaxExchange = 30 * time.Minute
	// Rate and Burst are the token bucket of requests made outside an invocation.
	Rate  = 10
	Burst = 20
	// MaxRequestID is the longest request_id accepted.
	MaxRequestID = 128
)

// Caller is who sends a net/* request, as the owner layer resolved it: the host
// incarnation, the owner (live on that host), a context that ends when the owner ends,
// and the plugin's grants.
type Caller struct {
	Host       protocol.HostKey
	Generation uint64
	Owner      protocol.OwnerRef
	Context    context.Context
	Grants     config.Grants
}

// Options configure a Proxy.
type Options struct {
	Logger hclog.Logger
	// Invocation ties a request carrying a ticket to its live invocation: it returns a
	// context derived from ctx that also ends with the invocation (its deadline included)
	// and its release. Its error refuses the request; one matching rpc.ErrViolation is
	// returned as it is (the host is ended). Nil refuses every ticket.
	Invocation func(ctx context.Context, c Caller, ticket string) (context.Context, func(), error)
	// Timeout bounds an exchange outside an invocation; 0 is DefaultTimeout.
	Timeout time.Duration
	// MaxRequestBytes and MaxResponseBytes cap the bodies; 0 is egress's default.
	MaxRequestBytes, MaxResponseBytes int64
	// Rate and Burst are the bucket outside an invocation; 0 is the package's.
	Rate  rate.Limit
	Burst int
	// RootCAs replaces the system's roots (tests).
	RootCAs *x509.CertPool
	// linger replaces pumpLinger (tests, which must not depend on a millisecond on a loaded
	// machine); 0 is pumpLinger.
	linger time.Duration
}

// Proxy serves the net/* requests of every host. It is safe for concurrent use; Close
// ends every exchange.
type Proxy struct {
	o   Options
	log hclog.Logger

	mu     sync.Mutex
	owners map[ownerKey]*ownerState // +checklocks:mu
	closed bool                     // +checklocks:mu
	// changed is closed (and replaced) whenever an exchange is admitted or a net/fetch
	// settles: a net/write that overtook its net/fetch waits on it.
	changed chan struct{} // +checklocks:mu
}

// ownerKey names one owner on one host incarnation.
type ownerKey struct {
	host  protocol.HostKey
	gen   uint64
	owner protocol.OwnerRef
}

// ownerState is one owner's client, bucket and open exchanges.
type ownerState struct {
	key     ownerKey
	cur     *grantClient // guarded by Proxy.mu; replaced when the grants change
	limiter *rate.Limiter
	unhook  func() bool
	open    map[string]*exchange // guarded by Proxy.mu
	// starting are the request_ids of the net/fetch requests being judged (guarded by
	// Proxy.mu).
	starting map[string]bool
}

// grantClient is the egress client made for one set of grants, with its policy; it never
// changes once made, so an exchange keeps the one it started with.
type grantClient struct {
	grants string // fingerprint of the grants
	client *egress.Client
	pol    *policy
}

// New returns a proxy.
func New(o Options) *Proxy {
	if o.Logger == nil {
		o.Logger = hclog.NewNullLogger()
	}
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	if o.Rate <= 0 {
		o.Rate = Rate
	}
	if o.Burst <= 0 {
		o.Burst = Burst
	}
	if o.linger <= 0 {
		o.linger = pumpLinger
	}
	return &Proxy{o: o, log: o.Logger, owners: map[ownerKey]*ownerState{}, changed: make(chan struct{})}
}

// OwnerOf is the owner a net/* request names, and whether msg is one.
func OwnerOf(msg *protocol.Message) (protocol.OwnerRef, bool) {
	switch p := msg.Value.(type) {
	case *protocol.NetFetchParams:
		return p.Owner, true
	case *protocol.NetWriteParams:
		return p.Owner, true
	case *protocol.NetReadParams:
		return p.Owner, true
	case *protocol.NetCloseParams:
		return p.Owner, true
	}
	return protocol.OwnerRef{}, false
}

// Serve answers one net/* request of c; ctx is the request's (it ends on $/cancel).
func (p *Proxy) Serve(ctx context.Context, c Caller, msg *protocol.Message) (any, error) {
	switch v := msg.Value.(type) {
	case *protocol.NetFetchParams:
		return p.fetch(ctx, c, v)
	case *protocol.NetWriteParams:
		return p.write(ctx, c, v)
	case *protocol.NetReadParams:
		return p.read(ctx, c, v)
	case *protocol.NetCloseParams:
		if ex := p.lookup(c, v.RequestID); ex != nil {
			ex.end(errClosed)
		}
		return protocol.Empty{}, nil
	}
	return nil, &protocol.RPCError{Code: protocol.CodeRefused, Message: fmt.Sprintf("%s is not a fetch proxy method", msg.Method)}
}

// HostEnded ends every exchange of incarnation gen of host k.
func (p *Proxy) HostEnded(k protocol.HostKey, gen uint64) {
	p.mu.Lock()
	var ended []*ownerState
	for key, st := range p.owners {
		if key.host == k && key.gen == gen {
			ended = append(ended, st)
		}
	}
	p.mu.Unlock()
	for _, st := range ended {
		p.dropOwner(st, errHostEnded)
	}
}

// Close ends every exchange and admits no more.
func (p *Proxy) Close() {
	p.mu.Lock()
	p.closed = true
	var all []*ownerState
	for _, st := range p.owners {
		all = append(all, st)
	}
	p.mu.Unlock()
	for _, st := range all {
		p.dropOwner(st, errProxyClosed)
	}
}

var (
	errClosed      = errdefs.New(errdefs.ErrCancelled, "the exchange was closed")
	errHostEnded   = errdefs.New(errdefs.ErrCancelled, "the host ended")
	errProxyClosed = errdefs.New(errdefs.ErrCancelled, "the core is closing")
	errOwnerEnded  = errdefs.New(errdefs.ErrCancelled, "the plugin's owner ended")
	errRequestGone = errdefs.New(errdefs.ErrCancelled, "the request was cancelled")
	errDefaultTime = errdefs.New(errdefs.ErrTimeout, "the fetch deadline outside a tool call passed")
)

// state returns c's owner state, made on demand, and the client for c's grants (remade
// when they changed: new requests use the new one, open ones finish on theirs).
func (p *Proxy) state(c Caller) (*ownerState, *grantClient, error) {
	key := ownerKey{host: c.Host, gen: c.Generation, owner: c.Owner}
	fp := fingerprint(c.Grants)
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return nil, nil, errProxyClosed
	}
	st := p.owners[key]
	if st != nil && st.cur.grants == fp {
		return st, st.cur, nil
	}
	pol := newPolicy(c.Owner.PluginID, c.Grants)
	gc := &grantClient{grants: fp, pol: pol, client: egress.New(egress.Policy{Allow: pol.allow, Private: pol.private, Header: pol.header,
		MaxRequestBytes: p.o.MaxRequestBytes, MaxResponseBytes: p.o.MaxResponseBytes, Timeout: MaxExchange, RootCAs: p.o.RootCAs})}
	if st != nil {
		st.cur.client.Close() // its idle connections; those in use finish
		st.cur = gc
		return st, gc, nil
	}
	st = &ownerState{key: key, cur: gc, limiter: rate.NewLimiter(p.o.Rate, p.o.Burst), open: map[string]*exchange{}, starting: map[string]bool{}}
	if c.Context != nil {
		st.unhook = context.AfterFunc(c.Context, func() { p.dropOwner(st, errOwnerEnded) })
	}
	p.owners[key] = st
	return st, gc, nil
}

// dropOwner forgets st and ends its exchanges, waiting for their pumps.
func (p *Proxy) dropOwner(st *ownerState, cause error) {
	p.mu.Lock()
	if p.owners[st.key] == st {
		delete(p.owners, st.key)
	}
	var open []*exchange
	for _, ex := range st.open {
		open = append(open, ex)
	}
	cur := st.cur
	p.mu.Unlock()
	if st.unhook != nil {
		st.unhook()
	}
	for _, ex := range open {
		ex.end(cause)
	}
	cur.client.Close()
}

// lookup is c's open exchange id, or nil.
func (p *Proxy) lookup(c Caller, id string) *exchange {
	p.mu.Lock()
	defer p.mu.Unlock()
	st := p.owners[ownerKey{host: c.Host, gen: c.Generation, owner: c.Owner}]
	if st == nil {
		return nil
	}
	return st.open[id]
}

// admit enters ex among st's open exchanges.
func (p *Proxy) admit(st *ownerState, ex *exchange) *protocol.RPCError {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch {
	case p.owners[st.key] != st:
		return refused(protocol.CodeCancelled, protocol.NetReasonCancelled, ex.origin, "fetch to %s cancelled: the plugin's owner ended", ex.origin)
	case st.open[ex.id] != nil:
		return refused(protocol.CodeRefused, protocol.NetReasonRequest, ex.origin, "fetch to %s refused: request_id %q is already open; use a new one per request", ex.origin, ex.id)
	case len(st.open) >= MaxOpen:
		return refused(protocol.CodeRefused, protocol.NetReasonRateLimit, ex.origin, "fetch to %s refused: the plugin already has %d requests open; close or finish one first", ex.origin, MaxOpen)
	}
	st.open[ex.id] = ex
	p.notifyLocked()
	ex.forget = func() {
		p.mu.Lock()
		defer p.mu.Unlock()
		if st.open[ex.id] == ex {
			delete(st.open, ex.id)
		}
	}
	return nil
}

// notifyLocked wakes what waits on p.changed.
//
// +checklocks:p.mu
func (p *Proxy) notifyLocked() {
	close(p.changed)
	p.changed = make(chan struct{})
}

// starting marks id's net/fetch as being judged until the returned func is called.
func (p *Proxy) starting(st *ownerState, id string) func() {
	p.mu.Lock()
	defer p.mu.Unlock()
	st.starting[id] = true
	return func() {
		p.mu.Lock()
		defer p.mu.Unlock()
		delete(st.starting, id)
		p.notifyLocked()
	}
}

// overtakeGrace is how long a net/write for an id no net/fetch has named yet waits for it:
// the host sends net/write while its net/fetch is pending, and the core may handle the two
// in either order.
const overtakeGrace = time.Second

// await is c's exchange id, waiting while its net/fetch is being judged (and up to
// overtakeGrace for one to start); nil when there is none.
func (p *Proxy) await(ctx context.Context, c Caller, id string) *exchange {
	key := ownerKey{host: c.Host, gen: c.Generation, owner: c.Owner}
	grace := time.NewTimer(overtakeGrace)
	defer grace.Stop()
	graceOver := false
	for {
		p.mu.Lock()
		var ex *exchange
		starting := false
		if st := p.owners[key]; st != nil {
			ex, starting = st.open[id], st.starting[id]
		}
		changed := p.changed
		p.mu.Unlock()
		switch {
		case ex != nil:
			return ex
		case graceOver && !starting:
			return nil
		}
		select {
		case <-changed:
		case <-grace.C:
			graceOver = true
		case <-ctx.Done():
			return nil
		}
	}
}

// unknown is the answer about an exchange that is not open.
func unknown(id string) error {
	return refused(protocol.CodeRefused, protocol.NetReasonUnknown, "", "no open fetch has request_id %q (it ended, or was never started)", id)
}

// refused is an RPCError with NetErrorData.
func refused(code int, reason, origin, format string, args ...any) *protocol.RPCError {
	data, _ := json.Marshal(protocol.NetErrorData{Reason: reason, Origin: origin}) // two strings: never fails
	return &protocol.RPCError{Code: code, Message: fmt.Sprintf(format, args...), Data: data}
}

// asRPC returns err as the *protocol.RPCError it is, or a network failure.
func asRPC(err error) *protocol.RPCError {
	var re *protocol.RPCError
	if errors.As(err, &re) {
		return re
	}
	return refused(protocol.CodeExecutionFailed, protocol.NetReasonNetwork, "", "fetch failed")
}
