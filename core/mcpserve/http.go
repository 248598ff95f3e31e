package mcpserve

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TokenEnv names the environment variable a fixed bearer token is read from.
const TokenEnv = "CWX_MCP_TOKEN"

// tokenBytes is the size of a generated token before hex encoding.
const tokenBytes = 32

// HTTPOptions configure the streamable HTTP handler.
type HTTPOptions struct {
	// Token is the bearer token every request must carry; it must not be empty.
	Token string
	// Origins are the Origin values allowed besides the listener's own loopback origins;
	// a request without Origin (not from a browser) is allowed.
	Origins []string
}

// NewToken returns a fresh random bearer token.
func NewToken() (string, error) {
	var b [tokenBytes]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("mint an MCP bearer token: %w", err)
	}
	return hex.EncodeToString(b[:]), nil
}

// Loopback reports whether addr (host:port) names a loopback address: 127.0.0.0/8, ::1
// or localhost.
func Loopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// HTTPHandler returns the streamable HTTP handler at addr (the listener's host:port, for
// its own origins): every request needs the bearer token (401 without it or with another)
// and an allowed Origin when it has one (403), the protection against DNS rebinding.
func (s *Server) HTTPHandler(addr string, o HTTPOptions) (http.Handler, error) {
	if o.Token == "" {
		return nil, errors.New("the MCP HTTP server needs a bearer token")
	}
	_, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("MCP HTTP address %q: %w", addr, err)
	}
	allowed := []string{"http://127.0.0.1:" + port, "http://localhost:" + port, "http://[::1]:" + port,
		"https://127.0.0.1:" + port, "https://localhost:" + port, "https://[::1]:" + port}
	for _, origin := range o.Origins {
		allowed = append(allowed, strings.TrimRight(origin, "/"))
	}
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s.mcp }, nil)
	want := []byte("Bearer " + o.Token)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if origin := r.Header.Get("Origin"); origin != "" && !originAllowed(origin, allowed) {
			http.Error(w, "origin not allowed", http.StatusForbidden)
			return
		}
		if subtle.ConstantTimeCompare([]byte(r.Header.Get("Authorization")), want) != 1 {
			w.Header().Set("WWW-Authenticate", `Bearer realm="cwx"`)
			http.Error(w, "a valid bearer token is required", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	}), nil
}

func originAllowed(origin string, allowed []string) bool {
	u, err := url.Parse(origin)
	if err != nil || u.Host == "" {
		return false
	}
	return slices.Contains(allowed, strings.ToLower(u.Scheme)+"://"+strings.ToLower(u.Host))
}
