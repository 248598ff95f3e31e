package mcpserve

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/yosida95/uritemplate/v3"

	"github.com/cwx-dev/cwx/core"
)

// The gateway re-exports what the Manager's MCP servers offer besides their tools (their
// tools are the Manager's, tools.go): each running server's prompts, under the name
// mcp_<server>_<prompt> (a mapped one as a tool's when that does not fit), beside the
// commands; its resources under their own URIs and its resource templates. A name or URI
// that two of them claim, or that a command holds, is served for none of the servers that
// claim it (a warning says so); a command keeps its name. prompts/get and resources/read are
// relayed to the server that listed the name (core.MCPServers: logged, under the content
// policy, neither hooked nor gated).
//
// Listings follow the running servers: every Sync lists them again, so a server's start, a
// tools list_changed and its end (which reach the Manager's change feed) update them too.
// A server not started by this process offers nothing until it is: the first tools/list
// starts the servers whose tools the catalog does not know, the first prompts/list or
// resources/list every server not started yet, each waiting at most Options.StartWait
// (what starts later arrives by list_changed).
type gateway interface {
	Offers(ctx context.Context) []core.MCPOffer
	StartIdle(ctx context.Context, uncachedOnly bool)
	GetPrompt(ctx context.Context, server, wire string, args map[string]string) (core.MCPPromptResult, error)
	ReadResource(ctx context.Context, server, uri string) ([]core.ContentBlock, error)
	Complete(ctx context.Context, server string, req core.MCPCompleteRequest) (core.MCPCompletion, error)
	Subscribe(ctx context.Context, server, uri string) error
	Unsubscribe(ctx context.Context, server, uri string) error
	WatchResources(fn func(server, uri string)) (stop func())
}

// DefaultStartWait bounds how long a client's first listing waits for the MCP servers it
// starts.
const DefaultStartWait = 10 * time.Second

// gatewayOf is m's MCP servers, nil when it has none to serve.
func gatewayOf(m Manager) gateway {
	if s := m.MCP(); s != nil {
		return s
	}
	return nil
}

// warmStart starts, once per Server, the MCP servers a listing needs and waits for them at
// most Options.StartWait, then syncs: method tools/list starts the servers the catalog
// knows no tools of, prompts/list and resources/list (and templates) every server not
// started. The starts run on a goroutine of the Server, joined when Watch stops.
func (s *Server) warmStart(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if s.gw == nil {
			return next(ctx, method, req)
		}
		switch method {
		case "tools/list":
			s.warmTools.Do(func() { s.warm(ctx, true) })
		case "prompts/list", "resources/list", "resources/templates/list":
			s.warmAll.Do(func() { s.warm(ctx, false) })
		}
		return next(ctx, method, req)
	}
}

func (s *Server) warm(ctx context.Context, uncachedOnly bool) {
	done := make(chan struct{})
	s.bg.Go(func() {
		defer close(done)
		s.gw.StartIdle(s.bgCtx, uncachedOnly)
	})
	t := time.NewTimer(s.o.StartWait)
	defer t.Stop()
	select {
	case <-done:
	case <-t.C:
	case <-ctx.Done():
	}
	s.Sync()
}

// foldName is the key two prompt names collide under: case and `-` folded, as the
// registry folds names.
func foldName(name string) string { return strings.ReplaceAll(strings.ToLower(name), "-", "_") }

// servedPrompt is one server's prompt as the client sees it.
type servedPrompt struct {
	server, wire string
	prompt       *mcp.Prompt
}

// syncGateway brings the SDK's server prompts, resources and templates to what the running
// servers offer now.
//
// +checklocks:s.syncMu
func (s *Server) syncGateway() {
	if s.gw == nil {
		return
	}
	offers := sortedOffers(s.gw.Offers(s.bgCtx))
	prompts := s.syncServerPrompts(offers)
	resources := s.syncResources(offers)
	s.setRoutes(newRoutes(prompts, resources))
}

// syncServerPrompts serves each running server's prompts beside the commands, and returns
// those served.
//
// +checklocks:s.syncMu
func (s *Server) syncServerPrompts(offers []core.MCPOffer) []servedPrompt {
	commands := map[string]bool{}
	for name := range s.prompts {
		commands[foldName(name)] = true
	}
	byKey := map[string][]servedPrompt{}
	var keys []string
	for _, o := range offers {
		for _, p := range o.Prompts {
			if why := promptProblem(p); why != "" {
				s.warnOnce("an MCP server's prompt is not served", "server", o.Server, "prompt", p.Name, "reason", why)
				continue
			}
			k := foldName(p.Served)
			if byKey[k] == nil {
				keys = append(keys, k)
			}
			byKey[k] = append(byKey[k], servedPrompt{server: o.Server, wire: p.Name, prompt: toPrompt(o.Server, p)})
		}
	}
	live := map[string]bool{}
	var served []servedPrompt
	for _, k := range keys {
		same := byKey[k]
		switch {
		case commands[k]:
			s.warnOnce("an MCP server's prompt is not served: a command has its name", "server", same[0].server, "prompt", same[0].wire, "name", same[0].prompt.Name)
			continue
		case len(same) > 1:
			for _, sp := range same {
				s.warnOnce("an MCP server's prompt is not served: another prompt has the same name once case and - are folded", "server", sp.server, "prompt", sp.wire, "name", sp.prompt.Name)
			}
			continue
		}
		sp := same[0]
		live[sp.prompt.Name] = true
		served = append(served, sp)
		print := fingerprint(sp.prompt)
		if s.gwPrompts[sp.prompt.Name] == print {
			continue
		}
		s.gwPrompts[sp.prompt.Name] = print
		s.mcp.AddPrompt(sp.prompt, s.serverPrompt(sp.server, sp.wire))
	}
	var gone []string
	for name := range s.gwPrompts {
		if live[name] {
			continue
		}
		delete(s.gwPrompts, name)
		if _, command := s.prompts[name]; !command { // a command that took the name replaced it
			gone = append(gone, name)
		}
	}
	if len(gone) > 0 {
		s.mcp.RemovePrompts(gone...)
	}
	return served
}

// promptProblem says why a server's prompt cannot be served, or "".
func promptProblem(p core.MCPPrompt) string {
	if p.Served == "" {
		return "no name fits the tool-name grammar"
	}
	for _, a := range p.Args {
		if a.Name == "" || core.StripEscapes(a.Name) != a.Name {
			return fmt.Sprintf("argument %q is empty or holds control characters", core.StripEscapes(a.Name))
		}
	}
	return ""
}

// toPrompt is a server's prompt as served: its description prefixed by its origin, its
// arguments as the server gave them, descriptions stripped of terminal escapes.
func toPrompt(server string, p core.MCPPrompt) *mcp.Prompt {
	out := &mcp.Prompt{Name: p.Served, Description: describe(core.OriginMCP+server, core.StripEscapes(p.Description))}
	for _, a := range p.Args {
		out.Arguments = append(out.Arguments, &mcp.PromptArgument{Name: a.Name, Description: core.StripEscapes(a.Description), Required: a.Required})
	}
	return out
}

func fingerprint(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// serverPrompt relays prompts/get to the server's prompt wire.
func (s *Server) serverPrompt(server, wire string) mcp.PromptHandler {
	return func(ctx context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		res, err := s.gw.GetPrompt(ctx, server, wire, req.Params.Arguments)
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			return nil, fmt.Errorf("prompt %s: %s", req.Params.Name, failureText(err))
		}
		out := &mcp.GetPromptResult{Description: core.StripEscapes(res.Description), Messages: []*mcp.PromptMessage{}}
		for _, m := range res.Messages {
			out.Messages = append(out.Messages, &mcp.PromptMessage{Role: mcp.Role(m.Role), Content: mcpContent(m.Content)})
		}
		return out, nil
	}
}

// servedResource is one server's resource or resource template.
type servedResource struct {
	server   string
	resource *mcp.Resource
	template *mcp.ResourceTemplate
}

// key names r among the served: "r:"+URI for a resource, "t:"+URI template for a template.
func (r servedResource) key() string {
	if r.template != nil {
		return "t:" + r.template.URITemplate
	}
	return "r:" + r.resource.URI
}

// syncResources serves each running server's resources, under their URIs, and templates,
// and returns those served.
//
// +checklocks:s.syncMu
func (s *Server) syncResources(offers []core.MCPOffer) []servedResource {
	byURI := map[string][]servedResource{}
	var uris []string
	for _, r := range s.servedResources(offers) {
		key := r.key()
		if byURI[key] == nil {
			uris = append(uris, key)
		}
		byURI[key] = append(byURI[key], r)
	}
	live := map[string]bool{}
	var served []servedResource
	for _, key := range uris {
		same := byURI[key]
		if len(same) > 1 {
			for _, r := range same {
				s.warnOnce("an MCP server's resource is not served: another server offers the same URI", "server", r.server, "uri", key[2:])
			}
			continue
		}
		r := same[0]
		print := r.server + "\x00" + fingerprint(r.resource) + fingerprint(r.template)
		if s.gwResources[key] == print {
			live[key] = true
			served = append(served, r)
			continue
		}
		if err := s.addResource(r); err != nil {
			s.warnOnce("an MCP server's resource is not served", "server", r.server, "uri", key[2:], "reason", err.Error())
			continue
		}
		live[key] = true
		served = append(served, r)
		s.gwResources[key] = print
	}
	var goneR, goneT []string
	for key := range s.gwResources {
		if live[key] {
			continue
		}
		delete(s.gwResources, key)
		if kind, uri := key[:2], key[2:]; kind == "r:" {
			goneR = append(goneR, uri)
		} else {
			goneT = append(goneT, uri)
		}
	}
	if len(goneR) > 0 {
		s.mcp.RemoveResources(goneR...)
	}
	if len(goneT) > 0 {
		s.mcp.RemoveResourceTemplates(goneT...)
	}
	return served
}

// servedResources are the offers' resources and templates as served, in order; one whose
// URI cannot be served is left out with a warning.
func (s *Server) servedResources(offers []core.MCPOffer) []servedResource {
	var out []servedResource
	for _, o := range offers {
		origin := core.OriginMCP + o.Server
		for _, r := range o.Resources {
			if why := uriProblem(r.URI); why != "" {
				s.warnOnce("an MCP server's resource is not served", "server", o.Server, "uri", core.StripEscapes(r.URI), "reason", why)
				continue
			}
			out = append(out, servedResource{server: o.Server, resource: &mcp.Resource{URI: r.URI, Name: core.StripEscapes(r.Name),
				MIMEType: core.StripEscapes(r.MimeType), Description: describe(origin, core.StripEscapes(r.Description))}})
		}
		for _, t := range o.Templates {
			if why := uriProblem(t.URITemplate); why != "" {
				s.warnOnce("an MCP server's resource template is not served", "server", o.Server, "uri_template", core.StripEscapes(t.URITemplate), "reason", why)
				continue
			}
			out = append(out, servedResource{server: o.Server, template: &mcp.ResourceTemplate{URITemplate: t.URITemplate, Name: core.StripEscapes(t.Name),
				MIMEType: core.StripEscapes(t.MimeType), Description: describe(origin, core.StripEscapes(t.Description))}})
		}
	}
	return out
}

// addResource gives the SDK r, whose handler reads from r's server; the SDK panics on a
// template it cannot parse, which is an error here.
func (s *Server) addResource(r servedResource) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("the SDK refused it: %v", p)
		}
	}()
	h := s.serverResource(r.server)
	if r.template != nil {
		s.mcp.AddResourceTemplate(r.template, h)
		return nil
	}
	s.mcp.AddResource(r.resource, h)
	return nil
}

// uriProblem says why a URI (or URI template) cannot be served, or "": empty, holding
// control characters, without a scheme.
func uriProblem(u string) string {
	if strings.TrimSpace(u) == "" || core.StripEscapes(u) != u {
		return "the URI is empty or holds control characters"
	}
	head, _, ok := strings.Cut(u, ":")
	if !ok || head == "" || strings.ContainsAny(head, "/{?#") {
		return "the URI has no scheme"
	}
	if !strings.Contains(u, "{") {
		if _, err := url.Parse(u); err != nil {
			return "the URI does not parse"
		}
	}
	return ""
}

// serverResource relays resources/read to the server.
func (s *Server) serverResource(server string) mcp.ResourceHandler {
	return func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		blocks, err := s.gw.ReadResource(ctx, server, req.Params.URI)
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			return nil, errors.New(failureText(err))
		}
		out := &mcp.ReadResourceResult{Contents: make([]*mcp.ResourceContents, 0, len(blocks))}
		for _, b := range blocks {
			r := &mcp.ResourceContents{URI: b.URI, MIMEType: b.MimeType, Text: b.Text}
			if b.Blob != "" {
				r.Blob, _ = base64.StdEncoding.DecodeString(b.Blob) // the content policy admitted it
			}
			out.Contents = append(out.Contents, r)
		}
		return out, nil
	}
}

// warnOnce logs a warning the first time it is given with these arguments (a Sync repeats
// the listing's refusals).
func (s *Server) warnOnce(msg string, args ...any) {
	key := msg + fmt.Sprint(args...)
	s.warnMu.Lock()
	seen := s.warned[key]
	if !seen {
		if len(s.warned) >= maxWarned {
			clear(s.warned)
		}
		s.warned[key] = true
	}
	s.warnMu.Unlock()
	if !seen {
		s.log.Warn(msg, args...)
	}
}

// maxWarned bounds the warnings warnOnce remembers.
const maxWarned = 256

// sortedOffers is offers sorted by server (the facade sorts; a fake may not).
func sortedOffers(offers []core.MCPOffer) []core.MCPOffer {
	return slices.SortedFunc(slices.Values(offers), func(a, b core.MCPOffer) int { return strings.Compare(a.Server, b.Server) })
}

// routes are where the gateway's served names lead: a served prompt to its server and
// wire name, a resource's URI and a resource template's text to their server (a URI that
// no resource lists to the first template that matches it).
type routes struct {
	prompts   map[string]servedPrompt
	resources map[string]string
	templates []templateRoute
}

type templateRoute struct {
	text, server string
	t            *uritemplate.Template
}

func newRoutes(prompts []servedPrompt, resources []servedResource) routes {
	r := routes{prompts: map[string]servedPrompt{}, resources: map[string]string{}}
	for _, p := range prompts {
		r.prompts[p.prompt.Name] = p
	}
	for _, res := range resources {
		if res.template == nil {
			r.resources[res.resource.URI] = res.server
			continue
		}
		t, err := uritemplate.New(res.template.URITemplate)
		if err != nil {
			continue // the SDK took it (addResource), so it parses; a template that does not is never matched
		}
		r.templates = append(r.templates, templateRoute{text: res.template.URITemplate, server: res.server, t: t})
	}
	return r
}

// serverOf is the server that serves uri: the resource of that URI, or a template that
// matches it.
func (r routes) serverOf(uri string) (string, bool) {
	if server, ok := r.resources[uri]; ok {
		return server, true
	}
	for _, t := range r.templates {
		if t.t.Match(uri) != nil {
			return t.server, true
		}
	}
	return "", false
}

// templateServer is the server of the resource template whose text is text.
func (r routes) templateServer(text string) (string, bool) {
	for _, t := range r.templates {
		if t.text == text {
			return t.server, true
		}
	}
	return "", false
}

func (s *Server) setRoutes(r routes) {
	s.routeMu.Lock()
	defer s.routeMu.Unlock()
	s.routes = r
}

func (s *Server) currentRoutes() routes {
	s.routeMu.Lock()
	defer s.routeMu.Unlock()
	return s.routes
}
