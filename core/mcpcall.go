package core

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

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

// MCPReview is what `cwx mcp review` prints of a server (mcpclient.Review).
type MCPReview = mcpclient.Review

// mcpServers are the servers this Manager runs: config.toml's, and the servers of enabled,
// trusted Claude Code plugins that `cwx mcp trust` trusted as they are now. A plugin server
// not trusted, or changed since, is left out (and logged).
func (m *Manager) mcpServers(cfg *config.Config) map[string]config.MCPServer {
	out := maps.Clone(cfg.MCP)
	if out == nil {
		out = map[string]config.MCPServer{}
	}
	if trust, err := mcpclient.LoadTrust(m.home); err == nil && len(trust) == 0 {
		return out // nothing trusted: the plugins' folders are not read
	}
	cands, trust, err := m.mcpCandidates(cfg)
	if err != nil {
		m.log.Warn("mcp: the plugins' MCP servers are not run", "error", err)
		return out
	}
	for _, c := range cands {
		if r := mcpclient.ReviewOf(c, trust); r.Trusted {
			out[c.Server.Name] = c.Server
		} else if c.Problem == "" {
			m.log.Debug("mcp: a plugin's server is not trusted", "server", c.Server.Name, "plugin", c.Plugin)
		}
	}
	return out
}

// mcpCandidates are the MCP servers of the enabled, trusted Claude Code plugins, and the
// trust file.
func (m *Manager) mcpCandidates(cfg *config.Config) ([]mcpclient.Candidate, map[string]mcpclient.TrustEntry, error) {
	trust, err := mcpclient.LoadTrust(m.home)
	if err != nil {
		return nil, nil, err
	}
	ps, _, err := m.store.ClaudeCode()
	if err != nil {
		return nil, nil, err
	}
	return mcpclient.Candidates(ps, cfg.MCP), trust, nil
}

// ReviewMCP says what the MCP server name would run and the token that trusts it: a server
// of an enabled, trusted Claude Code plugin's .mcp.json. A server of config.toml is the
// user's decision and needs no trust (its review says so, with no token).
func (m *Manager) ReviewMCP(name string) (MCPReview, error) {
	cfg, err := config.LoadHome(m.home)
	if err != nil {
		return MCPReview{}, err
	}
	if s, ok := cfg.MCP[name]; ok {
		return MCPReview{Name: name, Command: append([]string{s.Command}, s.Args...), Env: slices.Sorted(maps.Keys(s.Env)), Cwd: s.Cwd,
			Identity: s.Identity(), Trusted: true, Note: mcpclient.ReviewNote + "; a server of config.toml is your decision and needs no trust"}, nil
	}
	cands, trust, err := m.mcpCandidates(cfg)
	if err != nil {
		return MCPReview{}, err
	}
	for _, c := range cands {
		if c.Server.Name == name {
			return mcpclient.ReviewOf(c, trust), nil
		}
	}
	return MCPReview{}, fmt.Errorf("%w: no MCP server %q in config.toml or in an enabled, trusted Claude Code plugin; `cwx mcp list` and `cwx plugin list` list them", ErrNotAvailable, name)
}

// TrustMCP trusts the plugin's MCP server name exactly as ReviewMCP showed it: token must be
// that review's. A later change of what would run (a new plugin version, other arguments)
// needs a new review. It takes effect in the next Manager (the next cwx command).
func (m *Manager) TrustMCP(name, token string) error {
	r, err := m.ReviewMCP(name)
	switch {
	case err != nil:
		return err
	case r.Plugin == "":
		return fmt.Errorf("%w: MCP server %q is in config.toml: it needs no trust", ErrInvalidInput, name)
	case r.Problem != "":
		return fmt.Errorf("%w: MCP server %q cannot run: %s", ErrNotAvailable, name, r.Problem)
	case token != r.Token:
		return fmt.Errorf("%w: the token is not the one `cwx mcp review %s` prints now (what would run changed, or the token is mistyped); review it again", ErrDenied, name)
	}
	trust, err := mcpclient.LoadTrust(m.home)
	if err != nil {
		return err
	}
	trust[name] = mcpclient.TrustEntry{Plugin: r.Plugin, Identity: r.Identity}
	return mcpclient.SaveTrust(m.home, trust)
}

// mcpSections are the prompt sections of the running MCP servers: each one's initialize
// instructions, as section `instructions` of plugin mcp:<name>, stripped (core/inert) and
// cut at registry.MaxSectionText. A server not started has none.
func (m *Manager) mcpSections() []PromptSection {
	var out []PromptSection
	for _, st := range m.mcp.Statuses() {
		if st.State != mcpclient.StateReady || strings.TrimSpace(st.Instructions) == "" {
			continue
		}
		text, _ := CutText(StripEscapes(st.Instructions), registry.MaxSectionText)
		id := mcpclient.OwnerPrefix + st.Name
		out = append(out, PromptSection{PluginID: id, ID: "instructions", Text: text, Wrapped: WrapSection(id, "instructions", text)})
	}
	return out
}
