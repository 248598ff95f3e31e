package fetchproxy

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"maps"
	"net/http"
	"net/textproto"
	"net/url"
	"slices"
	"strings"

	"github.com/cwx-dev/cwx/core/config"
	"github.com/cwx-dev/cwx/core/egress"
	"github.com/cwx-dev/cwx/core/errdefs"
)

// policy is one plugin's grants as the egress client asks them, hop by hop.
type policy struct {
	plugin   string
	network  map[egress.Origin]bool
	priv     map[egress.Origin]bool
	headers  map[egress.Origin]http.Header     // expanded: never printed
	badEnv   map[egress.Origin]error           // why an origin's headers could not be expanded
	names    map[egress.Origin]map[string]bool // the names configured per origin, canonical
	injected map[string]bool                   // every configured header name, canonical
}

// The policy's refusals, inside an *egress.RefusedError.
var (
	errNotGranted      = errdefs.New(errdefs.ErrRefused, "the origin is not granted")
	errRedirectRefused = errdefs.New(errdefs.ErrRefused, "a redirect to an origin that is not granted")
	errHeaderEnv       = errdefs.New(errdefs.ErrRefused, "a configured header could not be expanded")
)

// newPolicy makes plugin id's policy from g, expanding its headers' ${env:NAME} once.
func newPolicy(id string, g config.Grants) *policy {
	p := &policy{plugin: id, network: origins(g.Network), priv: origins(g.Private),
		headers: map[egress.Origin]http.Header{}, badEnv: map[egress.Origin]error{},
		names: map[egress.Origin]map[string]bool{}, injected: map[string]bool{}}
	for raw, hs := range g.Headers {
		o, err := parseOrigin(raw)
		if err != nil {
			continue // config.Load checked it; an origin egress spells otherwise reaches nothing
		}
		h, names := http.Header{}, map[string]bool{}
		p.names[o] = names
		for name, tmpl := range hs {
			name = textproto.CanonicalMIMEHeaderKey(name)
			p.injected[name], names[name] = true, true
			v, err := config.ExpandEnv(tmpl)
			if err != nil {
				p.badEnv[o] = fmt.Errorf("header %s: %w", name, err)
				continue
			}
			h.Set(name, v)
		}
		p.headers[o] = h
	}
	return p
}

// parseOrigin is the origin config.toml writes as s.
func parseOrigin(s string) (egress.Origin, error) {
	u, err := url.Parse(s)
	if err != nil {
		return egress.Origin{}, err
	}
	return egress.OriginOf(u)
}

func origins(list []string) map[egress.Origin]bool {
	m := map[egress.Origin]bool{}
	for _, s := range list {
		if o, err := parseOrigin(s); err == nil {
			m[o] = true
		}
	}
	return m
}

// allow admits a hop to a granted origin whose configured headers expanded.
func (p *policy) allow(from, to egress.Origin) error {
	switch {
	case !p.network[to] && from != (egress.Origin{}):
		return errRedirectRefused
	case !p.network[to]:
		return errNotGranted
	case p.badEnv[to] != nil:
		return errHeaderEnv
	}
	return nil
}

func (p *policy) private(o egress.Origin) bool { return p.priv[o] }

func (p *policy) header(o egress.Origin) http.Header { return p.headers[o].Clone() }

// fingerprint identifies g's network policy, so a changed grant makes a new client. It is a
// digest: the templates never sit in a comparable string.
func fingerprint(g config.Grants) string {
	h := sha256.New()
	fmt.Fprintf(h, "%q %q\n", g.Network, g.Private)
	for _, o := range slices.Sorted(maps.Keys(g.Headers)) {
		for _, n := range slices.Sorted(maps.Keys(g.Headers[o])) {
			fmt.Fprintf(h, "%q %q %q\n", o, n, g.Headers[o][n])
		}
	}
	return hex.EncodeToString(h.Sum(nil))
}

// refusedHeaders are request headers a plugin may not set: the connection's own and the
// proxy's (hop-by-hop, Host, Proxy-*). A Content-Length is dropped: the transport
// computes it.
var refusedHeaders = map[string]bool{
	"Host": true, "Connection": true, "Keep-Alive": true, "Te": true, "Trailer": true,
	"Transfer-Encoding": true, "Upgrade": true,
}

// checkHeader says why the plugin may not send header name to origin o, or "".
func (p *policy) checkHeader(o egress.Origin, name string) string {
	c := textproto.CanonicalMIMEHeaderKey(name)
	switch {
	case !validHeaderName(name):
		return fmt.Sprintf("%q is not a header name", name)
	case refusedHeaders[c] || strings.HasPrefix(c, "Proxy-"):
		return fmt.Sprintf("the header %s is set by the connection, not by a plugin", c)
	case p.names[o][c]:
		return fmt.Sprintf("the header %s is configured for %s in config.toml; the core sets it", c, o)
	}
	return ""
}

// validHeaderName reports whether s is an HTTP token.
func validHeaderName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		b := s[i]
		if b <= ' ' || b >= 0x7f || strings.IndexByte("\"(),/:;<=>?@[\\]{}", b) >= 0 {
			return false
		}
	}
	return true
}

// validHeaderValue reports whether v may be sent: no CR, LF or NUL.
func validHeaderValue(v string) bool { return !strings.ContainsAny(v, "\r\n\x00") }
