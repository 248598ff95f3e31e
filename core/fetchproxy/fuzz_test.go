package fetchproxy

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/cwx-dev/cwx/core/protocol"
)

// FuzzParseFetch feeds parseFetch arbitrary net/fetch params: it never panics, what it
// accepts is an http(s) request with a token method other than TRACE and CONNECT, header
// lines without breaks and a body within NetMaxChunk, and its refusals never carry the
// URL's query.
func FuzzParseFetch(f *testing.F) {
	f.Add("r1", "GET", "https://api.example.com/v1/x?token=abcdefgh", "Accept", "*/*", "", false)
	f.Add("r2", "post", "http://127.0.0.1:8080/up", "Content-Type", "application/pdf", "aGVsbG8=", true)
	f.Add("r 3", "TRACE", "https://u:p@h/?q=secretsecret", "X", "a\nb", "!!", false)
	f.Add("r4", "CONNECT", "https://[::1]:9/", "Proxy-Authorization", "x", "", false)
	f.Add("r5", "GET", "http://0x7f.1/?k=vvvvvvvvvv", "", "", "", true)
	f.Fuzz(func(t *testing.T, id, method, rawURL, name, value, body string, streamed bool) {
		v := &protocol.NetFetchParams{RequestID: id, Method: method, URL: rawURL, Body: body, BodyStreamed: streamed,
			Headers: []protocol.HTTPHeader{{Name: name, Value: value}}}
		r, e := parseFetch(v)
		if e != nil {
			if u, err := url.Parse(rawURL); err == nil && len(u.RawQuery) >= 8 && strings.Contains(e.Message, u.RawQuery) && !strings.Contains(r.origin.String(), u.RawQuery) {
				t.Fatalf("the refusal %q carries the query", e.Message)
			}
			if reasonOf(e) == "refused" {
				t.Fatalf("a refusal without a reason: %q", e.Message)
			}
			return
		}
		if r.url.Scheme != "http" && r.url.Scheme != "https" || r.origin.Host == "" {
			t.Fatalf("accepted %q", rawURL)
		}
		if r.method == http.MethodTrace || r.method == http.MethodConnect || !validHeaderName(r.method) {
			t.Fatalf("accepted the method %q", method)
		}
		if !validHeaderName(name) || !validHeaderValue(value) || len(r.body) > protocol.NetMaxChunk || checkRequestID(id) != "" {
			t.Fatalf("accepted %q: %q, a %d-byte body, id %q", name, value, len(r.body), id)
		}
	})
}
