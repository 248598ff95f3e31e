package mcpserve

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cwx-dev/cwx/core"
)

// bearer adds a token to every request of the client.
type bearer struct {
	token string
	next  http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.next.RoundTrip(r)
}

// TestHTTPRefusals: without the token, with another token or from another Origin a request
// is refused before the MCP handler; with the token the SDK client lists the tools.
func TestHTTPRefusals(t *testing.T) {
	f := newFake()
	f.set([]core.ToolInfo{tool("t", "p")}, nil)
	srv := New(f, Options{})
	stop := srv.Watch(context.Background())
	defer stop()
	ts := httptest.NewUnstartedServer(nil)
	h, err := srv.HTTPHandler(ts.Listener.Addr().String(), HTTPOptions{Token: "s3cret", Origins: []string{"https://app.example"}})
	if err != nil {
		t.Fatal(err)
	}
	ts.Config.Handler = h
	ts.Start()
	defer ts.Close()
	body := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`
	cases := []struct {
		name, auth, origin string
		want               int
	}{
		{"no token", "", "", http.StatusUnauthorized},
		{"wrong token", "Bearer nope", "", http.StatusUnauthorized},
		{"token without the scheme", "s3cret", "", http.StatusUnauthorized},
		{"foreign origin", "Bearer s3cret", "http://evil.example", http.StatusForbidden},
		{"foreign origin, no token", "", "http://evil.example", http.StatusForbidden},
		{"loopback origin on another port", "Bearer s3cret", "http://127.0.0.1:1", http.StatusForbidden},
		{"own origin", "Bearer s3cret", ts.URL, http.StatusOK},
		{"allowed origin", "Bearer s3cret", "https://app.example", http.StatusOK},
		{"no origin", "Bearer s3cret", "", http.StatusOK},
	}
	for _, c := range cases {
		req, _ := http.NewRequest(http.MethodPost, ts.URL, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if c.auth != "" {
			req.Header.Set("Authorization", c.auth)
		}
		if c.origin != "" {
			req.Header.Set("Origin", c.origin)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_ = resp.Body.Close()
		if resp.StatusCode != c.want {
			t.Errorf("%s: status %d, want %d", c.name, resp.StatusCode, c.want)
		}
	}

	hc := &http.Client{Transport: bearer{"s3cret", http.DefaultTransport}}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil).Connect(context.Background(),
		&mcp.StreamableClientTransport{Endpoint: ts.URL, HTTPClient: hc, DisableStandaloneSSE: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cs.Close() }()
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil || len(res.Tools) != 1 || res.Tools[0].Name != "t" {
		t.Errorf("tools/list over HTTP: %v %+v", err, res)
	}
}

// TestLoopback decides which --http addresses need --allow-remote.
func TestLoopback(t *testing.T) {
	cases := map[string]bool{
		"127.0.0.1:8080": true, "127.0.0.2:1": true, "[::1]:8080": true, "localhost:9": true,
		"0.0.0.0:8080": false, ":8080": false, "192.168.1.2:80": false, "example.com:80": false, "127.0.0.1": false,
	}
	for addr, want := range cases {
		if got := Loopback(addr); got != want {
			t.Errorf("Loopback(%q) = %v, want %v", addr, got, want)
		}
	}
}
