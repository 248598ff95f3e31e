package mcpserve

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cwx-dev/cwx/core"
)

// The relay passes completion/complete and resources/subscribe (and unsubscribe) to the MCP
// server that serves the prompt or resource (gateway.go's routes), and each
// notifications/resources/updated that server sends back to the sessions subscribed. Like
// prompts/get and resources/read they are neither hooked nor gated: a completion fills the
// client's input field, an update says only that a URI changed.

// complete answers completion/complete: for a served server prompt or resource template
// its server's completion (values stripped of terminal escapes); for a command, or what
// no server serves, no values.
func (s *Server) complete(ctx context.Context, req *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
	empty := &mcp.CompleteResult{Completion: mcp.CompletionResultDetails{Values: []string{}}}
	p := req.Params
	if s.gw == nil || p == nil || p.Ref == nil {
		return empty, nil
	}
	r := s.currentRoutes()
	var server string
	creq := core.MCPCompleteRequest{Argument: p.Argument.Name, Value: p.Argument.Value}
	if p.Context != nil {
		creq.Context = p.Context.Arguments
	}
	switch p.Ref.Type {
	case "ref/prompt":
		sp, ok := r.prompts[p.Ref.Name]
		if !ok {
			return empty, nil // a command's prompt, or none: nothing to complete
		}
		server, creq.Prompt = sp.server, sp.wire
	case "ref/resource": // a template's text, or a resource's own URI
		var ok bool
		if server, ok = r.templateServer(p.Ref.URI); !ok {
			if server, ok = r.resources[p.Ref.URI]; !ok {
				return empty, nil
			}
		}
		creq.URI = p.Ref.URI
	default:
		return empty, nil
	}
	c, err := s.gw.Complete(ctx, server, creq)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, errors.New(failureText(err))
	}
	out := empty
	out.Completion.Total, out.Completion.HasMore = c.Total, c.HasMore
	for _, v := range c.Values {
		out.Completion.Values = append(out.Completion.Values, core.StripEscapes(v))
	}
	return out, nil
}

// upstreamSub is one resource subscribed to at its server, with the sessions that asked.
type upstreamSub struct {
	server   string
	sessions map[*mcp.ServerSession]bool
}

// subscribe relays resources/subscribe of a served resource (or a URI a served template
// matches) to its server, once for all the sessions that ask; a URI no server serves, or
// whose server offers no subscriptions, is refused saying so.
func (s *Server) subscribe(ctx context.Context, req *mcp.SubscribeRequest) error {
	uri := req.Params.URI
	if s.gw == nil {
		return fmt.Errorf("no MCP server serves %q: cwx serves no MCP servers' resources", uri)
	}
	server, ok := s.currentRoutes().serverOf(uri)
	if !ok {
		return fmt.Errorf("no MCP server serves %q: resources/list and resources/templates/list give what is served", uri)
	}
	s.subMu.Lock()
	dropped := s.pruneLocked()
	sub := s.subs[uri]
	full := sub == nil && len(s.subs) >= maxSubscriptions
	if sub != nil && sub.server == server {
		sub.sessions[req.Session] = true
	}
	s.subMu.Unlock()
	for u, srv := range dropped {
		s.unsubscribeAt(ctx, srv, u)
	}
	if sub != nil && sub.server == server {
		return nil
	}
	if full {
		return fmt.Errorf("%q is not subscribed to: %d resources are already, the most cwx keeps; unsubscribe from one first", uri, maxSubscriptions)
	}
	// Two sessions subscribing at once may both ask the server: subscribing twice is the
	// same as once there.
	if err := s.gw.Subscribe(ctx, server, uri); err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return errors.New(failureText(err))
	}
	s.subMu.Lock()
	if sub := s.subs[uri]; sub != nil && sub.server == server {
		sub.sessions[req.Session] = true
		s.subMu.Unlock()
		return nil
	}
	// a URI another server served when it was subscribed to moves to this one
	moved := s.subs[uri]
	s.subs[uri] = &upstreamSub{server: server, sessions: map[*mcp.ServerSession]bool{req.Session: true}}
	if moved != nil {
		maps.Copy(s.subs[uri].sessions, moved.sessions)
	}
	s.subMu.Unlock()
	if moved != nil {
		s.unsubscribeAt(ctx, moved.server, uri)
	}
	return nil
}

// maxSubscriptions bounds the resources subscribed to at once (a template matches any number
// of URIs).
const maxSubscriptions = 1000

// unsubscribe drops the session's subscription; the last session's drop unsubscribes at
// the server.
func (s *Server) unsubscribe(ctx context.Context, req *mcp.UnsubscribeRequest) error {
	uri := req.Params.URI
	s.subMu.Lock()
	sub := s.subs[uri]
	if sub == nil {
		s.subMu.Unlock()
		return nil
	}
	delete(sub.sessions, req.Session)
	_, gone := s.pruneLocked()[uri]
	s.subMu.Unlock()
	if gone {
		// on the protocol of subscriptions/listen the SDK unsubscribes as the stream ends,
		// under its ended context: the server's unsubscribe still goes out (bounded by its
		// timeout_s)
		s.unsubscribeAt(context.WithoutCancel(ctx), sub.server, uri)
	}
	return nil
}

func (s *Server) unsubscribeAt(ctx context.Context, server, uri string) {
	if err := s.gw.Unsubscribe(ctx, server, uri); err != nil && ctx.Err() == nil {
		s.log.Warn("resources/unsubscribe at the MCP server failed", "server", server, "uri", uri, "error", err)
	}
}

// pruneLocked forgets the sessions that have closed (the SDK tells no handler of a
// session's end) and the subscriptions left with none, and returns those it dropped (URI
// to server). The caller unsubscribes them at their server once it holds no lock.
//
// +checklocks:s.subMu
func (s *Server) pruneLocked() map[string]string {
	open := map[*mcp.ServerSession]bool{}
	for ss := range s.mcp.Sessions() {
		open[ss] = true
	}
	dropped := map[string]string{}
	for uri, sub := range s.subs {
		for ss := range sub.sessions {
			if !open[ss] {
				delete(sub.sessions, ss)
			}
		}
		if len(sub.sessions) == 0 {
			delete(s.subs, uri)
			dropped[uri] = sub.server
		}
	}
	return dropped
}

// resourceUpdated takes a server's notifications/resources/updated (from that server's
// goroutine, so it only queues): only for a URI subscribed to at that very server, so a
// server cannot speak for another's resources.
func (s *Server) resourceUpdated(server, uri string) {
	s.subMu.Lock()
	sub := s.subs[uri]
	ours := sub != nil && sub.server == server
	s.subMu.Unlock()
	if !ours {
		s.log.Debug("an MCP server's resource update is not passed on: no client subscribed to it there", "server", server, "uri", core.StripEscapes(uri))
		return
	}
	s.updates.add(uri)
}

// watchResources registers resourceUpdated with the gateway for the first Watch running
// (each session of Run watches) and returns what unregisters it after the last.
func (s *Server) watchResources() (unwatch func()) {
	s.watchMu.Lock()
	defer s.watchMu.Unlock()
	if s.watchers++; s.watchers == 1 {
		s.unwatchGw = s.gw.WatchResources(s.resourceUpdated)
	}
	return func() {
		s.watchMu.Lock()
		defer s.watchMu.Unlock()
		if s.watchers--; s.watchers == 0 {
			s.unwatchGw()
		}
	}
}

// sendUpdates sends the queued updates to the subscribed sessions until ctx ends.
func (s *Server) sendUpdates(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-s.updates.wake:
		}
		for _, uri := range s.updates.take() {
			if err := s.mcp.ResourceUpdated(ctx, &mcp.ResourceUpdatedNotificationParams{URI: uri}); err != nil {
				s.log.Debug("notifications/resources/updated not sent", "uri", uri, "error", err)
			}
		}
	}
}

// updateQueue holds the URIs updated and not yet sent, each once however often it changed
// meanwhile (a client re-reads the resource, so one notification stands for many), at most
// maxQueuedUpdates of them.
type updateQueue struct {
	mu      sync.Mutex
	pending []string        // +checklocks:mu
	queued  map[string]bool // +checklocks:mu
	wake    chan struct{}
}

// maxQueuedUpdates bounds the URIs waiting to be sent; past it a new URI's update is
// dropped (the sender is stuck on a client that reads nothing).
const maxQueuedUpdates = 1024

func newUpdateQueue() *updateQueue {
	return &updateQueue{queued: map[string]bool{}, wake: make(chan struct{}, 1)}
}

func (q *updateQueue) add(uri string) {
	q.mu.Lock()
	if !q.queued[uri] && len(q.pending) < maxQueuedUpdates {
		q.queued[uri] = true
		q.pending = append(q.pending, uri)
	}
	q.mu.Unlock()
	select {
	case q.wake <- struct{}{}:
	default:
	}
}

func (q *updateQueue) take() []string {
	q.mu.Lock()
	defer q.mu.Unlock()
	out := q.pending
	q.pending = nil
	clear(q.queued)
	return out
}
