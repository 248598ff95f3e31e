// Package egress is the core's one way out to the network: an HTTP client whose every hop
// is judged by a caller's [Policy], for whatever in the core fetches on someone's behalf
// (installing a package by name today; a plugin's fetch and MCP over HTTP later). It knows
// nothing of plugins: a caller turns its own rules (grants, configured registries) into a
// Policy.
//
// # Origins
//
// [OriginOf] canonicalizes scheme, host and port, so that a policy compares one spelling
// of each origin: the scheme and host lower-cased, a name turned into IDNA A-labels
// (golang.org/x/net/idna, lookup profile), one trailing dot dropped, the scheme's default
// port dropped, an IPv4 address in dotted form, an IPv6 address bracketed in its RFC 5952
// form. User information, an IPv6 address without brackets, a zone, and a numeric host that
// is not dotted IPv4 ("0x7f.1", "2130706433") are refused. http://localhost:P and
// http://127.0.0.1:P are different origins.
//
// # Addresses
//
// The transport never uses a proxy (Transport.Proxy is nil). The address check runs in
// net.Dialer.Control, so it judges the address actually dialed, after resolution: a name
// that resolves to a private address is caught, and there is no window between a check and
// the dial. Refused ([IsPrivate]) unless Policy.Private allows the hop's origin:
// 0.0.0.0/8, 127.0.0.0/8, ::1 (and ::), 10/8, 172.16/12, 192.168/16, 100.64/10,
// 169.254/16, fc00::/7, fe80::/10, multicast (224/4, ff00::/8) and broadcast. An
// IPv4-mapped IPv6 address is unmapped first; a NAT64 address (64:ff9b::/96) is judged by
// the IPv4 address it embeds. The dial knows its hop's origin from the request's context;
// connections are pooled per scheme and host:port, so a pooled connection serves only the
// origin it was dialed for.
//
// # Redirects
//
// The http.Client's CheckRedirect returns http.ErrUseLastResponse: [Client.Do] follows
// redirects itself, one hop at a time, up to Policy.MaxRedirects. Each hop is passed to
// Policy.Allow (with the origin that redirected there), an https to http hop is refused
// (ErrDowngrade), the request's own headers go only to hops of the first request's origin,
// and Policy.Header adds headers for the hop's exact origin only (Go's client would
// forward some to subdomains). 301, 302 and 303 turn a request with a body into a GET; 307
// and 308 resend the body only when it can be replayed.
//
// # Requests and limits
//
// TRACE and CONNECT, a Host other than the URL's, hop-by-hop headers and Proxy-* headers
// are refused (ErrRequest). Policy.MaxRequestBytes caps a request body,
// Policy.MaxResponseBytes each response body (a Content-Length over the cap is refused
// before the body is read; a read past it fails), and Policy.Timeout the whole exchange,
// redirects and body included: the deadline ends when the body is closed. Responses are
// not decompressed, so the bytes read are the bytes the server sent.
//
// # Errors
//
// A refusal is a *[RefusedError] naming the hop's origin and what was refused; it matches
// errdefs.ErrRefused and one of ErrPrivateAddress, ErrRedirect, ErrDowngrade, ErrRequest,
// or the policy's own error. A size cap matches ErrTooLarge (errdefs.ErrTooLarge), a
// deadline ErrTimeout (errdefs.ErrTimeout). Errors carry URLs without their user
// information and never a header's value.
package egress
