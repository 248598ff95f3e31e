package fetchproxy

import (
	"encoding/base64"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/cwx-dev/cwx/core/egress"
	"github.com/cwx-dev/cwx/core/protocol"
)

// request is a net/fetch's params checked on their own, before any policy: what the
// proxy will send.
type request struct {
	id      string
	method  string
	url     *url.URL
	origin  egress.Origin
	headers []protocol.HTTPHeader
	body    []byte
	stream  bool
}

// parseFetch checks v: a request_id, an HTTP method other than TRACE and CONNECT, an http
// or https URL whose origin canonicalizes, header names that are tokens and values of one
// line, and a base64 body of at most NetMaxChunk bytes. Its refusals name the origin when
// there is one, never the path or the query.
func parseFetch(v *protocol.NetFetchParams) (request, *protocol.RPCError) {
	r := request{id: v.RequestID, method: strings.ToUpper(v.Method), stream: v.BodyStreamed}
	if why := checkRequestID(v.RequestID); why != "" {
		return r, refused(protocol.CodeInvalidParams, protocol.NetReasonRequest, "", "net/fetch: %s", why)
	}
	u, err := url.Parse(v.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return r, refused(protocol.CodeRefused, protocol.NetReasonRequest, "", "fetch refused: the URL is not an http or https URL with a host")
	}
	if u.User != nil {
		return r, refused(protocol.CodeRefused, protocol.NetReasonRequest, "", "fetch refused: a URL with user information; send credentials in a header, or configure them in config.toml")
	}
	o, err := egress.OriginOf(u)
	if err != nil {
		return r, refused(protocol.CodeRefused, protocol.NetReasonRequest, "", "fetch refused: the URL's host is not a canonical name or address")
	}
	u.Fragment, u.RawFragment = "", ""
	r.url, r.origin = u, o
	os := o.String()
	if !validHeaderName(r.method) {
		return r, refused(protocol.CodeRefused, protocol.NetReasonRequest, os, "fetch to %s refused: the method is not an HTTP token", os)
	}
	if r.method == http.MethodTrace || r.method == http.MethodConnect {
		return r, refused(protocol.CodeRefused, protocol.NetReasonRequest, os, "fetch to %s refused: the method %s is not allowed", os, r.method)
	}
	for _, h := range v.Headers {
		if !validHeaderName(h.Name) || !validHeaderValue(h.Value) {
			return r, refused(protocol.CodeRefused, protocol.NetReasonRequest, os, "fetch to %s refused: a header name that is not a token or a value with a line break", os)
		}
	}
	r.headers = v.Headers
	if v.Body != "" {
		if base64.StdEncoding.DecodedLen(len(v.Body)) > protocol.NetMaxChunk+3 {
			return r, refused(protocol.CodeRefused, protocol.NetReasonTooLarge, os, "fetch to %s refused: a body chunk over %d bytes", os, protocol.NetMaxChunk)
		}
		b, err := base64.StdEncoding.DecodeString(v.Body)
		if err != nil {
			return r, refused(protocol.CodeInvalidParams, protocol.NetReasonRequest, os, "net/fetch: the body is not base64")
		}
		if len(b) > protocol.NetMaxChunk {
			return r, refused(protocol.CodeRefused, protocol.NetReasonTooLarge, os, "fetch to %s refused: a body chunk over %d bytes", os, protocol.NetMaxChunk)
		}
		r.body = b
	}
	if (r.method == http.MethodGet || r.method == http.MethodHead) && (len(r.body) > 0 || r.stream) {
		return r, refused(protocol.CodeRefused, protocol.NetReasonRequest, os, "fetch to %s refused: a %s request with a body", os, r.method)
	}
	return r, nil
}

// checkRequestID says why id may not name an exchange, or "".
func checkRequestID(id string) string {
	if id == "" || len(id) > MaxRequestID {
		return fmt.Sprintf("request_id must be 1 to %d characters", MaxRequestID)
	}
	for i := 0; i < len(id); i++ {
		if id[i] < 0x21 || id[i] > 0x7e {
			return "request_id must be printable ASCII without spaces"
		}
	}
	return ""
}

// decodeChunk decodes a net/write's data: base64, at most NetMaxChunk bytes.
func decodeChunk(s string) ([]byte, *protocol.RPCError) {
	if base64.StdEncoding.DecodedLen(len(s)) > protocol.NetMaxChunk+3 {
		return nil, refused(protocol.CodeRefused, protocol.NetReasonTooLarge, "", "net/write: a chunk over %d bytes", protocol.NetMaxChunk)
	}
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return nil, refused(protocol.CodeInvalidParams, protocol.NetReasonRequest, "", "net/write: the data is not base64")
	}
	if len(b) > protocol.NetMaxChunk {
		return nil, refused(protocol.CodeRefused, protocol.NetReasonTooLarge, "", "net/write: a chunk over %d bytes", protocol.NetMaxChunk)
	}
	return b, nil
}

// logURL is u as a log line may show it: origin and path, no query, no fragment.
func logURL(o egress.Origin, u *url.URL) string {
	p := u.EscapedPath()
	if len(p) > 200 {
		p = p[:200] + "…"
	}
	return o.String() + p
}
