package core

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/cwx-dev/cwx/core/config"
	"github.com/cwx-dev/cwx/core/errdefs"
	"github.com/cwx-dev/cwx/core/gate"
	"github.com/cwx-dev/cwx/core/hooks"
	"github.com/cwx-dev/cwx/core/mcpclient"
	"github.com/cwx-dev/cwx/core/registry"
)

// MCPServerStatus is what `cwx mcp list` shows of one MCP server of config.toml
// (mcpclient.Status).
type MCPServerStatus = mcpclient.Status

// MCPServers reports the MCP servers of config.toml, sorted by name; none is started.
func (m *Manager) MCPServers() []MCPServerStatus { return m.mcp.Statuses() }

// StartMCP starts the MCP server called name, if it is not running, and reports it.
func (m *Manager) StartMCP(ctx context.Context, name string) (MCPServerStatus, error) {
	srv, ok := m.mcp.Server(name)
	if !ok {
		return MCPServerStatus{}, fmt.Errorf("%w: no MCP server %q in config.toml; `cwx mcp list` lists them", ErrNotAvailable, name)
	}
	err := srv.Start(ctx)
	return srv.Status(), err
}

// mcpTools lists the MCP servers' tools for Tools: a running server's admitted tools, else
// what the catalog kept of its last admission (Cached); names in taken are left out.
func (m *Manager) mcpTools(taken map[string]bool) []ToolInfo {
	var out []ToolInfo
	for _, name := range m.mcp.Names() {
		srv, _ := m.mcp.Server(name)
		origin := OriginMCP + name
		if live := srv.Tools(); live != nil {
			for _, t := range live {
				if !taken[registry.Fold(t.Name)] {
					out = append(out, ToolInfo{Name: t.Name, PluginID: mcpclient.OwnerPrefix + name, Origin: origin,
						Description: t.Description, InputSchema: slices.Clone(t.InputSchema)})
				}
			}
			continue
		}
		cached, _ := m.mcp.Cached(name)
		for _, t := range cached {
			if !taken[registry.Fold(t.Name)] {
				out = append(out, ToolInfo{Name: t.Name, PluginID: mcpclient.OwnerPrefix + name, Origin: origin,
					Description: t.Description, InputSchema: slices.Clone(t.InputSchema), Cached: true})
			}
		}
	}
	return out
}

// OriginMCP prefixes the Origin of an MCP server's tool: mcp:<server>.
const OriginMCP = "mcp:"

// callMCP is CallTool for a tool of an MCP server, through the same gate as an extension
// tool's call: the server is started when it is not running (only that one), the tool looked
// up in its live admission, the input validated against the admitted schema, the pre-execute
// hooks asked under Claude Code's name mcp__<server>__<tool>, then the gate under keys bound
// to the server's identity digest (approval = "auto" in its table approves without a card;
// its annotations are shown, never lower the approval); the result is checked by the content
// policy and structuredContent against the admitted outputSchema.
func (m *Manager) callMCP(ctx context.Context, srv *mcpclient.Server, name string, input json.RawMessage, opts CallOptions) (ToolResult, error) {
	cfg := srv.Config()
	if err := srv.Start(ctx); err != nil {
		return ToolResult{}, fmt.Errorf("tool %q: %w", name, err)
	}
	_, tool, ok := m.mcp.Lookup(name)
	if !ok {
		return ToolResult{}, fmt.Errorf("%w: tool %q: MCP server %q does not offer it now; `cwx mcp show %s` lists what it offers and refused",
			ErrUnknownTool, name, cfg.Name, cfg.Name)
	}
	if err := tool.ValidateInput(input); err != nil {
		return ToolResult{}, err
	}
	req := gate.Request{PluginID: mcpclient.OwnerPrefix + cfg.Name, ClosureSHA256: cfg.Identity(), Tool: tool.Wire,
		Input: input, Requirement: gate.Required, MCP: true, Notes: mcpNotes(cfg, tool)}
	if cfg.Approval == config.MCPApprovalAuto {
		req.Requirement = gate.Eligible
	}
	callID := m.cc.ids.next(toolCall)
	input, err := m.pre.run(ctx, preCall{name: tool.HookName(), callID: callID, input: input, mode: hooks.ModeAgent,
		workspace: opts.Workspace, session: opts.SessionID, validate: tool.ValidateInput}, &req)
	if err != nil {
		return ToolResult{}, err
	}
	if _, err := m.gate.Check(ctx, req, opts.Approver); err != nil {
		if ctx.Err() != nil && !errors.Is(err, ErrDenied) {
			return ToolResult{}, fmt.Errorf("tool %q: %w: %w", name, ErrCancelled, err)
		}
		return ToolResult{}, fmt.Errorf("tool %q: %w", name, err)
	}
	res, err := srv.Call(ctx, tool.Wire, input, &mcpclient.Call{Progress: opts.Progress, Elicit: m.elicitFor(cfg.Name, name, opts.Asker)})
	switch {
	case err == nil:
	case ctx.Err() != nil:
		return ToolResult{}, fmt.Errorf("tool %q: %w: %w", name, ErrCancelled, context.Cause(ctx))
	case errors.Is(err, errdefs.ErrTimeout), errors.Is(err, errdefs.ErrNotAvailable):
		return ToolResult{}, fmt.Errorf("tool %q: %w", name, err)
	default:
		return ToolResult{}, &ExecutionError{Name: name, Message: err.Error()}
	}
	blocks, err := mcpclient.Blocks(tool, res)
	if err != nil {
		return ToolResult{}, &ExecutionError{Name: name, Message: fmt.Sprintf("MCP server %q: %v", cfg.Name, err)}
	}
	out := ToolResult{Content: blocks, IsError: res.IsError, Structured: res.Structured}
	m.hooks.afterCall(ctx, tool.HookName(), callID, input, &out, nil, opts)
	return out, nil
}

// mcpNotes are the card's lines about an MCP tool: what its server runs and what it says of
// the tool (annotations are the server's claims, shown and not enforced).
func mcpNotes(cfg config.MCPServer, t mcpclient.Tool) []string {
	notes := []string{fmt.Sprintf("server `%s` runs %q with %d arguments", cfg.Name, cfg.Command, len(cfg.Args))}
	if t.ReadOnly {
		notes = append(notes, "the server says this tool only reads (readOnlyHint; not enforced)")
	}
	if t.Destructive {
		notes = append(notes, "the server says this tool may destroy data (destructiveHint)")
	}
	return notes
}

// MCPToolPrefix starts the model-facing name of every MCP server's tool (no plugin tool may
// use it).
const MCPToolPrefix = mcpclient.Prefix

// MCPResource and MCPPrompt are what an MCP server lists (mcpclient.Resource, .Prompt).
type (
	MCPResource = mcpclient.Resource
	MCPPrompt   = mcpclient.Prompt
)

// MCPServerTools reports the admitted tools of the MCP server name, starting it.
func (m *Manager) MCPServerTools(ctx context.Context, name string) ([]ToolInfo, error) {
	if _, err := m.StartMCP(ctx, name); err != nil {
		return nil, err
	}
	srv, _ := m.mcp.Server(name)
	var out []ToolInfo
	for _, t := range srv.Tools() {
		out = append(out, ToolInfo{Name: t.Name, PluginID: mcpclient.OwnerPrefix + name, Origin: OriginMCP + name,
			Description: t.Description, InputSchema: slices.Clone(t.InputSchema)})
	}
	return out, nil
}

// MCPResources lists the resources of the MCP server name, starting it.
func (m *Manager) MCPResources(ctx context.Context, name string) ([]MCPResource, error) {
	srv, ok := m.mcp.Server(name)
	if !ok {
		return nil, fmt.Errorf("%w: no MCP server %q in config.toml; `cwx mcp list` lists them", ErrNotAvailable, name)
	}
	return srv.Resources(ctx)
}

// MCPPrompts lists the prompts of the MCP server name, starting it.
func (m *Manager) MCPPrompts(ctx context.Context, name string) ([]MCPPrompt, error) {
	srv, ok := m.mcp.Server(name)
	if !ok {
		return nil, fmt.Errorf("%w: no MCP server %q in config.toml; `cwx mcp list` lists them", ErrNotAvailable, name)
	}
	return srv.Prompts(ctx)
}
