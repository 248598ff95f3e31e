package egress

import (
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/cwx-dev/cwx/core/errdefs"
)

// allowPrivate lets exactly the given origins reach loopback.
func allowPrivate(t *testing.T, urls ...string) func(Origin) bool {
	t.Helper()
	ok := map[Origin]bool{}
	for _, u := range urls {
		o, err := ParseOrigin(u)
		if err != nil {
			t.Fatal(err)
		}
		ok[o] = true
	}
	return func(o Origin) bool { return ok[o] }
}

func serve(t *testing.T, h http.HandlerFunc) *httptest.Server {
	t.Helper()
	s := httptest.NewServer(h)
	t.Cleanup(s.Close)
	return s
}

func TestLoopbackRefusedUnlessAllowed(t *testing.T) {
	s := serve(t, func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "hi") })
	for _, tc := range []struct {
		name    string
		private func(Origin) bool
		url     string
		refused bool
	}{
		{"no private origins", nil, s.URL, true},
		{"this origin allowed", allowPrivate(t, s.URL), s.URL, false},
		{"another origin allowed", allowPrivate(t, "http://127.0.0.1:1"), s.URL, true},
		// localhost resolves to loopback: the dialed address is judged, not the name.
		{"a name resolving to loopback", allowPrivate(t, s.URL), strings.Replace(s.URL, "127.0.0.1", "localhost", 1), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := New(Policy{Private: tc.private})
			defer c.Close()
			resp, err := c.Get(context.Background(), tc.url, nil)
			if tc.refused {
				if err == nil {
					resp.Body.Close()
					t.Fatal("the request went through")
				}
				if !errors.Is(err, ErrPrivateAddress) || !errors.Is(err, errdefs.ErrRefused) {
					t.Fatalf("err = %v, want ErrPrivateAddress", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if string(b) != "hi" {
				t.Fatalf("body %q", b)
			}
		})
	}
}

func TestRedirectsOneHopAtATime(t *testing.T) {
	var gotAuth, gotInjected string
	other := serve(t, func(w http.ResponseWriter, r *http.Request) {
		gotAuth, gotInjected = r.Header.Get("Authorization"), r.Header.Get("X-Injected")
		io.WriteString(w, "other")
	})
	var hops int
	first := serve(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/elsewhere":
			http.Redirect(w, r, other.URL+"/x", http.StatusFound)
		case "/same":
			hops++
			http.Redirect(w, r, "/end", http.StatusMovedPermanently)
		case "/loop":
			http.Redirect(w, r, "/loop", http.StatusFound)
		default:
			io.WriteString(w, "end")
		}
	})
	firstO, _ := ParseOrigin(first.URL)
	otherO, _ := ParseOrigin(other.URL)
	var seen []string
	onlyFirst := func(from, to Origin) error {
		seen = append(seen, fmt.Sprintf("%s>%s", from, to))
		if to != firstO {
			return ErrNotAllowed
		}
		return nil
	}
	private := allowPrivate(t, first.URL, other.URL)

	t.Run("same origin followed", func(t *testing.T) {
		c := New(Policy{Private: private, Allow: onlyFirst})
		resp, err := c.Get(context.Background(), first.URL+"/same", nil)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		if string(b) != "end" || resp.Hops != 1 || hops != 1 {
			t.Fatalf("body %q after %d hops", b, resp.Hops)
		}
	})
	t.Run("another origin refused by the policy", func(t *testing.T) {
		seen = nil
		c := New(Policy{Private: private, Allow: onlyFirst})
		_, err := c.Get(context.Background(), first.URL+"/elsewhere", nil)
		var re *RefusedError
		if !errors.As(err, &re) || !errors.Is(err, ErrNotAllowed) || re.Origin != otherO.String() {
			t.Fatalf("err = %v, want the policy's refusal naming %s", err, otherO)
		}
		if len(seen) != 2 || seen[1] != firstO.String()+">"+otherO.String() {
			t.Fatalf("the policy saw %v", seen)
		}
	})
	t.Run("headers go only to their origin", func(t *testing.T) {
		c := New(Policy{Private: private, Header: func(o Origin) http.Header {
			if o == otherO {
				return http.Header{"X-Injected": {"for-other"}}
			}
			return nil
		}})
		resp, err := c.Get(context.Background(), first.URL+"/elsewhere", http.Header{"Authorization": {"Bearer secret"}})
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if gotAuth != "" || gotInjected != "for-other" {
			t.Fatalf("other origin saw Authorization %q, X-Injected %q", gotAuth, gotInjected)
		}
	})
	t.Run("redirect limit returns the last response", func(t *testing.T) {
		c := New(Policy{Private: private, MaxRedirects: 3})
		resp, err := c.Get(context.Background(), first.URL+"/loop", nil)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusFound || resp.Hops != 3 {
			t.Fatalf("status %d after %d hops", resp.StatusCode, resp.Hops)
		}
	})
	t.Run("no redirects followed", func(t *testing.T) {
		c := New(Policy{Private: private, MaxRedirects: -1})
		resp, err := c.Get(context.Background(), first.URL+"/same", nil)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusMovedPermanently {
			t.Fatalf("status %d", resp.StatusCode)
		}
	})
}

func TestHTTPSToHTTPRefused(t *testing.T) {
	plain := serve(t, func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "plain") })
	tlsSrv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, plain.URL, http.StatusFound)
	}))
	defer tlsSrv.Close()
	pool := x509.NewCertPool()
	pool.AddCert(tlsSrv.Certificate())
	c := New(Policy{Private: allowPrivate(t, tlsSrv.URL, plain.URL), RootCAs: pool})
	_, err := c.Get(context.Background(), tlsSrv.URL, nil)
	if !errors.Is(err, ErrDowngrade) {
		t.Fatalf("err = %v, want ErrDowngrade", err)
	}
}

func TestResponseCap(t *testing.T) {
	s := serve(t, func(w http.ResponseWriter, r *http.Request) {
		body := strings.Repeat("x", 2000)
		if r.URL.Path == "/chunked" {
			w.(http.Flusher).Flush() // no Content-Length: the cap is met while reading
		} else {
			w.Header().Set("Content-Length", "2000")
		}
		io.WriteString(w, body)
	})
	c := New(Policy{Private: allowPrivate(t, s.URL), MaxResponseBytes: 1000})
	if _, err := c.Get(context.Background(), s.URL+"/announced", nil); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("announced: err = %v, want ErrTooLarge", err)
	}
	resp, err := c.Get(context.Background(), s.URL+"/chunked", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if !errors.Is(err, ErrTooLarge) || !errors.Is(err, errdefs.ErrTooLarge) || len(b) != 1000 {
		t.Fatalf("chunked: read %d bytes, err = %v", len(b), err)
	}
	c2 := New(Policy{Private: allowPrivate(t, s.URL), MaxResponseBytes: 2000})
	resp, err = c2.Get(context.Background(), s.URL+"/chunked", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if b, err := io.ReadAll(resp.Body); err != nil || len(b) != 2000 {
		t.Fatalf("at the cap: read %d, err %v", len(b), err)
	}
}

func TestDeadline(t *testing.T) {
	release := make(chan struct{})
	s := serve(t, func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	})
	defer close(release)
	c := New(Policy{Private: allowPrivate(t, s.URL), Timeout: 50 * time.Millisecond})
	_, err := c.Get(context.Background(), s.URL, nil)
	if !errors.Is(err, ErrTimeout) || !errors.Is(err, errdefs.ErrTimeout) {
		t.Fatalf("err = %v, want ErrTimeout", err)
	}
}

func TestRequestRefusals(t *testing.T) {
	s := serve(t, func(w http.ResponseWriter, r *http.Request) {})
	c := New(Policy{Private: allowPrivate(t, s.URL), MaxRequestBytes: 10})
	for _, tc := range []struct {
		name   string
		method string
		header string
		host   string
		body   string
	}{
		{name: "TRACE", method: "TRACE"},
		{name: "CONNECT", method: "CONNECT"},
		{name: "Proxy-Authorization", method: "GET", header: "Proxy-Authorization"},
		{name: "Connection", method: "GET", header: "Connection"},
		{name: "Host", method: "GET", host: "example.com"},
		{name: "oversize body", method: "POST", body: strings.Repeat("y", 11)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var body io.Reader
			if tc.body != "" {
				body = strings.NewReader(tc.body)
			}
			req, _ := http.NewRequest(tc.method, s.URL, body)
			if tc.header != "" {
				req.Header.Set(tc.header, "x")
			}
			req.Host = tc.host
			resp, err := c.Do(req)
			if err == nil {
				resp.Body.Close()
				t.Fatal("sent")
			}
			if !errors.Is(err, ErrRequest) && !errors.Is(err, ErrTooLarge) {
				t.Fatalf("err = %v", err)
			}
		})
	}
}

func TestRoundTripperChecksEveryRequest(t *testing.T) {
	s := serve(t, func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok") })
	hc := &http.Client{Transport: New(Policy{}).RoundTripper()}
	if _, err := hc.Get(s.URL); !errors.Is(err, ErrPrivateAddress) {
		t.Fatalf("loopback through the round tripper: %v", err)
	}
	hc = &http.Client{Transport: New(Policy{Private: allowPrivate(t, s.URL), MaxResponseBytes: 1}).RoundTripper()}
	if _, err := hc.Get(s.URL); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("cap through the round tripper: %v", err)
	}
}

// ParseOrigin is OriginOf of a string: an origin or a URL ("https://Example.COM.:443/x" is
// "https://example.com"). A URL's path, query and fragment are dropped; user information is
// refused, since it would make two spellings of one origin differ.
func ParseOrigin(s string) (Origin, error) {
	u, err := url.Parse(s)
	if err != nil {
		return Origin{}, fmt.Errorf("%w: %q: %v", ErrBadOrigin, s, err)
	}
	return OriginOf(u)
}

// A negative Timeout leaves a stream open past HeaderTimeout, bounded by its context only.
func TestStreamWithoutDeadline(t *testing.T) {
	s := serve(t, func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(200)
		w.(http.Flusher).Flush()
		time.Sleep(150 * time.Millisecond)
		io.WriteString(w, "late")
	})
	c := New(Policy{Private: allowPrivate(t, s.URL), Timeout: -1, HeaderTimeout: 50 * time.Millisecond})
	defer c.Close()
	resp, err := c.Get(context.Background(), s.URL, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil || string(b) != "late" {
		t.Fatalf("body = %q, %v", b, err)
	}
}

// HTTPClient sends through Do: a library's requests follow redirects hop by hop, headers
// injected for the exact origin only.
func TestHTTPClientGoesThroughDo(t *testing.T) {
	var got []string
	other := serve(t, func(w http.ResponseWriter, r *http.Request) {
		got = append(got, "other:"+r.Header.Get("Authorization"))
		io.WriteString(w, "ok")
	})
	first := serve(t, func(w http.ResponseWriter, r *http.Request) {
		got = append(got, "first:"+r.Header.Get("Authorization"))
		http.Redirect(w, r, other.URL+"/x", http.StatusTemporaryRedirect)
	})
	firstO, _ := ParseOrigin(first.URL)
	c := New(Policy{Private: allowPrivate(t, first.URL, other.URL), Header: func(o Origin) http.Header {
		if o == firstO {
			return http.Header{"Authorization": {"Bearer s3cret"}}
		}
		return nil
	}})
	defer c.Close()
	resp, err := c.HTTPClient().Post(first.URL, "application/json", strings.NewReader("{}"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if strings.Join(got, ",") != "first:Bearer s3cret,other:" {
		t.Fatalf("hops = %v", got)
	}
}
