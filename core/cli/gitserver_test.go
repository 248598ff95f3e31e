package cli

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing/format/pktline"
	"github.com/go-git/go-git/v5/plumbing/protocol/packp"
	"github.com/go-git/go-git/v5/plumbing/transport"
	"github.com/go-git/go-git/v5/plumbing/transport/server"
)

// gitServer serves repositories over git's smart HTTP protocol on loopback, read-only
// (upload-pack), with go-git's own server side: GET /NAME.git/info/refs and POST
// /NAME.git/git-upload-pack. redirect maps a path to a URL it answers 302 with.
type gitServer struct {
	srv      *httptest.Server
	repos    server.MapLoader
	mu       sync.Mutex
	redirect map[string]string
	served   map[string]int
}

func newGitServer(t *testing.T) *gitServer {
	g := &gitServer{repos: server.MapLoader{}, redirect: map[string]string{}, served: map[string]int{}}
	g.srv = httptest.NewServer(http.HandlerFunc(g.serve))
	t.Cleanup(g.srv.Close)
	return g
}

// serveRepo makes the repository at dir (a work tree's repository) reachable at
// URL()/name.git, and returns that URL.
func (g *gitServer) serveRepo(t *testing.T, name, dir string) string {
	t.Helper()
	r, err := git.PlainOpen(dir)
	if err != nil {
		t.Fatal(err)
	}
	ep, err := transport.NewEndpoint("/" + name + ".git")
	if err != nil {
		t.Fatal(err)
	}
	g.mu.Lock()
	g.repos[ep.String()] = r.Storer
	g.mu.Unlock()
	return g.srv.URL + "/" + name + ".git"
}

func (g *gitServer) hits(prefix string) int {
	g.mu.Lock()
	defer g.mu.Unlock()
	n := 0
	for p, c := range g.served {
		if strings.HasPrefix(p, prefix) {
			n += c
		}
	}
	return n
}

func (g *gitServer) serve(w http.ResponseWriter, req *http.Request) {
	g.mu.Lock()
	g.served[req.URL.Path]++
	to, moved := g.redirect[req.URL.Path]
	g.mu.Unlock()
	if moved {
		http.Redirect(w, req, to, http.StatusFound)
		return
	}
	repo, rest, ok := strings.Cut(strings.TrimPrefix(req.URL.Path, "/"), ".git/")
	if !ok {
		http.NotFound(w, req)
		return
	}
	ep, err := transport.NewEndpoint("/" + repo + ".git")
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	g.mu.Lock()
	sess, err := server.NewServer(g.repos).NewUploadPackSession(ep, nil)
	g.mu.Unlock()
	if err != nil {
		http.NotFound(w, req)
		return
	}
	defer sess.Close()
	switch {
	case rest == "info/refs" && req.Method == http.MethodGet && req.URL.Query().Get("service") == transport.UploadPackServiceName:
		ar, err := sess.AdvertisedReferencesContext(req.Context())
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		ar.Prefix = [][]byte{[]byte("# service=" + transport.UploadPackServiceName), pktline.Flush}
		w.Header().Set("Content-Type", "application/x-git-upload-pack-advertisement")
		ar.Encode(w)
	case rest == transport.UploadPackServiceName && req.Method == http.MethodPost:
		up := packp.NewUploadPackRequest()
		if err := up.Decode(req.Body); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		resp, err := sess.UploadPack(req.Context(), up)
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		defer resp.Close()
		w.Header().Set("Content-Type", "application/x-git-upload-pack-result")
		resp.Encode(w)
	default:
		http.NotFound(w, req)
	}
}
