package mcpclient

import (
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cwx-dev/cwx/core/config"
	"github.com/cwx-dev/cwx/core/egress"
	"github.com/cwx-dev/cwx/core/errdefs"
)

// ErrOAuth is a remote server's 401 that asks for a sign-in (WWW-Authenticate): cwx
// offers no OAuth flow, only static headers. A case of errdefs.ErrNotAvailable.
var ErrOAuth = errdefs.New(errdefs.ErrNotAvailable, "OAuth is not supported; give a static header")

// maxRemoteBody is the one unbounded-by-design body a remote server sends, its event
// stream, given a total far past any session's (each event is bounded by MaxLineBytes).
const maxRemoteBody = 1 << 40

// remote is what one remote server's generations connect with: the egress client of its
// policy and the values to keep out of every error and log line.
type remote struct {
	// legacy is set when a POST got a 400, 404 or 405: the hint that the server speaks only
	// the legacy HTTP+SSE transport.
	legacy  atomic.Bool
	client  *egress.Client
	origin  egress.Origin
	secrets []string // the expanded header values, and the URL's query when it has one
	safeURL string   // the URL without its query
}

// newRemote checks cfg's URL and expands its headers' ${env:NAME} (in the core, never
// logged), then makes the egress client whose policy is the server's:
//
//   - the first request of every exchange goes to the URL's origin only (a legacy SSE
//     server's endpoint event naming another origin is refused);
//   - the private ranges are reachable from that origin alone, and only when the URL names
//     a literal address or localhost (the user wrote exactly what is reached) or the table
//     says allow_private; a redirect to a private address elsewhere is refused;
//   - the headers go to that exact origin on every hop that reaches it, never elsewhere;
//   - no whole-exchange deadline (the event stream lives with the session; each call is
//     bounded by timeout_s), headers awaited at most timeout_s, redirects one hop at a time.
func newRemote(cfg config.MCPServer) (*remote, error) {
	u, err := url.Parse(cfg.URL)
	if err != nil {
		return nil, fmt.Errorf("mcp server %q: the url does not parse", cfg.Name)
	}
	origin, err := egress.OriginOf(u)
	if err != nil {
		return nil, fmt.Errorf("mcp server %q: %w", cfg.Name, err)
	}
	r := &remote{origin: origin, safeURL: egress.RedactQuery(cfg.URL)}
	if u.RawQuery != "" {
		r.secrets = append(r.secrets, u.RawQuery)
	}
	h := http.Header{}
	for _, name := range cfg.HeaderNames() {
		v := cfg.Headers[name]
		// a file's values were expanded by core/mcpfile, once; a plugin's are never expanded
		if cfg.Source == "" && cfg.Plugin == "" {
			var err error
			if v, err = config.ExpandEnv(v); err != nil {
				return nil, fmt.Errorf("mcp server %q: header %s: %w", cfg.Name, name, err)
			}
		}
		h.Set(name, v)
		if v != "" {
			r.secrets = append(r.secrets, v)
		}
	}
	r.client = egress.New(remotePolicy(cfg, origin, h))
	return r, nil
}

// remotePolicy is the egress policy of remote server cfg at origin, with the expanded
// headers h.
func remotePolicy(cfg config.MCPServer, origin egress.Origin, h http.Header) egress.Policy {
	private := origin.IsLiteral() || origin.Host == "localhost" || cfg.AllowPrivate
	return egress.Policy{
		Allow: func(from, to egress.Origin) error {
			if from == (egress.Origin{}) && to != origin {
				return fmt.Errorf("%w: the server's endpoint is on another origin than its url's (%s)", egress.ErrNotAllowed, origin)
			}
			return nil
		},
		Private: func(o egress.Origin) bool { return private && o == origin },
		Header: func(o egress.Origin) http.Header {
			if o == origin {
				return h
			}
			return nil
		},
		MaxResponseBytes: maxRemoteBody,
		Timeout:          -1,
		HeaderTimeout:    max(time.Duration(cfg.TimeoutS)*time.Second, StartTimeout),
	}
}

// transport is the go-sdk transport of one generation.
func (r *remote) transport(cfg config.MCPServer) mcp.Transport {
	if cfg.Transport == config.MCPSSE {
		return r.sse(cfg)
	}
	return &mcp.StreamableClientTransport{Endpoint: cfg.URL, HTTPClient: r.httpClient(cfg), MaxEventSize: MaxLineBytes}
}

// sse is the legacy transport of one generation.
func (r *remote) sse(cfg config.MCPServer) mcp.Transport {
	return sseTransport{&mcp.SSEClientTransport{Endpoint: cfg.URL, HTTPClient: r.httpClient(cfg), MaxEventSize: MaxLineBytes}}
}

func (r *remote) httpClient(cfg config.MCPServer) *http.Client {
	hc := r.client.HTTPClient()
	hc.Transport = answerCheck{next: hc.Transport, name: cfg.Name, legacy: &r.legacy}
	return hc
}

// sseTransport connects the legacy transport, whose event stream is the GET request of
// Connect and so lives by Connect's context: that context is the generation's (ended when
// the connection closes), while the wait for the stream's endpoint event is still bounded
// by the caller's.
type sseTransport struct{ t *mcp.SSEClientTransport }

func (s sseTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	life, end := context.WithCancel(context.WithoutCancel(ctx))
	type res struct {
		c   mcp.Connection
		err error
	}
	done := make(chan res, 1)
	go func() { // joined below: either its answer is taken, or life is cancelled and it ends
		c, err := s.t.Connect(life)
		done <- res{c, err}
	}()
	select {
	case r := <-done:
		if r.err != nil {
			end()
			return nil, r.err
		}
		return endingConn{Connection: r.c, end: end}, nil
	case <-ctx.Done():
		end()
		if r := <-done; r.c != nil {
			_ = r.c.Close()
		}
		return nil, context.Cause(ctx)
	}
}

// endingConn cancels the generation's context when the connection closes.
type endingConn struct {
	mcp.Connection
	end context.CancelFunc
}

func (c endingConn) Close() error {
	err := c.Connection.Close()
	c.end()
	return err
}

// redact removes the server's secrets from s (an error's text, before it is logged or
// returned): the header values and the URL's query.
func (r *remote) redact(s string) string {
	if r == nil {
		return s
	}
	for _, v := range r.secrets {
		s = strings.ReplaceAll(s, v, "[redacted]")
	}
	return s
}

func (r *remote) close() { r.client.Close() }

// answerCheck turns a 401 into a named error, and bounds a JSON body (one message) by
// MaxLineBytes, as a stdio server's line is; an event stream's events are bounded by the
// SDK's MaxEventSize.
type answerCheck struct {
	next   http.RoundTripper
	name   string
	legacy *atomic.Bool
}

func (a answerCheck) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := a.next.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode == http.StatusUnauthorized {
		drainClose(resp.Body)
		if ch := resp.Header.Get("WWW-Authenticate"); ch != "" {
			scheme, _, _ := strings.Cut(strings.TrimSpace(ch), " ")
			return nil, fmt.Errorf("mcp server %q asks for a sign-in (401, WWW-Authenticate: %s): %w (headers = {Authorization = \"Bearer ${env:TOKEN}\"} in its table)", a.name, scheme, ErrOAuth)
		}
		return nil, errdefs.New(errdefs.ErrDenied, fmt.Sprintf("mcp server %q refused the request (401 Unauthorized); check the credential its headers give", a.name))
	}
	switch resp.StatusCode {
	case http.StatusBadRequest, http.StatusNotFound, http.StatusMethodNotAllowed:
		if req.Method == http.MethodPost {
			a.legacy.Store(true)
		}
	}
	if mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); mt == "application/json" {
		resp.Body = &jsonCap{rc: resp.Body, left: MaxLineBytes, name: a.name}
	}
	return resp, nil
}

func drainClose(rc io.ReadCloser) {
	_, _ = io.Copy(io.Discard, io.LimitReader(rc, 64<<10))
	rc.Close()
}

// errJSONTooLarge is a JSON answer over MaxLineBytes.
var errJSONTooLarge = errors.New("a JSON answer over the message bound")

type jsonCap struct {
	rc   io.ReadCloser
	left int64
	name string
}

func (j *jsonCap) Read(p []byte) (int, error) {
	if j.left <= 0 {
		return 0, fmt.Errorf("mcp server %q: %w (%d bytes)", j.name, errJSONTooLarge, MaxLineBytes)
	}
	if int64(len(p)) > j.left {
		p = p[:j.left]
	}
	n, err := j.rc.Read(p)
	j.left -= int64(n)
	return n, err
}

func (j *jsonCap) Close() error { return j.rc.Close() }
