package mcpclient

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cwx-dev/cwx/core/content"
	"github.com/cwx-dev/cwx/core/errdefs"
	"github.com/cwx-dev/cwx/core/protocol"
)

// MaxListed bounds the resources or prompts one listing collects (every page followed).
const MaxListed = 1000

// ListWithin bounds each listing of Offer: a running server that does not list its
// prompts, resources or templates within it offers what it did list.
const ListWithin = 10 * time.Second

// Resource is one resource a server lists.
type Resource struct {
	URI         string `json:"uri"`
	Name        string `json:"name"`
	MimeType    string `json:"mime_type,omitempty"`
	Description string `json:"description,omitempty"`
}

// ResourceTemplate is one resource template a server lists (resources/templates/list).
type ResourceTemplate struct {
	URITemplate string `json:"uri_template"`
	Name        string `json:"name"`
	MimeType    string `json:"mime_type,omitempty"`
	Description string `json:"description,omitempty"`
}

// Prompt is one prompt a server lists, with its arguments' names.
type Prompt struct {
	Name        string   `json:"name"`
	Description string   `json:"description,omitempty"`
	Arguments   []string `json:"arguments,omitempty"`
	// Served is the name `cwx serve --mcp` re-exports it under: mcp_<server>_<name>, or a
	// mapped name (ModelName, as a tool's); "" when none fits.
	Served string `json:"-"`
	// Args are the arguments in full, in the server's order.
	Args []PromptArgument `json:"-"`
}

// PromptArgument is one argument of a prompt.
type PromptArgument struct {
	Name        string
	Description string
	Required    bool
}

// Offer is what a running server offers besides its tools.
type Offer struct {
	Server    string
	Prompts   []Prompt
	Resources []Resource
	Templates []ResourceTemplate
}

// PromptResult is a prompt a server gave (prompts/get), its content under the one content
// policy (core/content).
type PromptResult struct {
	Description string
	Messages    []PromptMessage
}

// PromptMessage is one message of a prompt: Role "user" or "assistant".
type PromptMessage struct {
	Role    string
	Content protocol.ContentBlock
}

// session starts the server when needed and returns its live session.
func (s *Server) session(ctx context.Context) (*mcp.ClientSession, error) {
	if err := s.Start(ctx); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cs == nil {
		return nil, errdefs.New(errdefs.ErrNotAvailable, fmt.Sprintf("mcp server %q is not running", s.cfg.Name))
	}
	return s.cs, nil
}

// running is the live session of a ready server, nil when it is not ready; it starts nothing.
func (s *Server) running() *mcp.ClientSession {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.state != StateReady {
		return nil
	}
	return s.cs
}

// offers reports which of resources and prompts the server's initialize announced.
func offers(cs *mcp.ClientSession) (resources, prompts bool) {
	r := cs.InitializeResult()
	if r == nil || r.Capabilities == nil {
		return false, false
	}
	return r.Capabilities.Resources != nil, r.Capabilities.Prompts != nil
}

// Resources lists the server's resources (none when it offers no resources), starting it.
func (s *Server) Resources(ctx context.Context) ([]Resource, error) {
	cs, err := s.session(ctx)
	if err != nil {
		return nil, err
	}
	if res, _ := offers(cs); !res {
		return nil, nil
	}
	out, err := s.listResources(ctx, cs)
	if err != nil {
		return nil, err
	}
	return out, nil
}

func (s *Server) listResources(ctx context.Context, cs *mcp.ClientSession) ([]Resource, error) {
	var out []Resource
	for r, err := range cs.Resources(ctx, nil) {
		if err != nil {
			return out, fmt.Errorf("mcp server %q: resources/list: %w", s.cfg.Name, err)
		}
		out = append(out, Resource{URI: r.URI, Name: r.Name, MimeType: r.MIMEType, Description: r.Description})
		if len(out) == MaxListed {
			break
		}
	}
	return out, nil
}

func (s *Server) listTemplates(ctx context.Context, cs *mcp.ClientSession) ([]ResourceTemplate, error) {
	var out []ResourceTemplate
	for r, err := range cs.ResourceTemplates(ctx, nil) {
		if err != nil {
			return out, fmt.Errorf("mcp server %q: resources/templates/list: %w", s.cfg.Name, err)
		}
		out = append(out, ResourceTemplate{URITemplate: r.URITemplate, Name: r.Name, MimeType: r.MIMEType, Description: r.Description})
		if len(out) == MaxListed {
			break
		}
	}
	return out, nil
}

// Prompts lists the server's prompts (none when it offers no prompts), starting it.
func (s *Server) Prompts(ctx context.Context) ([]Prompt, error) {
	cs, err := s.session(ctx)
	if err != nil {
		return nil, err
	}
	if _, pr := offers(cs); !pr {
		return nil, nil
	}
	out, err := s.listPrompts(ctx, cs)
	if err != nil {
		return nil, err
	}
	return out, nil
}

func (s *Server) listPrompts(ctx context.Context, cs *mcp.ClientSession) ([]Prompt, error) {
	var out []Prompt
	for p, err := range cs.Prompts(ctx, nil) {
		if err != nil {
			return out, fmt.Errorf("mcp server %q: prompts/list: %w", s.cfg.Name, err)
		}
		desc := p.Description
		if desc == "" {
			desc = p.Title
		}
		pr := Prompt{Name: p.Name, Description: desc}
		pr.Served, _ = ModelName(s.cfg.Name, p.Name)
		for _, a := range p.Arguments {
			if a == nil {
				continue
			}
			pr.Arguments = append(pr.Arguments, a.Name)
			pr.Args = append(pr.Args, PromptArgument{Name: a.Name, Description: a.Description, Required: a.Required})
		}
		out = append(out, pr)
		if len(out) == MaxListed {
			break
		}
	}
	return out, nil
}

// Offer lists the prompts, resources and resource templates of the server when it is
// running; it starts nothing, and a server not ready offers nothing (false). Each listing
// is bounded by ListWithin; what a failing one listed before it failed is kept, with the
// error.
func (s *Server) Offer(ctx context.Context) (Offer, bool, error) {
	cs := s.running()
	if cs == nil {
		return Offer{}, false, nil
	}
	ctx, cancel := context.WithTimeout(ctx, ListWithin)
	defer cancel()
	o := Offer{Server: s.cfg.Name}
	res, pr := offers(cs)
	var errs []error
	if pr {
		var err error
		o.Prompts, err = s.listPrompts(ctx, cs)
		errs = append(errs, err)
	}
	if res {
		var err, terr error
		o.Resources, err = s.listResources(ctx, cs)
		o.Templates, terr = s.listTemplates(ctx, cs)
		errs = append(errs, err, terr)
	}
	return o, true, errors.Join(errs...)
}

// GetPrompt gets the server's prompt wire with args (prompts/get), starting the server, under
// its timeout_s and max_result_bytes; the messages' content passes the content policy.
func (s *Server) GetPrompt(ctx context.Context, wire string, args map[string]string) (PromptResult, error) {
	start := time.Now()
	res, err := s.getPrompt(ctx, wire, args)
	s.logged("mcp prompts/get", start, err, "prompt", wire)
	return res, err
}

func (s *Server) getPrompt(ctx context.Context, wire string, args map[string]string) (PromptResult, error) {
	cs, err := s.session(ctx)
	if err != nil {
		return PromptResult{}, err
	}
	ctx, cancel := s.bounded(ctx)
	defer cancel()
	res, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: wire, Arguments: args})
	if err != nil {
		return PromptResult{}, s.requestErr(ctx, "prompts/get", err)
	}
	if err := s.fits(res); err != nil {
		return PromptResult{}, err
	}
	out := PromptResult{Description: res.Description}
	blocks := make([]protocol.ContentBlock, 0, len(res.Messages))
	for i, m := range res.Messages {
		if m == nil || m.Content == nil {
			return PromptResult{}, fmt.Errorf("mcp server %q: prompt %q: message %d has no content", s.cfg.Name, wire, i+1)
		}
		if m.Role != "user" && m.Role != "assistant" {
			return PromptResult{}, fmt.Errorf("mcp server %q: prompt %q: message %d has role %q; a prompt's roles are user and assistant", s.cfg.Name, wire, i+1, m.Role)
		}
		b, err := block(m.Content)
		if err != nil {
			return PromptResult{}, fmt.Errorf("mcp server %q: prompt %q: message %d: %w", s.cfg.Name, wire, i+1, err)
		}
		blocks = append(blocks, b)
		out.Messages = append(out.Messages, PromptMessage{Role: string(m.Role), Content: b})
	}
	if err := content.Check(blocks); err != nil {
		return PromptResult{}, fmt.Errorf("mcp server %q: prompt %q: %w", s.cfg.Name, wire, err)
	}
	return out, nil
}

// ReadResource reads the resource uri (resources/read), starting the server, under its
// timeout_s and max_result_bytes; each of its contents is a resource block under the content
// policy (an empty text content, which the policy does not count, is kept as it is).
func (s *Server) ReadResource(ctx context.Context, uri string) ([]protocol.ContentBlock, error) {
	start := time.Now()
	res, err := s.readResource(ctx, uri)
	s.logged("mcp resources/read", start, err, "uri", uri)
	return res, err
}

func (s *Server) readResource(ctx context.Context, uri string) ([]protocol.ContentBlock, error) {
	cs, err := s.session(ctx)
	if err != nil {
		return nil, err
	}
	ctx, cancel := s.bounded(ctx)
	defer cancel()
	res, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
	if err != nil {
		return nil, s.requestErr(ctx, "resources/read", err)
	}
	if err := s.fits(res); err != nil {
		return nil, err
	}
	out := make([]protocol.ContentBlock, 0, len(res.Contents))
	var checked []protocol.ContentBlock
	for i, c := range res.Contents {
		if c == nil {
			return nil, fmt.Errorf("mcp server %q: resource %q: contents %d are empty", s.cfg.Name, uri, i+1)
		}
		b := protocol.ContentBlock{Type: protocol.ContentResource, URI: c.URI, MimeType: c.MIMEType, Text: c.Text}
		if c.Blob != nil {
			b.Blob = base64.StdEncoding.EncodeToString(c.Blob)
		}
		out = append(out, b)
		if b.Text != "" || b.Blob != "" {
			checked = append(checked, b)
		}
	}
	if err := content.Check(checked); err != nil {
		return nil, fmt.Errorf("mcp server %q: resource %q: %w", s.cfg.Name, uri, err)
	}
	return out, nil
}

// bounded is ctx under the server's timeout_s, whose end is ErrTimeout.
func (s *Server) bounded(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeoutCause(ctx, time.Duration(s.cfg.TimeoutS)*time.Second,
		errdefs.New(errdefs.ErrTimeout, fmt.Sprintf("mcp server %q did not answer within timeout_s = %d", s.cfg.Name, s.cfg.TimeoutS)))
}

// requestErr words the failure of a request to the server, as Call does.
func (s *Server) requestErr(ctx context.Context, method string, err error) error {
	if cause := context.Cause(ctx); cause != nil {
		return cause
	}
	if we, ok := errors.AsType[*jsonrpc.Error](err); ok {
		return fmt.Errorf("mcp server %q answered %s with an error: %s (code %d)", s.cfg.Name, method, we.Message, we.Code)
	}
	return errdefs.New(errdefs.ErrNotAvailable, fmt.Sprintf("mcp server %q: %s: %v", s.cfg.Name, method, err))
}

// fits refuses a result longer than max_result_bytes of JSON.
func (s *Server) fits(res any) error {
	raw, err := json.Marshal(res)
	if err != nil {
		return err
	}
	if len(raw) > s.cfg.MaxResultBytes {
		return fmt.Errorf("mcp server %q: the result is %d bytes; max_result_bytes is %d", s.cfg.Name, len(raw), s.cfg.MaxResultBytes)
	}
	return nil
}

// logged logs one prompts/get or resources/read relayed for a client: at info when it
// succeeded, else at warn with the error.
func (s *Server) logged(what string, start time.Time, err error, args ...any) {
	args = append(args, "took", time.Since(start).Round(time.Millisecond))
	if err != nil {
		s.log.Warn(what+" failed", append(args, "error", err)...)
		return
	}
	s.log.Info(what, args...)
}
