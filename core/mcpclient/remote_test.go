package mcpclient

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cwx-dev/cwx/core/config"
	"github.com/cwx-dev/cwx/core/egress"
	"github.com/cwx-dev/cwx/core/errdefs"
	"github.com/cwx-dev/cwx/shared/testenv"
)

const testToken = "s3cret-token-4f1d"

// echoServer is a go-sdk server with one tool, echo, answering its text.
func echoServer() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "remote-test", Version: "1"}, nil)
	type in struct {
		Text string `json:"text"`
	}
	mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: "Echo the text."}, func(_ context.Context, _ *mcp.CallToolRequest, v in) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "echo:" + v.Text}}}, nil, nil
	})
	return s
}

// remoteSet serves h (behind a bearer check unless open) on loopback and returns a Set of
// one remote server "r" reaching it at path.
func remoteSet(t *testing.T, h http.Handler, transport, path string, edit func(*config.MCPServer)) (*Server, *httptest.Server, *testenv.Buffer, *atomic.Int32) {
	t.Helper()
	var unauthorized atomic.Int32
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer "+testToken {
			unauthorized.Add(1)
			w.Header().Set("WWW-Authenticate", `Bearer resource_metadata="`+"http://"+r.Host+`/.well-known/oauth-protected-resource"`)
			http.Error(w, "sign in", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(hs.Close)
	t.Setenv("CWX_TEST_REMOTE_TOKEN", testToken)
	cfg := config.MCPServer{Name: "r", Transport: transport, URL: hs.URL + path, Headers: map[string]string{"Authorization": "Bearer ${env:CWX_TEST_REMOTE_TOKEN}"},
		Approval: config.MCPApprovalAsk, TimeoutS: 30, MaxResultBytes: config.DefaultMCPResultBytes}
	if edit != nil {
		edit(&cfg)
	}
	logs := &testenv.Buffer{}
	set := NewSet(map[string]config.MCPServer{"r": cfg}, Options{Logger: hclog.New(&hclog.LoggerOptions{Output: logs, Level: hclog.Debug}), Workspace: t.TempDir()})
	t.Cleanup(set.Close)
	srv, _ := set.Server("r")
	return srv, hs, logs, &unauthorized
}

func TestRemoteStreamableHTTP(t *testing.T) {
	s := echoServer()
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil)
	srv, _, logs, _ := remoteSet(t, h, config.MCPHTTP, "/mcp", nil)
	if err := srv.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(toolNames(srv.Tools()), ","); got != "mcp_r_echo" {
		t.Fatalf("tools = %s", got)
	}
	if got := text(t, srv, "echo", `{"text":"hi"}`); got != "echo:hi" {
		t.Fatalf("echo = %q", got)
	}
	st := srv.Status()
	if st.Transport != config.MCPHTTP || !strings.HasSuffix(st.URL, "/mcp") || strings.Join(st.Headers, ",") != "Authorization" || st.Command != nil || st.PID != 0 {
		t.Fatalf("status = %+v", st)
	}
	if strings.Contains(logs.String(), testToken) {
		t.Fatalf("the token is in the log:\n%s", logs)
	}
}

func TestRemoteLegacySSE(t *testing.T) {
	s := echoServer()
	h := mcp.NewSSEHandler(func(*http.Request) *mcp.Server { return s }, nil)
	srv, _, _, _ := remoteSet(t, h, config.MCPSSE, "/sse", nil)
	if got := text(t, srv, "echo", `{"text":"old"}`); got != "echo:old" {
		t.Fatalf("echo = %q", got)
	}
}

// A server with only the legacy transport, configured as Streamable HTTP (the default), is
// reached by the spec's fallback: its 4xx to the initialize POST, then the SSE GET.
func TestRemoteFallsBackToLegacySSE(t *testing.T) {
	s := echoServer()
	h := mcp.NewSSEHandler(func(*http.Request) *mcp.Server { return s }, nil)
	srv, _, logs, _ := remoteSet(t, h, config.MCPHTTP, "/sse", nil)
	if got := text(t, srv, "echo", `{"text":"fallback"}`); got != "echo:fallback" {
		t.Fatalf("echo = %q", got)
	}
	if !strings.Contains(logs.String(), "trying the legacy SSE transport") {
		t.Fatalf("no fallback logged:\n%s", logs)
	}
}

// A redirect to the same origin keeps the headers; the server is reached one hop at a time.
func TestRemoteRedirectKeepsOriginHeaders(t *testing.T) {
	s := echoServer()
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil)
	mux := http.NewServeMux()
	mux.Handle("/moved", http.RedirectHandler("/mcp", http.StatusPermanentRedirect))
	mux.Handle("/mcp", h)
	srv, _, _, unauthorized := remoteSet(t, mux, config.MCPHTTP, "/moved", nil)
	if got := text(t, srv, "echo", `{"text":"hop"}`); got != "echo:hop" {
		t.Fatalf("echo = %q", got)
	}
	if n := unauthorized.Load(); n != 0 {
		t.Fatalf("%d requests came without the header", n)
	}
}

// A 401 asking for a sign-in is the named OAuth error, and the token is in no error text.
func TestRemoteOAuthRefusedByName(t *testing.T) {
	s := echoServer()
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil)
	srv, _, logs, _ := remoteSet(t, h, config.MCPHTTP, "/mcp", func(c *config.MCPServer) {
		c.Headers = map[string]string{"Authorization": "Bearer wrong-" + testToken}
	})
	err := srv.Start(context.Background())
	if err == nil || !strings.Contains(err.Error(), "OAuth is not supported; give a static header") || !errors.Is(err, errdefs.ErrNotAvailable) {
		t.Fatalf("err = %v, want the OAuth refusal", err)
	}
	for what, s := range map[string]string{"error": err.Error(), "status": srv.Status().LastErr, "log": logs.String()} {
		if strings.Contains(s, testToken) {
			t.Fatalf("the token is in the %s: %s", what, s)
		}
	}
}

// An unset ${env:NAME} in a header fails the start, naming the variable, not a value.
func TestRemoteHeaderEnvUnset(t *testing.T) {
	srv, _, _, _ := remoteSet(t, http.NotFoundHandler(), config.MCPHTTP, "/mcp", func(c *config.MCPServer) {
		c.Headers = map[string]string{"X-Key": "${env:CWX_TEST_SURELY_UNSET}"}
	})
	err := srv.Start(context.Background())
	if err == nil || !strings.Contains(err.Error(), "CWX_TEST_SURELY_UNSET") || !strings.Contains(err.Error(), "not set") {
		t.Fatalf("err = %v", err)
	}
}

// A URL's query (where some services put a key) is kept out of errors and the status.
func TestRemoteQueryRedacted(t *testing.T) {
	srv, _, _, _ := remoteSet(t, http.NotFoundHandler(), config.MCPHTTP, "/mcp?key=q-"+testToken, nil)
	err := srv.Start(context.Background())
	if err == nil {
		t.Fatal("a server answering 404 started")
	}
	if strings.Contains(err.Error(), testToken) || strings.Contains(srv.Status().URL, testToken) {
		t.Fatalf("the query leaked: %v / %s", err, srv.Status().URL)
	}
}

// The policy: the private ranges only for the server's own origin, and only for a literal
// address, localhost or allow_private; headers for that exact origin; the first request of
// an exchange to that origin only.
func TestRemotePolicy(t *testing.T) {
	origin := func(s string) egress.Origin {
		u, _ := url.Parse(s)
		o, err := egress.OriginOf(u)
		if err != nil {
			t.Fatal(err)
		}
		return o
	}
	for _, tc := range []struct {
		url          string
		allowPrivate bool
		private      bool
	}{
		{"http://127.0.0.1:8080/mcp", false, true},
		{"http://[::1]:8080/mcp", false, true},
		{"http://10.1.2.3/mcp", false, true},
		{"http://localhost:3000/mcp", false, true},
		{"https://mcp.internal.example/mcp", false, false},
		{"https://mcp.internal.example/mcp", true, true},
	} {
		o := origin(tc.url)
		p := remotePolicy(config.MCPServer{URL: tc.url, AllowPrivate: tc.allowPrivate, TimeoutS: 1}, o, http.Header{"Authorization": {"x"}})
		if got := p.Private(o); got != tc.private {
			t.Errorf("%s allow_private=%v: Private = %v, want %v", tc.url, tc.allowPrivate, got, tc.private)
		}
		other := origin("http://10.9.9.9:1")
		if p.Private(other) || p.Header(other) != nil {
			t.Errorf("%s: another origin may reach private ranges or gets the headers", tc.url)
		}
		if p.Header(o).Get("Authorization") != "x" {
			t.Errorf("%s: no header for its own origin", tc.url)
		}
		if err := p.Allow(egress.Origin{}, other); !errors.Is(err, egress.ErrNotAllowed) {
			t.Errorf("%s: a first request to another origin: %v", tc.url, err)
		}
		if err := p.Allow(o, other); err != nil {
			t.Errorf("%s: a redirect elsewhere (judged by the address checks): %v", tc.url, err)
		}
	}
}

// A server's prompts/list_changed and resources/list_changed reach Options.ToolsChanged, so
// the change feed (and serve --mcp's listing) follows them.
func TestPromptAndResourceChangesNotified(t *testing.T) {
	s := echoServer()
	prompt := func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		return &mcp.GetPromptResult{}, nil
	}
	resource := func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{}, nil
	}
	s.AddPrompt(&mcp.Prompt{Name: "first"}, prompt) // the capabilities (with listChanged) are told at initialize
	s.AddResource(&mcp.Resource{URI: "test://first", Name: "first"}, resource)
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil)
	hs := httptest.NewServer(h)
	t.Cleanup(hs.Close)
	changed := make(chan string, 16)
	set := NewSet(map[string]config.MCPServer{"r": {Name: "r", Transport: config.MCPHTTP, URL: hs.URL, TimeoutS: 30,
		MaxResultBytes: config.DefaultMCPResultBytes}}, Options{ToolsChanged: func(n string) { changed <- n }})
	t.Cleanup(set.Close)
	srv, _ := set.Server("r")
	if err := srv.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	<-changed // the start
	s.AddPrompt(&mcp.Prompt{Name: "hello"}, prompt)
	select {
	case n := <-changed:
		if n != "r" {
			t.Fatalf("changed %q", n)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("prompts/list_changed did not reach ToolsChanged")
	}
	s.AddResource(&mcp.Resource{URI: "test://x", Name: "x"}, resource)
	select {
	case <-changed:
	case <-time.After(10 * time.Second):
		t.Fatal("resources/list_changed did not reach ToolsChanged")
	}
}

// Over Streamable HTTP a result is bounded by what it holds, and a server's new tool is
// admitted after its list_changed (the connection's event stream is open).
func TestRemoteResultBoundAndToolChange(t *testing.T) {
	s := echoServer()
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil)
	srv, _, _, _ := remoteSet(t, h, config.MCPHTTP, "/mcp", func(c *config.MCPServer) { c.MaxResultBytes = 1024 })
	if got := text(t, srv, "echo", `{"text":"small"}`); got != "echo:small" {
		t.Fatalf("echo = %q", got)
	}
	_, err := srv.Call(context.Background(), "echo", []byte(`{"text":"`+strings.Repeat("x", 2000)+`"}`), nil)
	if err == nil || !strings.Contains(err.Error(), "max_result_bytes is 1024") {
		t.Fatalf("a large result: %v", err)
	}
	mcp.AddTool(s, &mcp.Tool{Name: "two", Description: "Two."}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{}, nil, nil
	})
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(strings.Join(toolNames(srv.Tools()), ","), "mcp_r_two") {
		if time.Now().After(deadline) {
			t.Fatalf("tools after list_changed: %v", toolNames(srv.Tools()))
		}
		time.Sleep(20 * time.Millisecond)
	}
}
