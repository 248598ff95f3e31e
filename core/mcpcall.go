package core

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"

	"github.com/hashicorp/go-hclog"

	"github.com/cwx-dev/cwx/core/config"
	"github.com/cwx-dev/cwx/core/egress"
	"github.com/cwx-dev/cwx/core/elicit"
	"github.com/cwx-dev/cwx/core/errdefs"
	"github.com/cwx-dev/cwx/core/gate"
	"github.com/cwx-dev/cwx/core/hooks"
	"github.com/cwx-dev/cwx/core/mcpclient"
	"github.com/cwx-dev/cwx/core/plugins"
	"github.com/cwx-dev/cwx/core/registry"
)

// The types of the MCP servers' facade, each the same type as the one core/mcpclient keeps.
type (
	// MCPServerStatus is what `cwx mcp list` shows of one server (mcpclient.Status).
	MCPServerStatus = mcpclient.Status
	// MCPResource and MCPPrompt are what a server lists (mcpclient.Resource, .Prompt).
	MCPResource = mcpclient.Resource
	MCPPrompt   = mcpclient.Prompt
	// MCPReview is what `cwx mcp review` prints of a server (mcpclient.Review).
	MCPReview = mcpclient.Review
)

// MCPToolPrefix starts the model-facing name of every MCP server's tool (no plugin tool may
// use it).
const MCPToolPrefix = mcpclient.Prefix

// MCPServers is the MCP servers a Manager runs (Manager.MCP): config.toml's
// [mcp.servers.<name>] tables, and the servers of enabled, trusted Claude Code plugins that
// `cwx mcp trust` trusted as they are now (core/mcpclient). Nothing starts until a call of a
// server's tools, or one of the methods below that says it starts one.
type MCPServers struct {
	home  string
	log   hclog.Logger
	store *plugins.Store
	set   *mcpclient.Set
}

// openSet holds the servers of cfg and the trusted plugin servers; it starts none.
func (s *MCPServers) openSet(cfg *config.Config, o mcpclient.Options) *mcpclient.Set {
	o.Logger = s.log
	s.set = mcpclient.NewSet(s.servers(cfg), o)
	return s.set
}

// MCP is the MCP servers of this Manager.
func (m *Manager) MCP() *MCPServers {
	return &MCPServers{home: m.home, log: m.log, store: m.store, set: m.mcp}
}

// List reports every server, sorted by name; it starts none.
func (s *MCPServers) List() []MCPServerStatus { return s.set.Statuses() }

// Start starts the server called name, if it is not running, and reports it.
func (s *MCPServers) Start(ctx context.Context, name string) (MCPServerStatus, error) {
	srv, err := s.server(name)
	if err != nil {
		return MCPServerStatus{}, err
	}
	err = srv.Start(ctx)
	return srv.Status(), err
}

func (s *MCPServers) server(name string) (*mcpclient.Server, error) {
	srv, ok := s.set.Server(name)
	if !ok {
		return nil, fmt.Errorf("%w: no MCP server %q in config.toml or trusted; `cwx mcp list` lists them", ErrNotAvailable, name)
	}
	return srv, nil
}

// Tools reports the admitted tools of the server name, starting it.
func (s *MCPServers) Tools(ctx context.Context, name string) ([]ToolInfo, error) {
	if _, err := s.Start(ctx, name); err != nil {
		return nil, err
	}
	srv, _ := s.set.Server(name)
	var out []ToolInfo
	for _, t := range srv.Tools() {
		out = append(out, ToolInfo{Name: t.Name, PluginID: mcpclient.OwnerPrefix + name, Origin: OriginMCP + name,
			Description: t.Description, InputSchema: slices.Clone(t.InputSchema)})
	}
	return out, nil
}

// Resources lists the resources of the server name, starting it.
func (s *MCPServers) Resources(ctx context.Context, name string) ([]MCPResource, error) {
	srv, err := s.server(name)
	if err != nil {
		return nil, err
	}
	return srv.Resources(ctx)
}

// Prompts lists the prompts of the server name, starting it.
func (s *MCPServers) Prompts(ctx context.Context, name string) ([]MCPPrompt, error) {
	srv, err := s.server(name)
	if err != nil {
		return nil, err
	}
	return srv.Prompts(ctx)
}

// listed are the servers' tools for Manager.Tools: a running server's admitted tools, else
// what the catalog kept of its last admission (Cached); names in taken are left out.
func (s *MCPServers) listed(taken map[string]bool) []ToolInfo {
	var out []ToolInfo
	for _, name := range s.set.Names() {
		srv, _ := s.set.Server(name)
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
		cached, _ := s.set.Cached(name)
		for _, t := range cached {
			if !taken[registry.Fold(t.Name)] {
				out = append(out, ToolInfo{Name: t.Name, PluginID: mcpclient.OwnerPrefix + name, Origin: origin,
					Description: t.Description, InputSchema: slices.Clone(t.InputSchema), Cached: true})
			}
		}
	}
	return out
}

// sections are the prompt sections of the running servers: each one's initialize
// instructions, as section `instructions` of plugin mcp:<name>, stripped (core/inert) and
// cut at registry.MaxSectionText. A server not started has none.
func (s *MCPServers) sections() []PromptSection {
	var out []PromptSection
	for _, st := range s.set.Statuses() {
		if st.State != mcpclient.StateReady || strings.TrimSpace(st.Instructions) == "" {
			continue
		}
		text, _ := CutText(StripEscapes(st.Instructions), registry.MaxSectionText)
		id := mcpclient.OwnerPrefix + st.Name
		out = append(out, PromptSection{PluginID: id, ID: "instructions", Text: text, Wrapped: WrapSection(id, "instructions", text)})
	}
	return out
}

// servers are config.toml's servers and the trusted servers of plugins and of
// mcp_servers_file files. One not trusted, or changed since, is left out; with nothing
// trusted no plugin folder or file is read.
func (s *MCPServers) servers(cfg *config.Config) map[string]config.MCPServer {
	out := maps.Clone(cfg.MCP)
	if out == nil {
		out = map[string]config.MCPServer{}
	}
	if trust, err := mcpclient.LoadTrust(s.home); err == nil && len(trust) == 0 {
		return out
	}
	cands, trust, fileErrs, err := s.candidates(cfg)
	if err != nil {
		s.log.Warn("mcp: the plugins' and files' MCP servers are not run", "error", err)
		return out
	}
	for _, e := range fileErrs {
		s.log.Warn("mcp: a file's MCP servers are not run", "error", e)
	}
	for _, c := range cands {
		if r := mcpclient.ReviewOf(c, trust); r.Trusted {
			out[c.Server.Name] = c.Server
		} else if c.Problem == "" {
			s.log.Debug("mcp: a server is not trusted", "server", c.Server.Name, "plugin", c.Plugin, "file", c.Server.Source)
		}
	}
	return out
}

// candidates are the MCP servers of the enabled, trusted Claude Code plugins and of the
// mcp_servers_file files (with the errors of the files that could not be read), and the
// trust file.
func (s *MCPServers) candidates(cfg *config.Config) ([]mcpclient.Candidate, map[string]mcpclient.TrustEntry, []error, error) {
	trust, err := mcpclient.LoadTrust(s.home)
	if err != nil {
		return nil, nil, nil, err
	}
	ps, _, err := s.store.ClaudeCode()
	if err != nil {
		return nil, nil, nil, err
	}
	files, fileErrs := mcpclient.ReadFiles(cfg.MCPFiles, os.LookupEnv)
	return mcpclient.Candidates(ps, files, cfg.MCP), trust, fileErrs, nil
}

// Problems are what keeps the servers of an mcp_servers_file from running at all: a file
// that cannot be read, is not a Claude Code or VS Code MCP file, or names a variable that
// is not set. Each names its file.
func (s *MCPServers) Problems() []string {
	cfg, err := config.LoadHome(s.home)
	if err != nil {
		return []string{err.Error()}
	}
	_, errs := mcpclient.ReadFiles(cfg.MCPFiles, os.LookupEnv)
	var out []string
	for _, e := range errs {
		out = append(out, e.Error())
	}
	return out
}

// Review says what the server name would run or reach and the token that trusts it: a
// server of an enabled, trusted Claude Code plugin's .mcp.json or of an mcp_servers_file. A
// server of config.toml is the user's decision and needs no trust (its review says so, with
// no token).
func (s *MCPServers) Review(name string) (MCPReview, error) {
	cfg, err := config.LoadHome(s.home)
	if err != nil {
		return MCPReview{}, err
	}
	if c, ok := cfg.MCP[name]; ok {
		r := mcpclient.ReviewOfServer(c)
		r.Trusted, r.Note = true, r.Note+"; a server of config.toml is your decision and needs no trust"
		return r, nil
	}
	cands, trust, fileErrs, err := s.candidates(cfg)
	if err != nil {
		return MCPReview{}, err
	}
	for _, c := range cands {
		if c.Server.Name == name {
			return mcpclient.ReviewOf(c, trust), nil
		}
	}
	err = fmt.Errorf("%w: no MCP server %q in config.toml, an mcp_servers_file or an enabled, trusted Claude Code plugin; `cwx mcp list` and `cwx plugin list` list them", ErrNotAvailable, name)
	return MCPReview{}, errors.Join(append([]error{err}, fileErrs...)...)
}

// Trust trusts the plugin's or file's server name exactly as Review showed it: token must be that
// review's. A later change of what would run (a new plugin version, other arguments) needs a
// new review. It takes effect in the next Manager (the next cwx command).
func (s *MCPServers) Trust(name, token string) error {
	r, err := s.Review(name)
	switch {
	case err != nil:
		return err
	case r.Plugin == "" && r.Source == "":
		return fmt.Errorf("%w: MCP server %q is in config.toml: it needs no trust", ErrInvalidInput, name)
	case r.Problem != "":
		return fmt.Errorf("%w: MCP server %q cannot run: %s", ErrNotAvailable, name, r.Problem)
	case token != r.Token:
		return fmt.Errorf("%w: the token is not the one `cwx mcp review %s` prints now (what would run changed, or the token is mistyped); review it again", ErrDenied, name)
	}
	trust, err := mcpclient.LoadTrust(s.home)
	if err != nil {
		return err
	}
	trust[name] = mcpclient.TrustEntry{Plugin: r.Plugin, Source: r.Source, Identity: r.Identity}
	return mcpclient.SaveTrust(s.home, trust)
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
	res, err := srv.Call(ctx, tool.Wire, input, &mcpclient.Call{Progress: opts.Progress, Elicit: elicit.Answerer(m.log, cfg.Name, name, opts.Asker)})
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

// mcpNotes are the card's lines about an MCP tool: what its server runs, or where it is
// reached (its URL's query redacted), and what it says of the tool (annotations are the
// server's claims, shown and not enforced).
func mcpNotes(cfg config.MCPServer, t mcpclient.Tool) []string {
	notes := []string{fmt.Sprintf("server `%s` runs %q with %d arguments", cfg.Name, cfg.Command, len(cfg.Args))}
	if cfg.Remote() {
		notes[0] = fmt.Sprintf("server `%s` is reached at %s (%s)", cfg.Name, egress.RedactQuery(cfg.URL), cfg.Transport)
	}
	if t.ReadOnly {
		notes = append(notes, "the server says this tool only reads (readOnlyHint; not enforced)")
	}
	if t.Destructive {
		notes = append(notes, "the server says this tool may destroy data (destructiveHint)")
	}
	return notes
}

// The gateway: what `cwx serve --mcp` re-exports of the servers besides their tools
// (core/mcpserve doc.go, “MCP server”).
type (
	// MCPOffer is what one running server offers besides its tools (mcpclient.Offer): its
	// prompts, each with the name it is served under, its resources and resource templates.
	MCPOffer = mcpclient.Offer
	// MCPResourceTemplate is a resource template a server lists (mcpclient.ResourceTemplate).
	MCPResourceTemplate = mcpclient.ResourceTemplate
	// MCPPromptArgument is one argument of a server's prompt (mcpclient.PromptArgument).
	MCPPromptArgument = mcpclient.PromptArgument
	// MCPPromptResult is a prompt a server gave, its messages' content under the content
	// policy (mcpclient.PromptResult, of mcpclient.PromptMessage).
	MCPPromptResult  = mcpclient.PromptResult
	MCPPromptMessage = mcpclient.PromptMessage
	// MCPCompleteRequest is one completion/complete of a server's prompt or resource
	// template argument (mcpclient.CompleteRequest); MCPCompletion is the server's answer.
	MCPCompleteRequest = mcpclient.CompleteRequest
	MCPCompletion      = mcpclient.Completion
)

// Offers lists what each running server offers besides its tools, the servers in parallel,
// each listing within mcpclient.ListWithin, sorted by server. It starts none (StartIdle
// does); a listing that fails is logged, and what it listed before it failed kept.
func (s *MCPServers) Offers(ctx context.Context) []MCPOffer {
	type listed struct {
		o    MCPOffer
		live bool
	}
	names := s.set.Names()
	got := make([]chan listed, len(names))
	for i, name := range names {
		srv, _ := s.set.Server(name)
		got[i] = make(chan listed, 1)
		go func() { // joined below: each sends once
			o, live, err := srv.Offer(ctx)
			if err != nil {
				s.log.Warn("mcp: a server's prompts or resources were not listed", "server", name, "error", err)
			}
			got[i] <- listed{o, live}
		}()
	}
	var out []MCPOffer
	for _, c := range got {
		if l := <-c; l.live {
			out = append(out, l.o)
		}
	}
	return out
}

// StartIdle starts, in parallel, the servers this process has not started yet (idle), and
// waits for them; with uncachedOnly only those the catalog knows no tools of either (Tools
// lists the others from it). A start that fails is logged and leaves the server crashed, as
// any failed start does; a server that crashed or failed before is not started again here.
func (s *MCPServers) StartIdle(ctx context.Context, uncachedOnly bool) {
	var started []chan struct{}
	for _, st := range s.set.Statuses() {
		if st.State != mcpclient.StateIdle {
			continue
		}
		if _, cached := s.set.Cached(st.Name); uncachedOnly && cached {
			continue
		}
		srv, _ := s.set.Server(st.Name)
		done := make(chan struct{})
		started = append(started, done)
		go func() { // joined below
			defer close(done)
			if err := srv.Start(ctx); err != nil {
				s.log.Warn("mcp: a server did not start for a listing", "server", st.Name, "error", err)
			}
		}()
	}
	for _, done := range started {
		<-done
	}
}

// GetPrompt gets the prompt wire of the server called server with args (prompts/get),
// starting the server, under its timeout_s and max_result_bytes; the messages' content
// passes the content policy. Like a tool's call it is logged; unlike one it is neither
// hooked nor gated: a prompt is the person's pick, and its text goes to the client only.
func (s *MCPServers) GetPrompt(ctx context.Context, server, wire string, args map[string]string) (MCPPromptResult, error) {
	srv, err := s.server(server)
	if err != nil {
		return MCPPromptResult{}, err
	}
	return srv.GetPrompt(ctx, wire, args)
}

// ReadResource reads uri from the server called server (resources/read), starting it, under
// its timeout_s and max_result_bytes; each of its contents is a resource block under the
// content policy. It is logged, and neither hooked nor gated, as GetPrompt.
func (s *MCPServers) ReadResource(ctx context.Context, server, uri string) ([]ContentBlock, error) {
	srv, err := s.server(server)
	if err != nil {
		return nil, err
	}
	return srv.ReadResource(ctx, uri)
}

// Complete asks the server called server to complete an argument of its prompt or resource
// template (completion/complete), starting it, under its timeout_s and max_result_bytes; a
// server that offers no completions gives none. Like GetPrompt it is neither hooked nor
// gated: the values go to the client's input field only.
func (s *MCPServers) Complete(ctx context.Context, server string, req MCPCompleteRequest) (MCPCompletion, error) {
	srv, err := s.server(server)
	if err != nil {
		return MCPCompletion{}, err
	}
	return srv.Complete(ctx, req)
}

// Subscribe subscribes to resource uri of the server called server (resources/subscribe),
// starting it; the subscription outlives the server's restarts until Unsubscribe, and its
// updates reach WatchResources. A server that offers no subscriptions refuses (ErrRefused).
func (s *MCPServers) Subscribe(ctx context.Context, server, uri string) error {
	srv, err := s.server(server)
	if err != nil {
		return err
	}
	return srv.Subscribe(ctx, uri)
}

// Unsubscribe drops the subscription to uri of the server called server; it starts nothing.
func (s *MCPServers) Unsubscribe(ctx context.Context, server, uri string) error {
	srv, err := s.server(server)
	if err != nil {
		return err
	}
	return srv.Unsubscribe(ctx, uri)
}

// WatchResources calls fn with each notifications/resources/updated a server sends (server
// and URI, as the server wrote it; fn must not block) until stop is called.
func (s *MCPServers) WatchResources(fn func(server, uri string)) (stop func()) {
	return s.set.WatchResources(fn)
}
