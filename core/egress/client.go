package egress

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/textproto"
	"net/url"
	"strings"
	"syscall"
	"time"

	"github.com/cwx-dev/cwx/core/errdefs"
)

// Defaults for a zero field of [Policy].
const (
	DefaultMaxResponseBytes = 64 << 20
	DefaultMaxRequestBytes  = 16 << 20
	DefaultTimeout          = 60 * time.Second
	DefaultMaxRedirects     = 5
	maxHeaderBytes          = 64 << 10
)

// The refusals. Each is a case of errdefs.ErrRefused, and arrives inside a *RefusedError
// naming the origin (and, for an address, what was dialed).
var (
	ErrPrivateAddress = errdefs.New(errdefs.ErrRefused, "the address is private, loopback, link-local, multicast or broadcast")
	ErrRedirect       = errdefs.New(errdefs.ErrRefused, "the redirect is not allowed")
	ErrDowngrade      = errdefs.New(errdefs.ErrRefused, "a redirect from https to http")
	ErrNotAllowed     = errdefs.New(errdefs.ErrRefused, "the origin is not allowed")
	ErrRequest        = errdefs.New(errdefs.ErrRefused, "the request is not allowed")
)

// ErrTooLarge is a response (or request) body over its cap; a case of errdefs.ErrTooLarge.
var ErrTooLarge = errdefs.New(errdefs.ErrTooLarge, "body over the size cap")

// ErrTimeout is the exchange's deadline passing; a case of errdefs.ErrTimeout.
var ErrTimeout = errdefs.New(errdefs.ErrTimeout, "the request's deadline passed")

// RefusedError is a refusal of one hop: its origin and why.
type RefusedError struct {
	Origin string // the canonical origin of the hop refused
	Detail string // e.g. the address dialed, or the redirect's target
	Err    error  // one of the Err… sentinels above, or the policy's own error
}

func (e *RefusedError) Error() string {
	s := "egress to " + e.Origin + " refused: " + e.Err.Error()
	if e.Detail != "" {
		s += " (" + e.Detail + ")"
	}
	return s
}

func (e *RefusedError) Unwrap() error { return e.Err }

// Policy decides what a [Client] may reach. Its functions are called for every hop: the
// first request and each redirect the client follows.
type Policy struct {
	// Allow judges a hop to origin to; from is the origin that redirected there, the zero
	// Origin for the first request. A nil Allow allows every origin. Its error is returned
	// inside a *RefusedError.
	Allow func(from, to Origin) error
	// Private reports whether origin o may reach the private ranges (see [IsPrivate]). A nil
	// Private lets no origin reach them. The check is made on the address actually dialed,
	// after resolution, so a name that resolves to a private address is caught too.
	Private func(o Origin) bool
	// Header returns headers added to a hop to o, for that exact origin only. The request's
	// own headers are sent only to hops of the first request's origin.
	Header func(o Origin) http.Header
	// MaxResponseBytes caps each response body; reading past it fails with ErrTooLarge.
	MaxResponseBytes int64
	// MaxRequestBytes caps a request body.
	MaxRequestBytes int64
	// Timeout bounds the whole exchange, redirects and the body read included; negative
	// sets no such bound (a stream that lives as long as its request's context), leaving
	// HeaderTimeout and the dial's.
	Timeout time.Duration
	// HeaderTimeout bounds the wait for each response's headers; 0 is Timeout (or
	// DefaultTimeout when Timeout is negative).
	HeaderTimeout time.Duration
	// MaxRedirects is how many redirects are followed; negative follows none.
	MaxRedirects int
	// RootCAs, when set, replaces the system's roots (an intranet's own authority).
	RootCAs *x509.CertPool
}

// Client sends requests under one Policy. It is safe for concurrent use; Close releases
// its idle connections.
type Client struct {
	p  Policy
	hc *http.Client
	tr *http.Transport
}

type hopKey struct{}

// New returns a client for p, its zero fields set to the defaults.
func New(p Policy) *Client {
	if p.MaxResponseBytes <= 0 {
		p.MaxResponseBytes = DefaultMaxResponseBytes
	}
	if p.MaxRequestBytes <= 0 {
		p.MaxRequestBytes = DefaultMaxRequestBytes
	}
	if p.Timeout == 0 {
		p.Timeout = DefaultTimeout
	}
	if p.HeaderTimeout <= 0 {
		p.HeaderTimeout = max(p.Timeout, 0)
		if p.HeaderTimeout == 0 {
			p.HeaderTimeout = DefaultTimeout
		}
	}
	if p.MaxRedirects == 0 {
		p.MaxRedirects = DefaultMaxRedirects
	}
	c := &Client{p: p}
	c.tr = &http.Transport{
		Proxy:                  nil, // never an environment proxy: the policy judges what is dialed
		DialContext:            c.dial,
		ForceAttemptHTTP2:      true,
		TLSHandshakeTimeout:    p.HeaderTimeout,
		ResponseHeaderTimeout:  p.HeaderTimeout,
		MaxResponseHeaderBytes: maxHeaderBytes,
		DisableCompression:     true, // the bytes read are the bytes sent: integrity is over them
		MaxIdleConns:           8,
		IdleConnTimeout:        30 * time.Second,
	}
	if p.RootCAs != nil {
		c.tr.TLSClientConfig = &tls.Config{RootCAs: p.RootCAs, MinVersion: tls.VersionTLS12}
	}
	c.hc = &http.Client{
		Transport:     c.tr,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	return c
}

// Close drops idle connections.
func (c *Client) Close() { c.tr.CloseIdleConnections() }

// dial dials addr for the hop in ctx; the Control hook judges the address after resolution.
// Connections are pooled per scheme and host:port, so a pooled connection only ever serves
// the origin it was dialed for.
func (c *Client) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	o, ok := ctx.Value(hopKey{}).(Origin)
	if !ok {
		return nil, &RefusedError{Origin: addr, Err: ErrRequest, Detail: "no origin for the dial"}
	}
	private := c.p.Private != nil && c.p.Private(o)
	d := net.Dialer{Timeout: c.p.HeaderTimeout, Control: func(_, address string, _ syscall.RawConn) error {
		return checkDialed(o, address, private)
	}}
	return d.DialContext(ctx, network, addr)
}

// checkDialed refuses a dialed address in the private ranges unless private is set, and
// for the name localhost any address but loopback.
func checkDialed(o Origin, address string, private bool) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return &RefusedError{Origin: o.String(), Err: ErrPrivateAddress, Detail: "unparsable address " + address}
	}
	if o.Host == "localhost" && !ap.Addr().Unmap().IsLoopback() {
		return &RefusedError{Origin: o.String(), Err: ErrPrivateAddress, Detail: fmt.Sprintf("localhost resolved to %s, not a loopback address", ap.Addr())}
	}
	if p, bad := IsPrivate(ap.Addr()); bad && !private {
		return &RefusedError{Origin: o.String(), Err: ErrPrivateAddress, Detail: fmt.Sprintf("dialed %s, in %s", ap.Addr(), p)}
	}
	return nil
}

// Response is a response whose body is capped and bound to the exchange's deadline.
// Close its Body.
type Response struct {
	*http.Response
	URL    *url.URL // the URL that answered, after the redirects followed
	Origin Origin
	Hops   int // redirects followed
}

// Get is Do with a GET of rawURL.
func (c *Client) Get(ctx context.Context, rawURL string, h http.Header) (*Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, rawURL, nil)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrBadOrigin, err)
	}
	for k, v := range h {
		req.Header[k] = v
	}
	return c.Do(req)
}

// Do sends req and follows redirects one hop at a time, each judged by the policy. A 3xx
// that is not followed (MaxRedirects reached, no Location) is returned as it is.
func (c *Client) Do(req *http.Request) (*Response, error) {
	if err := checkRequest(req); err != nil {
		return nil, err
	}
	first, err := OriginOf(req.URL)
	if err != nil {
		return nil, err
	}
	if req.ContentLength > c.p.MaxRequestBytes {
		return nil, &RefusedError{Origin: first.String(), Err: ErrTooLarge, Detail: fmt.Sprintf("a %d-byte request body, over %d", req.ContentLength, c.p.MaxRequestBytes)}
	}
	ctx, cancel := req.Context(), context.CancelFunc(func() {})
	if c.p.Timeout > 0 {
		ctx, cancel = context.WithTimeout(ctx, c.p.Timeout)
	}
	resp, err := c.follow(ctx, req, first)
	if err != nil {
		cancel()
		if errors.Is(err, context.DeadlineExceeded) && ctx.Err() != nil && req.Context().Err() == nil {
			return nil, fmt.Errorf("%w (%s after %s): %w", ErrTimeout, first, c.p.Timeout, err)
		}
		return nil, err
	}
	resp.Body = &cappedBody{rc: resp.Body, left: c.p.MaxResponseBytes, cap: c.p.MaxResponseBytes, origin: resp.Origin, cancel: cancel, ctx: ctx}
	if resp.ContentLength > c.p.MaxResponseBytes {
		resp.Body.Close()
		return nil, &RefusedError{Origin: resp.Origin.String(), Err: ErrTooLarge, Detail: fmt.Sprintf("a %d-byte response, over %d", resp.ContentLength, c.p.MaxResponseBytes)}
	}
	return resp, nil
}

func (c *Client) follow(ctx context.Context, req *http.Request, first Origin) (*Response, error) {
	var from Origin
	cur, curOrigin := req, first
	for hops := 0; ; hops++ {
		if c.p.Allow != nil {
			if err := c.p.Allow(from, curOrigin); err != nil {
				return nil, &RefusedError{Origin: curOrigin.String(), Err: err, Detail: redirectDetail(from)}
			}
		}
		out := cur.Clone(context.WithValue(ctx, hopKey{}, curOrigin))
		if curOrigin != first {
			out.Header = http.Header{}
		}
		if c.p.Header != nil {
			for k, v := range c.p.Header(curOrigin) {
				out.Header[textproto.CanonicalMIMEHeaderKey(k)] = v
			}
		}
		if out.Body != nil {
			out.Body = &cappedRequest{rc: out.Body, left: c.p.MaxRequestBytes}
		}
		resp, err := c.hc.Do(out)
		if err != nil {
			return nil, err
		}
		loc := resp.Header.Get("Location")
		if !isRedirect(resp.StatusCode) || loc == "" || c.p.MaxRedirects < 0 || hops >= c.p.MaxRedirects {
			return &Response{Response: resp, URL: cur.URL, Origin: curOrigin, Hops: hops}, nil
		}
		drain(resp.Body)
		next, err := cur.URL.Parse(loc)
		if err != nil {
			return nil, &RefusedError{Origin: curOrigin.String(), Err: ErrRedirect, Detail: "an unparsable Location"}
		}
		nextOrigin, err := OriginOf(next)
		if err != nil {
			return nil, &RefusedError{Origin: curOrigin.String(), Err: ErrRedirect, Detail: err.Error()}
		}
		if curOrigin.Scheme == "https" && nextOrigin.Scheme == "http" {
			return nil, &RefusedError{Origin: nextOrigin.String(), Err: ErrDowngrade, Detail: redirectDetail(curOrigin)}
		}
		nreq, err := redirectRequest(ctx, cur, next, resp.StatusCode)
		if err != nil {
			return nil, &RefusedError{Origin: nextOrigin.String(), Err: ErrRedirect, Detail: err.Error()}
		}
		from, cur, curOrigin = curOrigin, nreq, nextOrigin
	}
}

func redirectDetail(from Origin) string {
	if from == (Origin{}) {
		return ""
	}
	return "redirected from " + from.String()
}

func isRedirect(code int) bool {
	switch code {
	case 301, 302, 303, 307, 308:
		return true
	}
	return false
}

// redirectRequest is the next hop's request: 301, 302 and 303 turn a request with a body
// into a GET without one (as browsers do); 307 and 308 resend the body when it can be
// replayed, and are refused otherwise.
func redirectRequest(ctx context.Context, prev *http.Request, next *url.URL, code int) (*http.Request, error) {
	method, body := prev.Method, io.ReadCloser(nil)
	keepBody := code == 307 || code == 308
	if !keepBody && method != http.MethodGet && method != http.MethodHead {
		method = http.MethodGet
	}
	if keepBody && prev.Body != nil && prev.Body != http.NoBody {
		if prev.GetBody == nil {
			return nil, fmt.Errorf("a %d redirect of a body that cannot be sent again", code)
		}
		b, err := prev.GetBody()
		if err != nil {
			return nil, err
		}
		body = b
	}
	r, err := http.NewRequestWithContext(ctx, method, next.String(), body)
	if err != nil {
		return nil, err
	}
	r.Header = prev.Header.Clone()
	if keepBody {
		r.GetBody, r.ContentLength = prev.GetBody, prev.ContentLength
	} else {
		r.Header.Del("Content-Type")
		r.Header.Del("Content-Length")
	}
	return r, nil
}

// checkRequest refuses methods and headers a caller may not choose.
func checkRequest(req *http.Request) error {
	o := req.URL.Redacted()
	switch strings.ToUpper(req.Method) {
	case http.MethodTrace, http.MethodConnect:
		return &RefusedError{Origin: o, Err: ErrRequest, Detail: "method " + req.Method}
	}
	if req.Host != "" && req.Host != req.URL.Host {
		return &RefusedError{Origin: o, Err: ErrRequest, Detail: "a Host other than the URL's"}
	}
	for k := range req.Header {
		ck := textproto.CanonicalMIMEHeaderKey(k)
		if ck == "Host" || strings.HasPrefix(ck, "Proxy-") || hopByHop[ck] {
			return &RefusedError{Origin: o, Err: ErrRequest, Detail: "header " + ck}
		}
	}
	return nil
}

var hopByHop = map[string]bool{
	"Connection": true, "Keep-Alive": true, "Te": true, "Trailer": true,
	"Transfer-Encoding": true, "Upgrade": true,
}

func drain(rc io.ReadCloser) {
	_, _ = io.Copy(io.Discard, io.LimitReader(rc, 64<<10))
	rc.Close()
}

// cappedBody fails a read past the cap and ends the exchange's deadline on Close.
type cappedBody struct {
	rc     io.ReadCloser
	left   int64
	cap    int64
	origin Origin
	cancel context.CancelFunc
	ctx    context.Context
}

func (b *cappedBody) Read(p []byte) (int, error) {
	if b.left < 0 {
		return 0, b.tooLarge()
	}
	if int64(len(p)) > b.left+1 {
		p = p[:b.left+1]
	}
	n, err := b.rc.Read(p)
	b.left -= int64(n)
	if b.left < 0 {
		return n - int(-b.left), b.tooLarge()
	}
	if err != nil && b.ctx.Err() == context.DeadlineExceeded {
		return n, fmt.Errorf("%w (%s): %w", ErrTimeout, b.origin, err)
	}
	return n, err
}

func (b *cappedBody) tooLarge() error {
	return &RefusedError{Origin: b.origin.String(), Err: ErrTooLarge, Detail: fmt.Sprintf("the response is over %d bytes", b.cap)}
}

func (b *cappedBody) Close() error {
	err := b.rc.Close()
	b.cancel()
	return err
}

type cappedRequest struct {
	rc   io.ReadCloser
	left int64
}

func (b *cappedRequest) Read(p []byte) (int, error) {
	n, err := b.rc.Read(p)
	b.left -= int64(n)
	if b.left < 0 {
		return n, ErrTooLarge
	}
	return n, err
}

func (b *cappedRequest) Close() error { return b.rc.Close() }

// HTTPClient is the client as an *http.Client for a library that sends its own requests
// and leaves redirects to its client (an MCP SDK's transport): each request goes through
// Do, so redirects are followed one hop at a time under the policy, with Policy.Header per
// hop.
func (c *Client) HTTPClient() *http.Client {
	return &http.Client{Transport: doTripper{c}, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

type doTripper struct{ c *Client }

func (d doTripper) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := d.c.Do(req)
	if err != nil {
		return nil, err
	}
	return resp.Response, nil
}

// RoundTripper is the client as an http.RoundTripper, for a library that sends its own
// requests and follows redirects itself (a git client): every request, each redirect hop
// included, is checked as Do checks a request, judged by Policy.Allow (with the zero Origin
// as from), dialed under the address check, and its body capped. The https to http check
// and Policy.Header need Do, which sees the hops.
func (c *Client) RoundTripper() http.RoundTripper { return roundTripper{c} }

type roundTripper struct{ c *Client }

func (r roundTripper) RoundTrip(req *http.Request) (*http.Response, error) {
	if err := checkRequest(req); err != nil {
		return nil, err
	}
	o, err := OriginOf(req.URL)
	if err != nil {
		return nil, err
	}
	if r.c.p.Allow != nil {
		if err := r.c.p.Allow(Origin{}, o); err != nil {
			return nil, &RefusedError{Origin: o.String(), Err: err}
		}
	}
	resp, err := r.c.tr.RoundTrip(req.Clone(context.WithValue(req.Context(), hopKey{}, o)))
	if err != nil {
		return nil, err
	}
	if resp.ContentLength > r.c.p.MaxResponseBytes {
		resp.Body.Close()
		return nil, &RefusedError{Origin: o.String(), Err: ErrTooLarge, Detail: fmt.Sprintf("a %d-byte response, over %d", resp.ContentLength, r.c.p.MaxResponseBytes)}
	}
	resp.Body = &cappedBody{rc: resp.Body, left: r.c.p.MaxResponseBytes, cap: r.c.p.MaxResponseBytes, origin: o, cancel: func() {}, ctx: req.Context()}
	return resp, nil
}
