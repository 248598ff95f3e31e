package mcpclient

import (
	"context"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cwx-dev/cwx/core/errdefs"
)

// MaxListed bounds the resources or prompts one listing collects (every page followed).
const MaxListed = 1000

// Resource is one resource a server lists.
type Resource struct {
	URI         string `json:"uri"`
	Name        string `json:"name"`
	MimeType    string `json:"mime_type,omitempty"`
	Description string `json:"description,omitempty"`
}

// Prompt is one prompt a server lists, with its arguments' names.
type Prompt struct {
	Name        string   `json:"name"`
	Description string   `json:"description,omitempty"`
	Arguments   []string `json:"arguments,omitempty"`
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

// Resources lists the server's resources (none when it offers no resources), starting it.
func (s *Server) Resources(ctx context.Context) ([]Resource, error) {
	cs, err := s.session(ctx)
	if err != nil {
		return nil, err
	}
	if r := cs.InitializeResult(); r == nil || r.Capabilities == nil || r.Capabilities.Resources == nil {
		return nil, nil
	}
	var out []Resource
	for r, err := range cs.Resources(ctx, nil) {
		if err != nil {
			return nil, fmt.Errorf("mcp server %q: resources/list: %w", s.cfg.Name, err)
		}
		out = append(out, Resource{URI: r.URI, Name: r.Name, MimeType: r.MIMEType, Description: r.Description})
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
	if r := cs.InitializeResult(); r == nil || r.Capabilities == nil || r.Capabilities.Prompts == nil {
		return nil, nil
	}
	var out []Prompt
	for p, err := range cs.Prompts(ctx, nil) {
		if err != nil {
			return nil, fmt.Errorf("mcp server %q: prompts/list: %w", s.cfg.Name, err)
		}
		pr := Prompt{Name: p.Name, Description: p.Description}
		for _, a := range p.Arguments {
			pr.Arguments = append(pr.Arguments, a.Name)
		}
		out = append(out, pr)
		if len(out) == MaxListed {
			break
		}
	}
	return out, nil
}
