package mcpclient

import (
	"context"
	"slices"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cwx-dev/cwx/core/errdefs"
)

// MaxCompletions bounds the values one completion keeps (the protocol's own bound), and
// MaxSubscriptions the resources of one server subscribed to at once.
const (
	MaxCompletions   = 100
	MaxSubscriptions = 1000
)

// CompleteRequest is one completion/complete: the argument being typed, of a prompt (Prompt,
// its name on the server) or of a resource template (URI, the template as listed), with the
// values of the arguments already given.
type CompleteRequest struct {
	Prompt   string
	URI      string
	Argument string
	Value    string
	Context  map[string]string
}

// Completion is what a server offers for the argument: at most MaxCompletions values, the
// number it has in all (0 when it did not say), and whether there are more than it gave.
type Completion struct {
	Values  []string
	Total   int
	HasMore bool
}

// Complete asks the server to complete an argument (completion/complete), starting it, under
// its timeout_s and max_result_bytes. A server that did not announce completions offers
// none (an empty Completion, no error). It is logged at debug level: a client asks as the
// person types.
func (s *Server) Complete(ctx context.Context, req CompleteRequest) (Completion, error) {
	start := time.Now()
	out, err := s.complete(ctx, req)
	args := []any{"prompt", req.Prompt, "uri", req.URI, "argument", req.Argument, "took", time.Since(start).Round(time.Millisecond)}
	if err != nil {
		s.log.Warn("mcp completion/complete failed", append(args, "error", err)...)
	} else {
		s.log.Debug("mcp completion/complete", append(args, "values", len(out.Values))...)
	}
	return out, err
}

func (s *Server) complete(ctx context.Context, req CompleteRequest) (Completion, error) {
	ref := &mcp.CompleteReference{Type: "ref/prompt", Name: req.Prompt}
	if req.Prompt == "" {
		ref = &mcp.CompleteReference{Type: "ref/resource", URI: req.URI}
	}
	cs, err := s.session(ctx)
	if err != nil {
		return Completion{}, err
	}
	if r := cs.InitializeResult(); r == nil || r.Capabilities == nil || r.Capabilities.Completions == nil {
		return Completion{}, nil
	}
	ctx, cancel := s.bounded(ctx)
	defer cancel()
	params := &mcp.CompleteParams{Ref: ref, Argument: mcp.CompleteParamsArgument{Name: req.Argument, Value: req.Value}}
	if len(req.Context) > 0 {
		params.Context = &mcp.CompleteContext{Arguments: req.Context}
	}
	res, err := cs.Complete(ctx, params)
	if err != nil {
		return Completion{}, s.requestErr(ctx, "completion/complete", err)
	}
	if err := s.fits(res); err != nil {
		return Completion{}, err
	}
	c := res.Completion
	out := Completion{Values: c.Values, Total: c.Total, HasMore: c.HasMore}
	if len(out.Values) > MaxCompletions {
		out.Values, out.HasMore = out.Values[:MaxCompletions], true
	}
	return out, nil
}

// Subscribe asks the server to tell of changes to resource uri (resources/subscribe),
// starting it. The subscription is kept until Unsubscribe: a later generation of the
// server (after a crash or a restart) is subscribed again as it starts. Each
// notifications/resources/updated the server sends reaches Options.ResourceUpdated. A
// server that did not announce subscriptions refuses, saying so.
func (s *Server) Subscribe(ctx context.Context, uri string) error {
	cs, err := s.session(ctx)
	if err != nil {
		return err
	}
	if !subscribable(cs) {
		return errdefs.Newf(errdefs.ErrRefused, "mcp server %q does not offer resources/subscribe", s.cfg.Name)
	}
	s.mu.Lock()
	full := len(s.subs) >= MaxSubscriptions && !slices.Contains(s.subs, uri)
	s.mu.Unlock()
	if full {
		return errdefs.Newf(errdefs.ErrRefused, "mcp server %q: %q is not subscribed to: %d of its resources are already, the most cwx keeps", s.cfg.Name, uri, MaxSubscriptions)
	}
	ctx, cancel := s.bounded(ctx)
	defer cancel()
	if err := cs.Subscribe(ctx, &mcp.SubscribeParams{URI: uri}); err != nil {
		err = s.requestErr(ctx, "resources/subscribe", err)
		s.log.Warn("mcp resources/subscribe failed", "uri", uri, "error", err)
		return err
	}
	s.mu.Lock()
	if !slices.Contains(s.subs, uri) {
		s.subs = append(s.subs, uri)
	}
	s.mu.Unlock()
	s.log.Info("mcp resources/subscribe", "uri", uri)
	return nil
}

// Unsubscribe drops the subscription to uri (resources/unsubscribe). It starts nothing: a
// server not running is only forgotten, so its next generation is not subscribed.
func (s *Server) Unsubscribe(ctx context.Context, uri string) error {
	s.mu.Lock()
	s.subs = slices.DeleteFunc(s.subs, func(u string) bool { return u == uri })
	s.mu.Unlock()
	cs := s.running()
	if cs == nil || !subscribable(cs) {
		return nil
	}
	ctx, cancel := s.bounded(ctx)
	defer cancel()
	if err := cs.Unsubscribe(ctx, &mcp.UnsubscribeParams{URI: uri}); err != nil {
		return s.requestErr(ctx, "resources/unsubscribe", err)
	}
	s.log.Info("mcp resources/unsubscribe", "uri", uri)
	return nil
}

// Subscriptions lists the URIs the server is subscribed to, in the order asked.
func (s *Server) Subscriptions() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.subs)
}

// resubscribe subscribes a new generation (session cs) to what its predecessor was; a
// subscription it refuses is logged and kept, for the generation after.
func (s *Server) resubscribe(ctx context.Context, cs *mcp.ClientSession) {
	uris := s.Subscriptions()
	if len(uris) == 0 {
		return
	}
	if !subscribable(cs) {
		s.log.Warn("mcp server no longer offers resources/subscribe; its subscriptions wait for a generation that does", "subscriptions", len(uris))
		return
	}
	for _, uri := range uris {
		if err := cs.Subscribe(ctx, &mcp.SubscribeParams{URI: uri}); err != nil {
			s.log.Warn("mcp resources/subscribe again after the start failed", "uri", uri, "error", s.requestErr(ctx, "resources/subscribe", err))
		}
	}
}

// subscribable reports whether the server's initialize announced resource subscriptions.
func subscribable(cs *mcp.ClientSession) bool {
	r := cs.InitializeResult()
	return r != nil && r.Capabilities != nil && r.Capabilities.Resources != nil && r.Capabilities.Resources.Subscribe
}

// resourceUpdated passes a server's notifications/resources/updated to
// Options.ResourceUpdated.
func (s *Server) resourceUpdated(_ context.Context, req *mcp.ResourceUpdatedNotificationRequest) {
	if s.o.ResourceUpdated == nil || req == nil || req.Params == nil || req.Params.URI == "" {
		return
	}
	s.o.ResourceUpdated(s.cfg.Name, req.Params.URI)
}

// resourceWatchers fans each server's notifications/resources/updated out to the callers of
// Set.WatchResources.
type resourceWatchers struct {
	mu   sync.Mutex
	next int
	fns  map[int]func(server, uri string) // +checklocks:mu
}

func (w *resourceWatchers) add(fn func(server, uri string)) (stop func()) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.fns == nil {
		w.fns = map[int]func(server, uri string){}
	}
	id := w.next
	w.next++
	w.fns[id] = fn
	return func() {
		w.mu.Lock()
		defer w.mu.Unlock()
		delete(w.fns, id)
	}
}

func (w *resourceWatchers) publish(server, uri string) {
	w.mu.Lock()
	fns := make([]func(server, uri string), 0, len(w.fns))
	for _, fn := range w.fns {
		fns = append(fns, fn)
	}
	w.mu.Unlock()
	for _, fn := range fns {
		fn(server, uri)
	}
}

// WatchResources calls fn with each notifications/resources/updated any server of the set
// sends (from that server's goroutine: fn must not block) until stop is called.
func (s *Set) WatchResources(fn func(server, uri string)) (stop func()) { return s.watchers.add(fn) }
