package mcpserve

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"io"
	"sync"
	"syscall"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cwx-dev/cwx/core"
)

// Manager is what the server needs from a core.Manager.
type Manager interface {
	Tools() []core.ToolInfo
	Commands() []core.CommandInfo
	CallTool(ctx context.Context, name string, input json.RawMessage, o core.CallOptions) (core.ToolResult, error)
	RunCommand(ctx context.Context, name, rawInput string, o core.CallOptions) (core.CommandResult, error)
	Changes(ctx context.Context) <-chan core.Change
	// MCP is the Manager's MCP servers, whose prompts and resources are served beside the
	// tools and commands (gateway.go); nil serves none.
	MCP() *core.MCPServers
}

// DefaultProgressEvery is how long a call runs before its first progress notification, and
// the interval of the next ones.
const DefaultProgressEvery = time.Second

// Options configure a Server. Every field is optional.
type Options struct {
	// Name and Version are the server's implementation info; "" means "cwx" and "dev".
	Name, Version string
	// Workspace is the workspace directory calls are told about.
	Workspace string
	// Fallback answers approval cards for a client without elicitation; nil denies.
	Fallback core.Approver
	// AnswerWithin bounds how long a call waits for the client's answer to a plugin's
	// question; 0 means DefaultAnswerWithin.
	AnswerWithin time.Duration
	// ProgressEvery is the progress interval; 0 means DefaultProgressEvery.
	ProgressEvery time.Duration
	// StartWait bounds how long a client's first listing waits for the MCP servers it
	// starts (gateway.go); 0 means DefaultStartWait.
	StartWait time.Duration
	// Logger receives the server's own logs; nil discards them.
	Logger hclog.Logger
	// Instructions are the initialize result's instructions: the session's prompt section
	// its SessionStart command hooks added ("" for none).
	Instructions string
	// Explain is the message of a tools/call for a name that is not live: whose the name
	// is, that plugin's state and what to run next, or a near miss (tools.go). nil keeps
	// the SDK's "unknown tool".
	Explain func(name string) string
}

// Server is one MCP server over one Manager; it may serve many sessions.
type Server struct {
	m    Manager
	o    Options
	log  hclog.Logger
	mcp  *mcp.Server
	logs *logForwarder
	// secret keys the MACs that bind an approval answer to its call (approval.go).
	secret [32]byte

	// syncMu serializes catalog syncs; the fields below it are the catalog last given to
	// the SDK, by name, as a fingerprint of what the client sees.
	syncMu  sync.Mutex
	tools   map[string]string // +checklocks:syncMu
	prompts map[string]string // +checklocks:syncMu
	// gwPrompts and gwResources are the MCP servers' prompts and resources last given to
	// the SDK (gateway.go): prompts by name, resources by "r:"+URI and templates by
	// "t:"+URI template.
	gwPrompts   map[string]string // +checklocks:syncMu
	gwResources map[string]string // +checklocks:syncMu

	// gw is the Manager's MCP servers; nil serves none of their prompts and resources.
	gw gateway
	// routeMu guards routes: where the gateway's served prompts and resources lead, for
	// completion/complete and resources/subscribe (relay.go).
	routeMu sync.Mutex
	routes  routes // +checklocks:routeMu
	// subMu guards subs: the resources subscribed to upstream, by URI, with the sessions
	// that asked (relay.go).
	subMu sync.Mutex
	subs  map[string]*upstreamSub // +checklocks:subMu
	// updates holds the URIs of notifications/resources/updated not yet sent on; the
	// first Watch running registers for them, the last one's stop unregisters.
	updates   *updateQueue
	watchMu   sync.Mutex
	watchers  int    // +checklocks:watchMu
	unwatchGw func() // +checklocks:watchMu
	// warmTools and warmAll start, once, the MCP servers the first listings need; bg
	// holds those starts, under bgCtx, which Watch's stop cancels before it waits.
	warmTools sync.Once
	warmAll   sync.Once
	bg        sync.WaitGroup
	bgCtx     context.Context
	bgCancel  context.CancelFunc
	// warnMu guards warned: the gateway's warnings already logged.
	warnMu sync.Mutex
	warned map[string]bool // +checklocks:warnMu

	// toldMu guards told: per session, the hook holders that are down it was told what to
	// do about (tools.go).
	toldMu sync.Mutex
	told   map[*mcp.ServerSession]string // +checklocks:toldMu

	// parkMu guards the runs parked on a question (questions.go); runs counts every run.
	parkMu sync.Mutex
	parked map[string]*run // +checklocks:parkMu
	runs   sync.WaitGroup
}

// New returns a server over m. Call Watch (or Run, which watches) to keep its catalog
// live.
func New(m Manager, o Options) *Server {
	if o.Name == "" {
		o.Name = "cwx"
	}
	if o.Version == "" {
		o.Version = "dev"
	}
	if o.AnswerWithin <= 0 {
		o.AnswerWithin = DefaultAnswerWithin
	}
	if o.ProgressEvery <= 0 {
		o.ProgressEvery = DefaultProgressEvery
	}
	if o.StartWait <= 0 {
		o.StartWait = DefaultStartWait
	}
	log := o.Logger
	if log == nil {
		log = hclog.NewNullLogger()
	}
	s := &Server{m: m, o: o, log: log, tools: map[string]string{}, prompts: map[string]string{}, parked: map[string]*run{},
		told: map[*mcp.ServerSession]string{}, gwPrompts: map[string]string{}, gwResources: map[string]string{}, gw: gatewayOf(m),
		warned: map[string]bool{}, subs: map[string]*upstreamSub{}, updates: newUpdateQueue()}
	s.bgCtx, s.bgCancel = context.WithCancel(context.Background())
	_, _ = rand.Read(s.secret[:]) // crypto/rand.Read never fails
	s.mcp = mcp.NewServer(&mcp.Implementation{Name: o.Name, Version: o.Version}, &mcp.ServerOptions{
		Instructions: o.Instructions,
		Capabilities: &mcp.ServerCapabilities{
			Tools:   &mcp.ToolCapabilities{ListChanged: true},
			Prompts: &mcp.PromptCapabilities{ListChanged: true},
			// the MCP servers' resources (gateway.go), subscribed to at their server
			// (relay.go); none without servers
			Resources: &mcp.ResourceCapabilities{ListChanged: true, Subscribe: true},
			//lint:ignore SA1019 the logging capability announces notifications/message (logs.go)
			Logging: &mcp.LoggingCapabilities{},
		},
		// relay.go: completion/complete and resources/subscribe go to the MCP server that
		// serves the prompt or resource; with none, nothing completes and nothing subscribes
		CompletionHandler:  s.complete,
		SubscribeHandler:   s.subscribe,
		UnsubscribeHandler: s.unsubscribe,
	})
	s.logs = newLogForwarder(s.mcp)
	s.mcp.AddReceivingMiddleware(s.explainUnknown, s.warmStart, s.moreRounds)
	return s
}

// MCP returns the SDK server, for transports this package does not set up.
func (s *Server) MCP() *mcp.Server { return s.mcp }

// Watch syncs the catalog now and after every Change until ctx ends or the returned stop
// is called; stop closes the sessions still open (an HTTP client's), cancels the calls
// parked on a question and waits for the watcher, the log forwarder and every call to end.
func (s *Server) Watch(ctx context.Context) (stop func()) {
	ctx, cancel := context.WithCancel(ctx)
	changes := s.m.Changes(ctx) // before the first sync, so no change falls between
	s.Sync()
	var wg sync.WaitGroup
	wg.Go(func() {
		for range changes {
			s.Sync()
		}
	})
	wg.Go(func() { s.logs.run(ctx) })
	if s.gw != nil {
		unwatch := s.watchResources()
		wg.Go(func() { defer unwatch(); s.sendUpdates(ctx) })
	}
	return func() {
		cancel()
		wg.Wait()
		s.bgCancel()
		s.bg.Wait()
		for ss := range s.mcp.Sessions() {
			_ = ss.Close()
		}
		s.stopRuns()
	}
}

// Run serves one session on t (stdio: &mcp.StdioTransport{}) until the client closes it
// (stdin EOF) or ctx ends. A client that goes away, even in the middle of a call whose
// answer then cannot be written, ends the session cleanly: Run returns nil.
func (s *Server) Run(ctx context.Context, t mcp.Transport) error {
	stop := s.Watch(ctx)
	defer stop()
	err := s.mcp.Run(ctx, t)
	if ctx.Err() != nil || clientGone(err) {
		return nil
	}
	return err
}

// clientGone reports whether err only says that the client closed its end: the read saw
// the end of the stream, or a write found a closed pipe.
func clientGone(err error) bool {
	return errors.Is(err, mcp.ErrConnectionClosed) || errors.Is(err, io.EOF) ||
		errors.Is(err, io.ErrClosedPipe) || errors.Is(err, syscall.EPIPE)
}

// Sync gives the SDK the Manager's live catalog: new and changed tools and prompts, and the
// running MCP servers' prompts and resources (gateway.go), are added, gone ones removed. The SDK tells connected clients (list_changed) when something
// differs.
func (s *Server) Sync() {
	s.syncMu.Lock()
	defer s.syncMu.Unlock()
	s.syncTools()
	s.syncPrompts()
	s.syncGateway()
}
