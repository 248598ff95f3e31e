package mcpclient

import (
	"context"
	"slices"
	"strings"
	"sync"

	"github.com/hashicorp/go-hclog"

	"github.com/cwx-dev/cwx/core/config"
)

// Set is the configured servers of one core. Nothing starts until a server is needed: a
// call of one of its tools (Server.Call), or Start.
type Set struct {
	o        Options
	servers  map[string]*Server
	names    []string
	watchers resourceWatchers
}

// NewSet holds the servers of cfg; it starts none.
func NewSet(servers map[string]config.MCPServer, o Options) *Set {
	if o.Logger == nil {
		o.Logger = hclog.NewNullLogger()
	}
	s := &Set{o: o, servers: map[string]*Server{}}
	if given := o.ResourceUpdated; given != nil {
		o.ResourceUpdated = func(server, uri string) { given(server, uri); s.watchers.publish(server, uri) }
	} else {
		o.ResourceUpdated = s.watchers.publish
	}
	for name, c := range servers {
		s.servers[name] = newServer(c, o, s.remember)
		s.names = append(s.names, name)
	}
	slices.Sort(s.names)
	return s
}

// Names are the configured servers' names, sorted.
func (s *Set) Names() []string { return slices.Clone(s.names) }

// Server returns the server called name.
func (s *Set) Server(name string) (*Server, bool) {
	srv, ok := s.servers[name]
	return srv, ok
}

// Lookup finds the live tool whose model-facing name is name. A name of the plain form
// mcp_<server>_<wire> names its server; a mapped one is found among the running servers'
// tools.
func (s *Set) Lookup(name string) (*Server, Tool, bool) {
	if !strings.HasPrefix(name, Prefix) {
		return nil, Tool{}, false
	}
	for _, n := range s.names {
		srv := s.servers[n]
		if !strings.HasPrefix(name, Prefix+n+"_") {
			continue
		}
		for _, t := range srv.Tools() {
			if t.Name == name {
				return srv, t, true
			}
		}
	}
	return nil, Tool{}, false
}

// ServerOf is the server a model-facing name belongs to, by its prefix (the longest
// server name that fits, as a name may hold `-`).
func (s *Set) ServerOf(name string) (*Server, bool) {
	var best *Server
	for _, n := range s.names {
		if strings.HasPrefix(name, Prefix+n+"_") && (best == nil || len(n) > len(best.cfg.Name)) {
			best = s.servers[n]
		}
	}
	return best, best != nil
}

// Start starts the server called name (a one-shot call starts only that one).
func (s *Set) Start(ctx context.Context, name string) error {
	srv, ok := s.servers[name]
	if !ok {
		return nil
	}
	return srv.Start(ctx)
}

// Statuses reports every server, sorted by name.
func (s *Set) Statuses() []Status {
	out := make([]Status, 0, len(s.names))
	for _, n := range s.names {
		out = append(out, s.servers[n].Status())
	}
	return out
}

// Close ends every server's process, in parallel, and waits for them.
func (s *Set) Close() {
	var wg sync.WaitGroup
	for _, srv := range s.servers {
		wg.Go(srv.Close)
	}
	wg.Wait()
}
