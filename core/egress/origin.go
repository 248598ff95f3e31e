package egress

import (
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"unicode/utf8"

	"golang.org/x/net/idna"

	"github.com/cwx-dev/cwx/core/errdefs"
)

// ErrBadOrigin is matched by every error of [OriginOf].
var ErrBadOrigin = errdefs.New(errdefs.ErrInvalidInput, "not an http or https origin")

// Origin is a canonical scheme, host and port. Two URLs reach the same origin exactly when
// their Origins are equal; the string form is what policies compare and what logs print.
type Origin struct {
	Scheme string // "http" or "https"
	Host   string // lower-case A-label name, dotted IPv4, or IPv6 without brackets
	Port   int    // always set: the scheme's default when the URL named none
}

// String is scheme://host[:port], the port left out when it is the scheme's default and an
// IPv6 host in brackets.
func (o Origin) String() string {
	h := o.Host
	if strings.Contains(h, ":") {
		h = "[" + h + "]"
	}
	if o.Port == defaultPort(o.Scheme) {
		return o.Scheme + "://" + h
	}
	return o.Scheme + "://" + h + ":" + strconv.Itoa(o.Port)
}

// HostPort is the address the origin dials, host:port with an IPv6 host bracketed.
func (o Origin) HostPort() string { return net.JoinHostPort(o.Host, strconv.Itoa(o.Port)) }

// IsLiteral reports whether the host is an IP address rather than a name.
func (o Origin) IsLiteral() bool {
	_, err := netip.ParseAddr(o.Host)
	return err == nil
}

func defaultPort(scheme string) int {
	if scheme == "https" {
		return 443
	}
	return 80
}

// OriginOf canonicalizes u's origin ("https://Example.COM.:443/x" is "https://example.com").
// The path, query and fragment are dropped; user information is refused, since it would make
// two spellings of one origin differ.
func OriginOf(u *url.URL) (Origin, error) {
	bad := func(why string) (Origin, error) {
		return Origin{}, fmt.Errorf("%w: %q: %s", ErrBadOrigin, u.Redacted(), why)
	}
	scheme := strings.ToLower(u.Scheme)
	if scheme != "http" && scheme != "https" {
		return bad("the scheme must be http or https")
	}
	if u.Opaque != "" {
		return bad("no host (write scheme://host)")
	}
	if u.User != nil {
		return bad("user information in an origin is refused")
	}
	host, err := canonicalHost(u.Hostname(), strings.HasPrefix(u.Host, "["))
	if err != nil {
		return bad(err.Error())
	}
	port := defaultPort(scheme)
	if p := u.Port(); p != "" {
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 || n > 65535 || p[0] == '0' {
			return bad("the port must be a number from 1 to 65535")
		}
		port = n
	} else if strings.HasSuffix(u.Host, ":") {
		return bad("an empty port")
	}
	return Origin{Scheme: scheme, Host: host, Port: port}, nil
}

// canonicalHost lower-cases a name and turns it into A-labels, drops one trailing dot, and
// writes an IP address in its one canonical form.
func canonicalHost(h string, bracketed bool) (string, error) {
	if h == "" {
		return "", fmt.Errorf("no host")
	}
	if bracketed {
		a, err := netip.ParseAddr(h)
		if err != nil || !a.Is6() || a.Zone() != "" {
			return "", fmt.Errorf("a bracketed host must be an IPv6 address without a zone")
		}
		return a.String(), nil
	}
	if a, err := netip.ParseAddr(h); err == nil {
		if a.Is6() {
			return "", fmt.Errorf("an IPv6 address must be in brackets")
		}
		return a.String(), nil
	}
	h = strings.TrimSuffix(h, ".")
	if h == "" || strings.HasSuffix(h, ".") || strings.HasPrefix(h, ".") || strings.Contains(h, "..") {
		return "", fmt.Errorf("an empty label in the host name")
	}
	if !utf8.ValidString(h) {
		return "", fmt.Errorf("the host name is not valid UTF-8")
	}
	a, err := idna.Lookup.ToASCII(h)
	if err != nil {
		return "", fmt.Errorf("the host name is not a valid IDNA name: %v", err)
	}
	a = strings.ToLower(a)
	if again, err := idna.Lookup.ToASCII(a); err != nil || again != a {
		// The A-label form must be its own canonical form, or two spellings would differ.
		return "", fmt.Errorf("the host name is not a valid IDNA name")
	}
	if looksNumeric(a) {
		// "0x7f.1" or "2130706433": resolvers read these as addresses; refuse the spelling.
		return "", fmt.Errorf("a numeric host that is not a dotted IPv4 address")
	}
	return a, nil
}

// looksNumeric reports whether the last label is all digits or a hex number: a name such a
// URL parser or resolver may read as an IPv4 address in another notation.
func looksNumeric(h string) bool {
	last := h[strings.LastIndexByte(h, '.')+1:]
	if last == "" {
		return false
	}
	if strings.HasPrefix(last, "0x") {
		return true
	}
	for _, c := range last {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// RedactQuery is raw with its query, if any, replaced by "…", for showing a URL a service
// may take a key in; raw as it is when it does not parse or has no query.
func RedactQuery(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.RawQuery == "" {
		return raw
	}
	u.RawQuery = "…"
	return u.String()
}
