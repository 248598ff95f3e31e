package fetchproxy

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/cwx-dev/cwx/core/config"
	"github.com/cwx-dev/cwx/core/errdefs"
	"github.com/cwx-dev/cwx/core/protocol"
)

const secret = "s3cr3t-token-4711"

// syncBuffer is a log sink safe for the proxy's goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// rig is a proxy, one fake caller and what they log.
type rig struct {
	t      *testing.T
	p      *Proxy
	c      Caller
	logs   *syncBuffer
	frames []string // every answer and error, as JSON, for the token check
	cancel context.CancelFunc
	mu     sync.Mutex
	nextID int
}

func newRig(t *testing.T, g config.Grants, o Options) *rig {
	t.Helper()
	t.Setenv("CWX_TEST_FETCH_TOKEN", secret)
	logs := &syncBuffer{}
	o.Logger = hclog.New(&hclog.LoggerOptions{Output: logs, Level: hclog.Trace})
	p := New(o)
	ctx, cancel := context.WithCancel(context.Background())
	r := &rig{t: t, p: p, logs: logs, cancel: cancel,
		c: Caller{Host: protocol.HostKey{Tier: protocol.TierPlugin, Group: "acme"}, Generation: 3,
			Owner: protocol.OwnerRef{PluginID: "acme", Generation: 1, OwnerToken: "tok"}, Context: ctx, Grants: g}}
	t.Cleanup(func() {
		p.Close()
		cancel()
		r.checkNoSecret()
	})
	return r
}

func (r *rig) id() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.nextID++
	return fmt.Sprintf("r%d", r.nextID)
}

func (r *rig) serve(ctx context.Context, method string, v any) (any, error) {
	res, err := r.p.Serve(ctx, r.c, &protocol.Message{Kind: protocol.KindRequest, Method: method, Value: v})
	b, _ := json.Marshal(res)
	r.mu.Lock()
	r.frames = append(r.frames, string(b))
	if err != nil {
		eb, _ := json.Marshal(err)
		r.frames = append(r.frames, err.Error(), string(eb))
	}
	r.mu.Unlock()
	return res, err
}

func (r *rig) fetch(ctx context.Context, v *protocol.NetFetchParams) (protocol.NetResponseHead, error) {
	v.Owner = r.c.Owner
	if v.RequestID == "" {
		v.RequestID = r.id()
	}
	if v.Method == "" {
		v.Method = "GET"
	}
	res, err := r.serve(ctx, protocol.MethodNetFetch, v)
	if err != nil {
		return protocol.NetResponseHead{}, err
	}
	return res.(protocol.NetResponseHead), nil
}

// readAll pulls id's body to its end.
func (r *rig) readAll(id string, max int) ([]byte, error) {
	var out []byte
	for {
		res, err := r.serve(context.Background(), protocol.MethodNetRead, &protocol.NetReadParams{Owner: r.c.Owner, RequestID: id, MaxBytes: max})
		if err != nil {
			return out, err
		}
		wa := res.(protocol.WithAttachment)
		out = append(out, wa.Data...)
		if wa.Result.(protocol.NetChunk).EOF {
			return out, nil
		}
	}
}

func (r *rig) checkNoSecret() {
	r.t.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, f := range r.frames {
		if strings.Contains(f, secret) {
			r.t.Errorf("the token is in a frame or an error: %s", f)
		}
	}
	if strings.Contains(r.logs.String(), secret) {
		r.t.Errorf("the token is in the log:\n%s", r.logs.String())
	}
}

// reasonOf is err's NetErrorData reason and its code.
func netError(t *testing.T, err error) (int, protocol.NetErrorData, string) {
	t.Helper()
	var re *protocol.RPCError
	if !errors.As(err, &re) {
		t.Fatalf("err = %v (%T), want an RPCError", err, err)
	}
	var d protocol.NetErrorData
	if err := json.Unmarshal(re.Data, &d); err != nil {
		t.Fatalf("data %s: %v", re.Data, err)
	}
	return re.Code, d, re.Message
}

func wantReason(t *testing.T, err error, code int, reason string, msgHas ...string) {
	t.Helper()
	c, d, msg := netError(t, err)
	if c != code || d.Reason != reason {
		t.Fatalf("code %d reason %q (%s), want %d %q", c, d.Reason, msg, code, reason)
	}
	for _, s := range msgHas {
		if !strings.Contains(msg, s) {
			t.Fatalf("message %q does not say %q", msg, s)
		}
	}
	if strings.Contains(msg, "/secret-path") || strings.Contains(msg, "q=hidden") {
		t.Fatalf("message %q names the path or the query", msg)
	}
}

func server(t *testing.T, h http.HandlerFunc) *httptest.Server {
	t.Helper()
	s := httptest.NewServer(h)
	t.Cleanup(s.Close)
	return s
}

// grant is network (and network_private) for the origins, with the token header for the
// first.
func grant(origins ...string) config.Grants {
	g := config.Grants{Network: origins, Private: origins}
	if len(origins) > 0 {
		g.Headers = map[string]map[string]string{origins[0]: {"Authorization": "Bearer ${env:CWX_TEST_FETCH_TOKEN}"}}
	}
	return g
}

func TestGrantedOriginGetsTheInjectedHeader(t *testing.T) {
	s := server(t, func(w http.ResponseWriter, req *http.Request) {
		w.Header().Set("Authorization", "echoed "+req.Header.Get("Authorization")) // a server that sets it back
		w.Header().Set("X-Seen", fmt.Sprint(req.Header.Get("Authorization") == "Bearer "+secret))
		fmt.Fprintf(w, "hello %s", req.Header.Get("X-Plugin"))
	})
	r := newRig(t, grant(s.URL), Options{})
	h, err := r.fetch(context.Background(), &protocol.NetFetchParams{RequestID: "a", URL: s.URL + "/secret-path?q=hidden",
		Headers: []protocol.HTTPHeader{{Name: "X-Plugin", Value: "p"}}})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, x := range h.Headers {
		got[x.Name] = x.Value
	}
	if h.Status != 200 || got["X-Seen"] != "true" {
		t.Fatalf("head %+v: the injected header did not arrive", h)
	}
	if _, ok := got["Authorization"]; ok {
		t.Fatal("a response header named like an injected one reached the host")
	}
	body, err := r.readAll("a", 0)
	if err != nil || string(body) != "hello p" {
		t.Fatalf("body %q, %v", body, err)
	}
	if _, err := r.serve(context.Background(), protocol.MethodNetRead, &protocol.NetReadParams{Owner: r.c.Owner, RequestID: "a"}); err == nil {
		t.Fatal("the exchange is still open after its EOF")
	} else {
		wantReason(t, err, protocol.CodeRefused, protocol.NetReasonUnknown)
	}
	log := r.logs.String()
	if !strings.Contains(log, "fetch GET "+s.URL+"/secret-path: 200, 7 bytes received, 0 sent") || strings.Contains(log, "q=hidden") {
		t.Fatalf("log line:\n%s", log)
	}
}

func TestRefusals(t *testing.T) {
	granted := server(t, func(w http.ResponseWriter, req *http.Request) {
		switch req.URL.Path {
		case "/away":
			http.Redirect(w, req, "http://127.0.0.1:1/secret-path?q=hidden", http.StatusFound)
		case "/big":
			w.Header().Set("Content-Length", "5000")
			w.Write(bytes.Repeat([]byte("x"), 5000))
		default:
			io.WriteString(w, "ok")
		}
	})
	localhost := strings.Replace(granted.URL, "127.0.0.1", "localhost", 1)
	for _, tc := range []struct {
		name   string
		g      config.Grants
		req    protocol.NetFetchParams
		code   int
		reason string
		says   []string
	}{
		{"no network grant", config.Grants{}, protocol.NetFetchParams{URL: granted.URL}, protocol.CodeRefused, protocol.NetReasonNotGranted,
			[]string{`has no network grant`, `add network = ["` + granted.URL + `"] under [plugins."acme"] in config.toml`}},
		{"an ungranted origin", grant("https://api.example.com"), protocol.NetFetchParams{URL: granted.URL + "/secret-path?q=hidden"}, protocol.CodeRefused, protocol.NetReasonNotGranted,
			[]string{"fetch to " + granted.URL + " refused", "to network under [plugins.\"acme\"]"}},
		{"a redirect to an ungranted origin", grant(granted.URL), protocol.NetFetchParams{URL: granted.URL + "/away"}, protocol.CodeRefused, protocol.NetReasonRedirect,
			[]string{"redirected to http://127.0.0.1:1"}},
		{"a name resolving to loopback without network_private", config.Grants{Network: []string{localhost}, Private: nil}, protocol.NetFetchParams{URL: localhost + "/secret-path"},
			protocol.CodeRefused, protocol.NetReasonPrivate, []string{"private address", "network_private"}},
		{"loopback granted for the literal, not the name", config.Grants{Network: []string{localhost, granted.URL}, Private: []string{granted.URL}}, protocol.NetFetchParams{URL: localhost},
			protocol.CodeRefused, protocol.NetReasonPrivate, []string{"fetch to " + localhost}},
		{"an oversize response", grant(granted.URL), protocol.NetFetchParams{URL: granted.URL + "/big"}, protocol.CodeRefused, protocol.NetReasonTooLarge, []string{"over"}},
		{"TRACE", grant(granted.URL), protocol.NetFetchParams{URL: granted.URL, Method: "TRACE"}, protocol.CodeRefused, protocol.NetReasonRequest, []string{"TRACE"}},
		{"CONNECT", grant(granted.URL), protocol.NetFetchParams{URL: granted.URL, Method: "connect"}, protocol.CodeRefused, protocol.NetReasonRequest, []string{"CONNECT"}},
		{"the plugin's own Authorization where one is configured", grant(granted.URL),
			protocol.NetFetchParams{URL: granted.URL, Headers: []protocol.HTTPHeader{{Name: "authorization", Value: "x"}}}, protocol.CodeRefused, protocol.NetReasonRequest, []string{"Authorization is configured"}},
		{"a Proxy- header", grant(granted.URL), protocol.NetFetchParams{URL: granted.URL, Headers: []protocol.HTTPHeader{{Name: "Proxy-Authorization", Value: "x"}}},
			protocol.CodeRefused, protocol.NetReasonRequest, []string{"Proxy-Authorization"}},
		{"a Host header", grant(granted.URL), protocol.NetFetchParams{URL: granted.URL, Headers: []protocol.HTTPHeader{{Name: "Host", Value: "evil"}}},
			protocol.CodeRefused, protocol.NetReasonRequest, []string{"Host"}},
		{"a hop-by-hop header", grant(granted.URL), protocol.NetFetchParams{URL: granted.URL, Headers: []protocol.HTTPHeader{{Name: "Transfer-Encoding", Value: "chunked"}}},
			protocol.CodeRefused, protocol.NetReasonRequest, []string{"Transfer-Encoding"}},
		{"user information", grant(granted.URL), protocol.NetFetchParams{URL: strings.Replace(granted.URL, "//", "//u:"+secret+"@", 1)},
			protocol.CodeRefused, protocol.NetReasonRequest, []string{"user information"}},
		{"a bad request_id", grant(granted.URL), protocol.NetFetchParams{URL: granted.URL, RequestID: "a b"}, protocol.CodeInvalidParams, protocol.NetReasonRequest, []string{"request_id"}},
		{"a connection refused", grant("http://127.0.0.1:1"), protocol.NetFetchParams{URL: "http://127.0.0.1:1/secret-path?q=hidden"}, protocol.CodeExecutionFailed, protocol.NetReasonNetwork,
			[]string{"connection was refused"}},
		{"a name that does not resolve", grant("http://does-not-exist.invalid"), protocol.NetFetchParams{URL: "http://does-not-exist.invalid/secret-path?q=hidden"},
			protocol.CodeExecutionFailed, protocol.NetReasonNetwork, []string{"fetch to http://does-not-exist.invalid failed"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newRig(t, tc.g, Options{MaxResponseBytes: 1000})
			req := tc.req
			_, err := r.fetch(context.Background(), &req)
			if err == nil {
				t.Fatal("the request went through")
			}
			wantReason(t, err, tc.code, tc.reason, tc.says...)
			if !strings.Contains(r.logs.String(), "refused") && !strings.Contains(r.logs.String(), "failed") {
				t.Fatalf("no log line for the refusal:\n%s", r.logs.String())
			}
		})
	}
}

func TestHTTPSToHTTPRefused(t *testing.T) {
	plain := server(t, func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, "plain") })
	tlsSrv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if req.Header.Get("Authorization") != "Bearer "+secret {
			w.WriteHeader(401)
			return
		}
		http.Redirect(w, req, plain.URL+"/x", http.StatusFound)
	}))
	defer tlsSrv.Close()
	r := newRig(t, grant(tlsSrv.URL, plain.URL), Options{RootCAs: tlsSrv.Client().Transport.(*http.Transport).TLSClientConfig.RootCAs})
	_, err := r.fetch(context.Background(), &protocol.NetFetchParams{URL: tlsSrv.URL + "/secret-path"})
	wantReason(t, err, protocol.CodeRefused, protocol.NetReasonRedirect, "from https to http")

	t.Run("an unknown authority", func(t *testing.T) {
		r := newRig(t, grant(tlsSrv.URL), Options{})
		_, err := r.fetch(context.Background(), &protocol.NetFetchParams{URL: tlsSrv.URL + "/secret-path?q=hidden"})
		wantReason(t, err, protocol.CodeExecutionFailed, protocol.NetReasonNetwork, "TLS")
	})
	t.Run("a 401 is an answer", func(t *testing.T) {
		r := newRig(t, config.Grants{Network: []string{tlsSrv.URL}, Private: []string{tlsSrv.URL}},
			Options{RootCAs: tlsSrv.Client().Transport.(*http.Transport).TLSClientConfig.RootCAs})
		h, err := r.fetch(context.Background(), &protocol.NetFetchParams{RequestID: "u", URL: tlsSrv.URL})
		if err != nil || h.Status != 401 {
			t.Fatalf("head %+v, %v", h, err)
		}
		if _, err := r.readAll("u", 0); err != nil {
			t.Fatal(err)
		}
	})
}

func TestDeadlines(t *testing.T) {
	release := make(chan struct{})
	slow := server(t, func(w http.ResponseWriter, req *http.Request) {
		select {
		case <-release:
		case <-req.Context().Done():
		}
	})
	defer close(release)
	t.Run("outside an invocation: the default", func(t *testing.T) {
		r := newRig(t, grant(slow.URL), Options{Timeout: 150 * time.Millisecond})
		_, err := r.fetch(context.Background(), &protocol.NetFetchParams{URL: slow.URL + "/secret-path"})
		wantReason(t, err, protocol.CodeRefused, protocol.NetReasonDeadline, "outside a tool call")
	})
	t.Run("inside one: its deadline", func(t *testing.T) {
		var saw string
		inv := func(ctx context.Context, c Caller, ticket string) (context.Context, func(), error) {
			if ticket != "live" {
				return nil, nil, errors.New("no such invocation")
			}
			saw = c.Owner.PluginID
			ctx, cancel := context.WithTimeoutCause(ctx, 150*time.Millisecond, errdefs.ErrTimeout)
			return ctx, cancel, nil
		}
		r := newRig(t, grant(slow.URL), Options{Invocation: inv, Timeout: time.Hour})
		_, err := r.fetch(context.Background(), &protocol.NetFetchParams{URL: slow.URL, Ticket: "live"})
		wantReason(t, err, protocol.CodeRefused, protocol.NetReasonDeadline, "tool call or command")
		if saw != "acme" {
			t.Fatalf("the invocation was asked for %q", saw)
		}
		_, err = r.fetch(context.Background(), &protocol.NetFetchParams{URL: slow.URL, Ticket: "stale"})
		wantReason(t, err, protocol.CodeRefused, protocol.NetReasonRequest, "ticket is not a live invocation's")
	})
}

func TestCancel(t *testing.T) {
	slow := server(t, func(w http.ResponseWriter, req *http.Request) {
		if req.URL.Path == "/body" {
			w.WriteHeader(200)
			w.(http.Flusher).Flush()
		}
		<-req.Context().Done()
	})
	r := newRig(t, grant(slow.URL), Options{})
	t.Run("a pending net/fetch", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(100*time.Millisecond, cancel)
		_, err := r.fetch(ctx, &protocol.NetFetchParams{URL: slow.URL})
		wantReason(t, err, protocol.CodeCancelled, protocol.NetReasonCancelled, "cancelled")
	})
	t.Run("a pending net/read", func(t *testing.T) {
		if _, err := r.fetch(context.Background(), &protocol.NetFetchParams{RequestID: "b", URL: slow.URL + "/body"}); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(100*time.Millisecond, cancel)
		_, err := r.serve(ctx, protocol.MethodNetRead, &protocol.NetReadParams{Owner: r.c.Owner, RequestID: "b"})
		wantReason(t, err, protocol.CodeCancelled, protocol.NetReasonCancelled)
		if r.p.lookup(r.c, "b") != nil {
			t.Fatal("the cancelled exchange is still open")
		}
	})
	t.Run("net/close and the owner's end", func(t *testing.T) {
		if _, err := r.fetch(context.Background(), &protocol.NetFetchParams{RequestID: "c", URL: slow.URL + "/body"}); err != nil {
			t.Fatal(err)
		}
		if _, err := r.serve(context.Background(), protocol.MethodNetClose, &protocol.NetCloseParams{Owner: r.c.Owner, RequestID: "c"}); err != nil {
			t.Fatal(err)
		}
		if r.p.lookup(r.c, "c") != nil {
			t.Fatal("closed, still open")
		}
		if _, err := r.fetch(context.Background(), &protocol.NetFetchParams{RequestID: "d", URL: slow.URL + "/body"}); err != nil {
			t.Fatal(err)
		}
		r.cancel() // the owner ends
		deadline := time.Now().Add(5 * time.Second)
		for r.p.lookup(r.c, "d") != nil {
			if time.Now().After(deadline) {
				t.Fatal("the owner ended, its exchange is still open")
			}
			time.Sleep(10 * time.Millisecond)
		}
	})
}

func TestStreamedUpload(t *testing.T) {
	s := server(t, func(w http.ResponseWriter, req *http.Request) {
		h := sha256.New()
		n, _ := io.Copy(h, req.Body)
		fmt.Fprintf(w, "%d %s %s", n, hex.EncodeToString(h.Sum(nil)), req.Header.Get("Content-Type"))
	})
	r := newRig(t, grant(s.URL), Options{MaxRequestBytes: 3 << 20})
	parts := [][]byte{bytes.Repeat([]byte("a"), 1000), bytes.Repeat([]byte("b"), 1<<20), []byte("tail")}
	all := bytes.Join(parts, nil)
	type res struct {
		h   protocol.NetResponseHead
		err error
	}
	done := make(chan res, 1)
	go func() {
		h, err := r.fetch(context.Background(), &protocol.NetFetchParams{RequestID: "up", Method: "POST", URL: s.URL, BodyStreamed: true,
			Body: base64.StdEncoding.EncodeToString(parts[0]), Headers: []protocol.HTTPHeader{{Name: "Content-Type", Value: "application/pdf"}}})
		done <- res{h, err}
	}()
	for r.p.lookup(r.c, "up") == nil {
		time.Sleep(time.Millisecond)
	}
	for i, p := range parts[1:] {
		if _, err := r.serve(context.Background(), protocol.MethodNetWrite, &protocol.NetWriteParams{Owner: r.c.Owner, RequestID: "up",
			Data: base64.StdEncoding.EncodeToString(p), End: i == len(parts)-2}); err != nil {
			t.Fatal(err)
		}
	}
	got := <-done
	if got.err != nil || got.h.Status != 200 {
		t.Fatalf("%+v %v", got.h, got.err)
	}
	body, err := r.readAll("up", 100)
	sum := sha256.Sum256(all)
	if want := fmt.Sprintf("%d %s application/pdf", len(all), hex.EncodeToString(sum[:])); err != nil || string(body) != want {
		t.Fatalf("body %q, want %q (%v)", body, want, err)
	}
	if !strings.Contains(r.logs.String(), fmt.Sprintf("sent %d", 0)) && !strings.Contains(r.logs.String(), fmt.Sprintf("%d sent", len(all))) {
		t.Fatalf("the log does not count the bytes sent:\n%s", r.logs.String())
	}

	t.Run("over the cap", func(t *testing.T) {
		r := newRig(t, grant(s.URL), Options{MaxRequestBytes: 1500})
		done := make(chan error, 1)
		go func() {
			_, err := r.fetch(context.Background(), &protocol.NetFetchParams{RequestID: "big", Method: "POST", URL: s.URL, BodyStreamed: true,
				Body: base64.StdEncoding.EncodeToString(parts[0])})
			done <- err
		}()
		for r.p.lookup(r.c, "big") == nil {
			time.Sleep(time.Millisecond)
		}
		_, err := r.serve(context.Background(), protocol.MethodNetWrite, &protocol.NetWriteParams{Owner: r.c.Owner, RequestID: "big", Data: base64.StdEncoding.EncodeToString(parts[0])})
		wantReason(t, err, protocol.CodeRefused, protocol.NetReasonTooLarge)
		if err := <-done; err == nil {
			t.Fatal("the oversize upload was answered")
		}
	})
}

func TestOversizeBodyWithoutLength(t *testing.T) {
	s := server(t, func(w http.ResponseWriter, req *http.Request) {
		for range 10 {
			w.Write(bytes.Repeat([]byte("y"), 500))
			w.(http.Flusher).Flush()
		}
	})
	r := newRig(t, grant(s.URL), Options{MaxResponseBytes: 2000})
	if _, err := r.fetch(context.Background(), &protocol.NetFetchParams{RequestID: "z", URL: s.URL}); err != nil {
		t.Fatal(err)
	}
	_, err := r.readAll("z", 0)
	wantReason(t, err, protocol.CodeRefused, protocol.NetReasonTooLarge)
}

func TestLimits(t *testing.T) {
	block := make(chan struct{})
	s := server(t, func(w http.ResponseWriter, req *http.Request) {
		w.WriteHeader(200)
		w.(http.Flusher).Flush()
		select {
		case <-block:
		case <-req.Context().Done():
		}
	})
	defer close(block)
	t.Run("open exchanges per owner", func(t *testing.T) {
		r := newRig(t, grant(s.URL), Options{Rate: 1000, Burst: 1000})
		for i := range MaxOpen {
			if _, err := r.fetch(context.Background(), &protocol.NetFetchParams{RequestID: fmt.Sprint("o", i), URL: s.URL}); err != nil {
				t.Fatal(err)
			}
		}
		_, err := r.fetch(context.Background(), &protocol.NetFetchParams{URL: s.URL})
		wantReason(t, err, protocol.CodeRefused, protocol.NetReasonRateLimit, "requests open")
		_, err = r.fetch(context.Background(), &protocol.NetFetchParams{RequestID: "o1", URL: s.URL})
		wantReason(t, err, protocol.CodeRefused, protocol.NetReasonRequest, "already open")
		r.p.HostEnded(r.c.Host, r.c.Generation)
		if r.p.lookup(r.c, "o1") != nil {
			t.Fatal("the host ended, its exchanges are still open")
		}
	})
	t.Run("the rate outside an invocation", func(t *testing.T) {
		r := newRig(t, grant(s.URL), Options{Rate: 0.001, Burst: 2})
		for range 2 {
			id := r.id()
			if _, err := r.fetch(context.Background(), &protocol.NetFetchParams{RequestID: id, URL: s.URL}); err != nil {
				t.Fatal(err)
			}
			r.serve(context.Background(), protocol.MethodNetClose, &protocol.NetCloseParams{Owner: r.c.Owner, RequestID: id})
		}
		_, err := r.fetch(context.Background(), &protocol.NetFetchParams{URL: s.URL})
		wantReason(t, err, protocol.CodeRefused, protocol.NetReasonRateLimit, "slow down")
	})
	t.Run("unknown ids", func(t *testing.T) {
		r := newRig(t, grant(s.URL), Options{})
		_, err := r.serve(context.Background(), protocol.MethodNetWrite, &protocol.NetWriteParams{Owner: r.c.Owner, RequestID: "nope"})
		wantReason(t, err, protocol.CodeRefused, protocol.NetReasonUnknown)
		if _, err := r.serve(context.Background(), protocol.MethodNetClose, &protocol.NetCloseParams{Owner: r.c.Owner, RequestID: "nope"}); err != nil {
			t.Fatalf("closing an unknown exchange: %v", err)
		}
	})
	t.Run("an unset variable in a configured header", func(t *testing.T) {
		g := grant(s.URL)
		g.Headers[s.URL]["X-Key"] = "${env:CWX_TEST_FETCH_NOT_SET}"
		r := newRig(t, g, Options{})
		_, err := r.fetch(context.Background(), &protocol.NetFetchParams{URL: s.URL})
		wantReason(t, err, protocol.CodeRefused, protocol.NetReasonRequest, "CWX_TEST_FETCH_NOT_SET")
	})
}

// TestGrantsChangeMidway: a changed grant applies to the next request; an open exchange
// finishes under the grant it started with.
func TestGrantsChangeMidway(t *testing.T) {
	s := server(t, func(w http.ResponseWriter, req *http.Request) {
		io.WriteString(w, fmt.Sprint(req.Header.Get("Authorization") != ""))
	})
	r := newRig(t, grant(s.URL), Options{})
	if _, err := r.fetch(context.Background(), &protocol.NetFetchParams{RequestID: "before", URL: s.URL}); err != nil {
		t.Fatal(err)
	}
	r.c.Grants = config.Grants{Network: []string{s.URL}, Private: []string{s.URL}} // the header removed
	if _, err := r.fetch(context.Background(), &protocol.NetFetchParams{RequestID: "after", URL: s.URL}); err != nil {
		t.Fatal(err)
	}
	for id, want := range map[string]string{"before": "true", "after": "false"} {
		if b, err := r.readAll(id, 0); err != nil || string(b) != want {
			t.Fatalf("%s: %q, %v; want %s", id, b, err, want)
		}
	}
	r.c.Grants = config.Grants{}
	_, err := r.fetch(context.Background(), &protocol.NetFetchParams{URL: s.URL})
	wantReason(t, err, protocol.CodeRefused, protocol.NetReasonNotGranted)
}

// TestWriteOvertakingItsFetch: the host sends net/write while its net/fetch is pending, and
// the core may handle the write first; it waits for the exchange instead of refusing it.
func TestWriteOvertakingItsFetch(t *testing.T) {
	s := server(t, func(w http.ResponseWriter, req *http.Request) {
		b, _ := io.ReadAll(req.Body)
		w.Write(b)
	})
	r := newRig(t, grant(s.URL), Options{})
	wrote := make(chan error, 1)
	go func() {
		_, err := r.serve(context.Background(), protocol.MethodNetWrite, &protocol.NetWriteParams{Owner: r.c.Owner, RequestID: "early",
			Data: base64.StdEncoding.EncodeToString([]byte(" world")), End: true})
		wrote <- err
	}()
	time.Sleep(100 * time.Millisecond)
	if _, err := r.fetch(context.Background(), &protocol.NetFetchParams{RequestID: "early", Method: "POST", URL: s.URL, BodyStreamed: true,
		Body: base64.StdEncoding.EncodeToString([]byte("hello"))}); err != nil {
		t.Fatal(err)
	}
	if err := <-wrote; err != nil {
		t.Fatalf("the early net/write: %v", err)
	}
	if b, err := r.readAll("early", 0); err != nil || string(b) != "hello world" {
		t.Fatalf("%q, %v", b, err)
	}
}

// TestReadThatFillsMaxBytesSaysTheEnd: a net/read that takes all the body had up to
// max_bytes waits briefly for what follows, so a body that ends there is answered with eof
// in that read, and one that goes on is not.
func TestReadThatFillsMaxBytesSaysTheEnd(t *testing.T) {
	s := server(t, func(w http.ResponseWriter, req *http.Request) { fmt.Fprint(w, req.URL.Query().Get("body")) })
	r := newRig(t, grant(s.URL), Options{linger: 10 * time.Second}) // what follows comes well within it
	for _, tc := range []struct {
		body  string
		reads []string
	}{
		{"hello", []string{"hello"}},
		{"helloworld", []string{"hello", "world"}},
		{"hello!", []string{"hello", "!"}},
	} {
		id := r.id()
		if _, err := r.fetch(context.Background(), &protocol.NetFetchParams{RequestID: id, URL: s.URL + "/?body=" + tc.body}); err != nil {
			t.Fatal(err)
		}
		var got []string
		for {
			res, err := r.serve(context.Background(), protocol.MethodNetRead, &protocol.NetReadParams{Owner: r.c.Owner, RequestID: id, MaxBytes: 5})
			if err != nil {
				t.Fatal(err)
			}
			wa := res.(protocol.WithAttachment)
			got = append(got, string(wa.Data))
			if wa.Result.(protocol.NetChunk).EOF {
				break
			}
		}
		if !slices.Equal(got, tc.reads) {
			t.Errorf("body %q read as %q, want %q (the last with eof)", tc.body, got, tc.reads)
		}
	}
}

// TestReadAheadIsBounded: a body nobody reads stops the pump at pumpMax bytes, and so the
// server's writes well before its end; each net/read makes room for as much again.
func TestReadAheadIsBounded(t *testing.T) {
	const total = 64 << 20
	var written atomic.Int64
	s := server(t, func(w http.ResponseWriter, _ *http.Request) {
		piece := bytes.Repeat([]byte("b"), 64<<10)
		for written.Load() < total {
			n, err := w.Write(piece)
			written.Add(int64(n))
			if err != nil {
				return
			}
		}
	})
	r := newRig(t, grant(s.URL), Options{MaxResponseBytes: 2 * total})
	if _, err := r.fetch(context.Background(), &protocol.NetFetchParams{RequestID: "big", URL: s.URL}); err != nil {
		t.Fatal(err)
	}
	ex := r.p.lookup(r.c, "big")
	buffered := func() int {
		ex.bodyMu.Lock()
		defer ex.bodyMu.Unlock()
		return len(ex.body)
	}
	waitFull := func() {
		t.Helper()
		for deadline := time.Now().Add(10 * time.Second); buffered() < pumpMax; time.Sleep(5 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("the pump holds %d bytes, never %d", buffered(), pumpMax)
			}
		}
	}
	waitFull()
	time.Sleep(100 * time.Millisecond) // were it to read on, it would now
	if n := buffered(); n != pumpMax {
		t.Fatalf("the pump holds %d bytes, want at most %d", n, pumpMax)
	}
	if w := written.Load(); w > total/4 {
		t.Fatalf("the server wrote %d of %d bytes with no read: the read-ahead is not bounded", w, total)
	}
	res, err := r.serve(context.Background(), protocol.MethodNetRead, &protocol.NetReadParams{Owner: r.c.Owner, RequestID: "big"})
	if err != nil {
		t.Fatal(err)
	}
	if wa := res.(protocol.WithAttachment); len(wa.Data) != protocol.NetMaxChunk || wa.Result.(protocol.NetChunk).EOF {
		t.Fatalf("read %d bytes (eof %v), want %d", len(wa.Data), wa.Result.(protocol.NetChunk).EOF, protocol.NetMaxChunk)
	}
	waitFull()
	if n := buffered(); n != pumpMax {
		t.Fatalf("after a read the pump holds %d bytes, want %d", n, pumpMax)
	}
	if _, err := r.serve(context.Background(), protocol.MethodNetClose, &protocol.NetCloseParams{Owner: r.c.Owner, RequestID: "big"}); err != nil {
		t.Fatal(err)
	}
}

// TestHeadCarriesTheFirstBytes: a net/fetch with max_bytes gets the body's first bytes with
// the head, the whole of a small body with eof (the exchange then over), what a stream has
// sent so far without it, and nothing from a server that has sent only its head.
func TestHeadCarriesTheFirstBytes(t *testing.T) {
	s := server(t, func(w http.ResponseWriter, req *http.Request) {
		switch req.URL.Path {
		case "/small":
			fmt.Fprint(w, "small body")
		case "/stream":
			fmt.Fprint(w, "first event")
			w.(http.Flusher).Flush()
			<-req.Context().Done()
		case "/quiet":
			w.(http.Flusher).Flush()
			<-req.Context().Done()
		}
	})
	const linger = 300 * time.Millisecond // a loaded machine still brings a small body within it
	r := newRig(t, grant(s.URL), Options{linger: linger})
	fetch := func(id, path string) (protocol.NetResponseHead, []byte) {
		t.Helper()
		res, err := r.serve(context.Background(), protocol.MethodNetFetch, &protocol.NetFetchParams{Owner: r.c.Owner, RequestID: id, Method: "GET", URL: s.URL + path, MaxBytes: 1 << 20})
		if err != nil {
			t.Fatal(err)
		}
		if wa, ok := res.(protocol.WithAttachment); ok {
			return wa.Result.(protocol.NetResponseHead), wa.Data
		}
		return res.(protocol.NetResponseHead), nil
	}
	h, body := fetch("small", "/small")
	if h.Status != 200 || !h.EOF || string(body) != "small body" {
		t.Fatalf("head %+v with %q, want 200, eof and the body", h, body)
	}
	if r.p.lookup(r.c, "small") != nil {
		t.Fatal("the exchange is still open after the head said eof")
	}
	if !strings.Contains(r.logs.String(), "200, 10 bytes received") {
		t.Fatalf("no log line of the exchange:\n%s", r.logs.String())
	}

	h, body = fetch("stream", "/stream")
	if h.EOF || string(body) != "first event" {
		t.Fatalf("head %+v with %q, want the first event without eof", h, body)
	}
	start := time.Now()
	h, body = fetch("quiet", "/quiet")
	if took := time.Since(start); h.EOF || body != nil || took < linger || took > linger+5*time.Second {
		t.Fatalf("head %+v with %q after %s, want it alone once the wait for a first byte (%s) ended", h, body, took, linger)
	}
	for _, id := range []string{"stream", "quiet"} {
		if r.p.lookup(r.c, id) == nil {
			t.Fatalf("exchange %s is no longer open", id)
		}
		if _, err := r.serve(context.Background(), protocol.MethodNetClose, &protocol.NetCloseParams{Owner: r.c.Owner, RequestID: id}); err != nil {
			t.Fatal(err)
		}
	}
}
