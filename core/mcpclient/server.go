package mcpclient

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cwx-dev/cwx/core/catalog"
	"github.com/cwx-dev/cwx/core/config"
	"github.com/cwx-dev/cwx/core/egress"
	"github.com/cwx-dev/cwx/core/errdefs"
)

// The states of a server (Status.State).
const (
	StateIdle     = "idle"     // not started by this process (its tools may be cached)
	StateStarting = "starting" // spawned, initializing and listing its tools
	StateReady    = "ready"    // serving calls
	StateCrashed  = "crashed"  // ended unasked; the next use restarts it after the backoff
	StateFailed   = "failed"   // the crash budget is spent; Retry clears it
	StateStopped  = "stopped"  // Close ended it
)

// The crash budget and the backoff of a server, the tiers' numbers (core/supervisor).
const (
	CrashLimit  = 3
	CrashWindow = time.Minute
	// Backoff is the least time between the start of a generation that crashed and the
	// next start, past the window's first crash.
	Backoff = time.Second
	// StartTimeout bounds spawning, initialize and the first tools/list.
	StartTimeout = 30 * time.Second
	// MaxLineBytes bounds one JSON-RPC message from a server: a longer line (a flood on
	// stdout) ends the connection, and the server is treated as crashed.
	MaxLineBytes = 32 << 20
	// MaxToolPages bounds the tools/list pages followed.
	MaxToolPages = 64
)

// ErrSampling is what a server's sampling/createMessage gets: cwx offers no sampling.
var errSampling = &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: "cwx does not offer sampling/createMessage"}

// Options configure a Set.
type Options struct {
	Logger hclog.Logger
	// Workspace is the folder a server runs in (unless its cwd is set) and its one root.
	Workspace string
	// Version is cwx's version, told to servers in initialize.
	Version string
	// ToolsChanged is called (from the server's goroutine) after what a server offers
	// changed: its admitted tools (its start, a list_changed re-admission, its end), or its
	// prompts or resources (their list_changed).
	ToolsChanged func(server string)
	// ResourceUpdated is called (from the server's goroutine; it must not block) with each
	// notifications/resources/updated a server sends (complete.go).
	ResourceUpdated func(server, uri string)
	// Now is the clock of the crash budget; nil is time.Now.
	Now func() time.Time
	// StartTimeout bounds spawning, initialize and the first tools/list; 0 is StartTimeout.
	StartTimeout time.Duration
	// Catalog keeps each server's admitted tools, so a listing answers without starting
	// it; nil keeps nothing.
	Catalog *catalog.Store
	// Keeper returns the cwx binary that keeps each server (`cwx nodeshim keep`, the
	// subreaper and lifeline of the tiers' rules); nil starts servers directly, each with
	// only its own death signal (the package's tests, whose binary is not cwx).
	Keeper func(ctx context.Context) (string, error)
}

// Status is what `cwx mcp list` shows of a server.
type Status struct {
	Name     string    `json:"name"`
	State    string    `json:"state"`
	PID      int       `json:"pid,omitempty"`
	Tools    int       `json:"tools"`
	Refused  []Refusal `json:"refused,omitempty"`
	Restarts int       `json:"restarts"`
	LastErr  string    `json:"last_error,omitempty"`
	Identity string    `json:"identity"`
	Approval string    `json:"approval"`
	Command  []string  `json:"command,omitempty"`
	Cwd      string    `json:"cwd,omitempty"`
	// Transport, URL and Headers (names only) are a remote server's.
	Transport string   `json:"transport,omitempty"`
	URL       string   `json:"url,omitempty"`
	Headers   []string `json:"headers,omitempty"`
	// Plugin is the plugin whose .mcp.json brought the server, "" for config.toml's.
	Plugin string `json:"plugin,omitempty"`
	// Instructions is what the server's initialize said about using it.
	Instructions string `json:"instructions,omitempty"`
}

// Call carries what one tool call passes through besides its input.
type Call struct {
	// Progress receives the server's progress notifications of this call; nil asks for none.
	Progress func(progress, total float64, message string)
	// Elicit answers the server's elicitation/create while this call runs (its message and
	// requested schema, in the server's field order); nil declines.
	Elicit func(ctx context.Context, message string, schema json.RawMessage) (Elicited, error)
}

// Elicited is the person's answer to an elicitation: Action "accept" (with Content, the
// form's values), "decline" or "cancel".
type Elicited struct {
	Action  string
	Content map[string]any
}

// Result is a tool call's answer, as the server gave it (the caller applies the content
// policy).
type Result struct {
	Content    []mcp.Content
	IsError    bool
	Structured json.RawMessage
}

// Server is one configured server and the process serving it, if any. Safe for
// concurrent use.
type Server struct {
	cfg config.MCPServer
	o   Options
	log hclog.Logger

	startMu sync.Mutex // one start at a time

	mu        sync.Mutex
	state     string             // +checklocks:mu
	p         *proc              // +checklocks:mu
	cs        *mcp.ClientSession // +checklocks:mu
	tools     []Tool             // +checklocks:mu
	refused   []Refusal          // +checklocks:mu
	crashes   []time.Time        // +checklocks:mu
	restarts  int                // +checklocks:mu
	lastErr   string             // +checklocks:mu
	lastStart time.Time          // +checklocks:mu
	instr     string             // +checklocks:mu
	// calls are the running calls, newest last; progress has those that asked for progress,
	// by their token.
	calls     []*Call          // +checklocks:mu
	progress  map[string]*Call // +checklocks:mu
	watchDone chan struct{}    // +checklocks:mu
	// subs are the resources subscribed to (complete.go), kept across generations.
	subs []string // +checklocks:mu

	// rem is a remote server's egress client and secrets, made at its first start.
	rem      atomic.Pointer[remote]
	tokens   atomic.Uint64
	remember func(*Server, []Tool) // the Set's catalog write
	schemas  rawSchemas            // the requested schemas of elicitations, as the server wrote them
}

func newServer(cfg config.MCPServer, o Options, remember func(*Server, []Tool)) *Server {
	return &Server{cfg: cfg, o: o, log: o.Logger.Named("mcp").With("server", cfg.Name), state: StateIdle,
		progress: map[string]*Call{}, remember: remember}
}

// Config is the server's configuration.
func (s *Server) Config() config.MCPServer { return s.cfg }

// Status reports the server.
func (s *Server) Status() Status {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := Status{Name: s.cfg.Name, State: s.state, Tools: len(s.tools), Refused: append([]Refusal(nil), s.refused...),
		Restarts: s.restarts, LastErr: s.lastErr, Identity: s.cfg.Identity(), Approval: s.cfg.Approval,
		Command: append([]string{s.cfg.Command}, s.cfg.Args...), Cwd: s.cfg.Cwd, Plugin: s.cfg.Plugin, Instructions: s.instr}
	if s.p != nil && !s.p.exited() {
		st.PID = s.p.pid
	}
	if s.cfg.Remote() {
		st.Command, st.Transport, st.URL, st.Headers = nil, s.cfg.Transport, egress.RedactQuery(s.cfg.URL), s.cfg.HeaderNames()
	}
	return st
}

// Tools returns the admitted tools of the running server (nil when it is not ready).
func (s *Server) Tools() []Tool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.state != StateReady {
		return nil
	}
	return append([]Tool(nil), s.tools...)
}

// Retry clears a failed server's crash budget.
func (s *Server) Retry() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.crashes = nil
	if s.state == StateFailed {
		s.state = StateCrashed
	}
}

// Start makes the server ready: nothing when it is, else (after the backoff of a crash)
// it spawns the process, initializes the session and admits its tools. A failed server
// is refused until Retry.
func (s *Server) Start(ctx context.Context) error {
	s.startMu.Lock()
	defer s.startMu.Unlock()
	s.mu.Lock()
	state, wait, lastErr := s.state, s.backoffLocked(), s.lastErr
	s.mu.Unlock()
	switch state {
	case StateReady:
		return nil
	case StateFailed:
		return errdefs.New(errdefs.ErrNotAvailable, fmt.Sprintf("mcp server %q failed %d times within %s (%s); fix it and run `cwx mcp list` again in a new process, or Retry", s.cfg.Name, CrashLimit, CrashWindow, lastErr))
	case StateStopped:
		return errdefs.New(errdefs.ErrNotAvailable, fmt.Sprintf("mcp server %q was stopped", s.cfg.Name))
	}
	if wait > 0 {
		t := time.NewTimer(wait)
		defer t.Stop()
		select {
		case <-t.C:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	err := s.start(ctx)
	if err != nil {
		msg := s.redact(err.Error())
		s.mu.Lock()
		s.crashLocked(msg)
		s.mu.Unlock()
		return errdefs.New(errdefs.ErrNotAvailable, msg)
	}
	return nil
}

// backoffLocked is how long a start must still wait after the last crash.
//
// +checklocks:s.mu
func (s *Server) backoffLocked() time.Duration {
	if len(s.crashes) < 2 || s.lastStart.IsZero() {
		return 0
	}
	return time.Until(s.lastStart.Add(Backoff))
}

// crashLocked counts a crash of the current generation and leaves the server crashed, or
// failed once the budget is spent.
//
// +checklocks:s.mu
func (s *Server) crashLocked(reason string) {
	now := s.now()
	kept := s.crashes[:0]
	for _, c := range s.crashes {
		if now.Sub(c) < CrashWindow {
			kept = append(kept, c)
		}
	}
	s.crashes = append(kept, now)
	s.lastErr = reason
	s.state = StateCrashed
	if len(s.crashes) >= CrashLimit {
		s.state = StateFailed
	}
	s.log.Warn("mcp server ended", "reason", reason, "state", s.state)
}

func (s *Server) now() time.Time {
	if s.o.Now != nil {
		return s.o.Now()
	}
	return time.Now()
}

// start spawns and connects one generation.
func (s *Server) start(ctx context.Context) error {
	bound := s.o.StartTimeout
	if bound <= 0 {
		bound = StartTimeout
	}
	ctx, cancel := context.WithTimeoutCause(ctx, bound, fmt.Errorf("mcp server %q did not initialize and list its tools within %s", s.cfg.Name, bound))
	defer cancel()
	dir := s.cfg.Cwd
	if dir == "" {
		dir = s.o.Workspace
	}
	if dir == "" {
		dir, _ = os.Getwd()
	}
	s.mu.Lock()
	if !s.lastStart.IsZero() {
		s.restarts++
	}
	s.lastStart = s.now()
	s.state = StateStarting
	s.mu.Unlock()

	p, tr, err := s.connectWith(ctx, dir)
	if err != nil {
		return err
	}
	relist := make(chan struct{}, 1)
	client := s.client(relist)
	cs, err := client.Connect(ctx, s.watched(tr), nil)
	if rem := s.rem.Load(); err != nil && rem != nil && s.cfg.Transport == config.MCPHTTP && rem.legacy.Load() && ctx.Err() == nil {
		// The spec's backward compatibility: a server whose POST of initialize gets a 4xx
		// may speak only the legacy HTTP+SSE transport at the same URL.
		s.log.Info("mcp server answered the Streamable HTTP initialize with a 4xx; trying the legacy SSE transport", "error", s.redact(err.Error()))
		cs, err = s.client(relist).Connect(ctx, s.watched(rem.sse(s.cfg)), nil)
	}
	if err != nil {
		p.kill()
		if c := context.Cause(ctx); c != nil {
			err = c
		}
		return fmt.Errorf("mcp server %q: initialize: %w%s", s.cfg.Name, err, tailOf(p))
	}
	tools, refused, err := s.listTools(ctx, cs)
	if err != nil {
		_ = cs.Close()
		p.kill()
		return fmt.Errorf("mcp server %q: tools/list: %w%s", s.cfg.Name, err, tailOf(p))
	}
	watchDone := make(chan struct{})
	s.mu.Lock()
	s.p, s.cs, s.tools, s.refused, s.state, s.watchDone = p, cs, tools, refused, StateReady, watchDone
	if r := cs.InitializeResult(); r != nil {
		s.instr = r.Instructions
	}
	s.mu.Unlock()
	for _, r := range refused {
		s.log.Warn("mcp tool refused", "tool", r.Wire, "reason", r.Reason)
	}
	go s.watch(p, cs, relist, watchDone) // owner: the Server; joined by Close through watchDone
	s.resubscribe(ctx, cs)
	s.changed()
	return nil
}

// watched is tr with its connection watched (rawschema.go: the requested schemas kept as
// written, each tools/call result bounded as read), except Streamable HTTP's: the SDK tells
// its connection the session's state through an unexported method a wrapper cannot pass on
// (without it the connection never opens its event stream, so no list_changed arrives), so
// there a form's fields come in the SDK's order and Call bounds the result by its content.
func (s *Server) watched(tr mcp.Transport) mcp.Transport {
	if _, ok := tr.(*mcp.StreamableClientTransport); ok {
		return tr
	}
	return schemaTransport{Transport: tr, raw: &s.schemas, maxResult: s.cfg.MaxResultBytes}
}

// connectWith is the transport of one generation: a spawned process's pipes, or a remote
// server's HTTP through its egress policy (p is nil then).
func (s *Server) connectWith(ctx context.Context, dir string) (*proc, mcp.Transport, error) {
	if s.cfg.Remote() {
		rem := s.rem.Load()
		if rem == nil {
			var err error
			if rem, err = newRemote(s.cfg); err != nil {
				return nil, nil, err
			}
			s.rem.Store(rem)
		}
		return nil, rem.transport(s.cfg), nil
	}
	keeper := ""
	if s.o.Keeper != nil {
		var err error
		if keeper, err = s.o.Keeper(ctx); err != nil {
			return nil, nil, fmt.Errorf("mcp server %q: %w", s.cfg.Name, err)
		}
	}
	p, err := spawn(s.cfg, dir, keeper, s.o.Logger)
	if err != nil {
		return nil, nil, err
	}
	return p, &mcp.IOTransport{Reader: p.stdout, Writer: p.stdin, MaxLineLength: MaxLineBytes}, nil
}

// redact keeps a remote server's header values and URL query out of s.
func (s *Server) redact(str string) string { return s.rem.Load().redact(str) }

func tailOf(p *proc) string {
	if p == nil {
		return ""
	}
	if t := p.stderrTail(); t != "" {
		return " (stderr: " + t + ")"
	}
	return ""
}

// watch waits for the generation to end and records a crash when nobody asked for it.
func (s *Server) watch(p *proc, cs *mcp.ClientSession, relist <-chan struct{}, done chan struct{}) {
	defer close(done)
	waited := make(chan error, 1)
	go func() { waited <- cs.Wait() }() // ends when the connection does; joined below
	var exited <-chan struct{}          // nil for a remote server: only its connection ends
	if p != nil {
		exited = p.done
	}
	var reason string
	for reason == "" {
		select {
		case <-relist:
			s.readmit(cs)
			continue
		case err := <-waited:
			reason = "the connection ended"
			if err != nil {
				reason += ": " + err.Error()
			}
			_ = cs.Close() // ends the SDK's own goroutines (subscriptions/listen)
			p.kill()
		case <-exited:
			_ = cs.Close()
			<-waited
			reason = "the process exited"
			if p.err != nil {
				reason += ": " + p.err.Error()
			}
		}
	}
	reason = s.redact(reason + tailOf(p))
	s.mu.Lock()
	if s.p == p && s.state == StateReady {
		s.crashLocked(reason)
		s.p, s.cs = nil, nil
	}
	s.mu.Unlock()
	s.changed()
}

func (s *Server) changed() {
	if tools := s.Tools(); tools != nil && s.remember != nil {
		s.remember(s, tools)
	}
	s.notifyChanged()
}

// notifyChanged tells Options.ToolsChanged that what the server offers changed.
func (s *Server) notifyChanged() {
	if s.o.ToolsChanged != nil {
		s.o.ToolsChanged(s.cfg.Name)
	}
}

// client is the go-sdk client of one generation: roots (the workspace only), elicitation
// (only during a running call), no sampling (a request for it gets -32601), list_changed
// re-admits the tools, progress goes to the call that asked for it.
func (s *Server) client(relist chan<- struct{}) *mcp.Client {
	c := mcp.NewClient(&mcp.Implementation{Name: "cwx", Version: s.o.Version}, &mcp.ClientOptions{
		//lint:ignore SA1019 roots are what a server on any protocol version is told of the workspace
		Capabilities:       &mcp.ClientCapabilities{RootsV2: &mcp.RootCapabilities{}},
		ElicitationHandler: s.elicit,
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {
			select { // watch re-admits; one pending request stands for any number
			case relist <- struct{}{}:
			default:
			}
		},
		// A server's prompts and resources are listed afresh by whoever follows ToolsChanged
		// (the change feed; serve --mcp re-lists them on every change).
		PromptListChangedHandler:    func(context.Context, *mcp.PromptListChangedRequest) { s.notifyChanged() },
		ResourceListChangedHandler:  func(context.Context, *mcp.ResourceListChangedRequest) { s.notifyChanged() },
		ProgressNotificationHandler: s.onProgress,
		ResourceUpdatedHandler:      s.resourceUpdated,
	})
	if ws := s.root(); ws != "" {
		//lint:ignore SA1019 roots are what a server on any protocol version is told of the workspace
		c.AddRoots(&mcp.Root{URI: (&url.URL{Scheme: "file", Path: ws}).String(), Name: "workspace"})
	}
	c.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method == "sampling/createMessage" {
				s.log.Warn("mcp server asked for sampling; refused")
				return nil, errSampling
			}
			return next(ctx, method, req)
		}
	})
	return c
}

// root is the one root a server is told: the workspace.
func (s *Server) root() string {
	abs, err := filepath.Abs(s.o.Workspace) // "" is the folder cwx runs in
	if err != nil {
		return ""
	}
	return abs
}

// listTools follows tools/list's pages and admits what the server lists.
func (s *Server) listTools(ctx context.Context, cs *mcp.ClientSession) ([]Tool, []Refusal, error) {
	var all []*mcp.Tool
	params := &mcp.ListToolsParams{}
	for page := 0; ; page++ {
		if page == MaxToolPages {
			return nil, nil, fmt.Errorf("more than %d pages of tools", MaxToolPages)
		}
		res, err := cs.ListTools(ctx, params)
		if err != nil {
			return nil, nil, err
		}
		all = append(all, res.Tools...)
		if len(all) > 4*MaxTools {
			return nil, nil, fmt.Errorf("more than %d tools listed", 4*MaxTools)
		}
		if res.NextCursor == "" {
			break
		}
		params = &mcp.ListToolsParams{Cursor: res.NextCursor}
	}
	tools, refused := Admit(s.cfg.Name, all, s.cfg.Allowed)
	return tools, refused, nil
}

// readmit lists and admits the tools again after the server said they changed.
func (s *Server) readmit(cs *mcp.ClientSession) {
	ctx, cancel := context.WithTimeout(context.Background(), StartTimeout)
	defer cancel()
	tools, refused, err := s.listTools(ctx, cs)
	if err != nil {
		s.log.Warn("mcp tools/list after list_changed failed; the old tools stay", "error", err)
		return
	}
	s.mu.Lock()
	if s.cs == cs {
		s.tools, s.refused = tools, refused
	}
	s.mu.Unlock()
	s.changed()
}

// elicit answers elicitation/create: only while a call of this server runs, by that call's
// Elicit (the newest one's), and never in URL mode.
func (s *Server) elicit(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
	if req.Params.Mode == "url" {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "cwx refuses URL-mode elicitation"}
	}
	s.mu.Lock()
	var c *Call
	for i := len(s.calls) - 1; i >= 0; i-- {
		if s.calls[i].Elicit != nil {
			c = s.calls[i]
			break
		}
	}
	running := len(s.calls) > 0
	s.mu.Unlock()
	switch {
	case !running:
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest, Message: "cwx answers elicitation only during a call of this server's tools"}
	case c == nil:
		return &mcp.ElicitResult{Action: "decline"}, nil
	}
	a, err := c.Elicit(ctx, req.Params.Message, s.schemas.take(req.Params.RequestedSchema))
	if err != nil {
		return nil, err
	}
	return &mcp.ElicitResult{Action: a.Action, Content: a.Content}, nil
}

func (s *Server) onProgress(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
	tok := fmt.Sprint(req.Params.ProgressToken)
	s.mu.Lock()
	c := s.progress[tok]
	s.mu.Unlock()
	if c != nil && c.Progress != nil {
		c.Progress(req.Params.Progress, req.Params.Total, req.Params.Message)
	}
}

// Call calls the server's tool with input (already validated and approved), under the
// server's timeout_s and max_result_bytes, starting the server when it is not running.
// Cancelling ctx cancels the call on the server (notifications/cancelled).
func (s *Server) Call(ctx context.Context, wire string, input json.RawMessage, c *Call) (Result, error) {
	if err := s.Start(ctx); err != nil {
		return Result{}, err
	}
	if c == nil {
		c = &Call{}
	}
	s.mu.Lock()
	cs := s.cs
	s.calls = append(s.calls, c)
	tok := ""
	if c.Progress != nil {
		tok = "cwx-" + strconv.FormatUint(s.tokens.Add(1), 10)
		s.progress[tok] = c
	}
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		for i, x := range s.calls {
			if x == c {
				s.calls = append(s.calls[:i], s.calls[i+1:]...)
				break
			}
		}
		delete(s.progress, tok)
	}()
	if cs == nil {
		return Result{}, errdefs.New(errdefs.ErrNotAvailable, fmt.Sprintf("mcp server %q is not running", s.cfg.Name))
	}
	ctx, cancel := context.WithTimeoutCause(ctx, time.Duration(s.cfg.TimeoutS)*time.Second,
		errdefs.New(errdefs.ErrTimeout, fmt.Sprintf("mcp server %q did not answer within timeout_s = %d", s.cfg.Name, s.cfg.TimeoutS)))
	defer cancel()
	params := &mcp.CallToolParams{Name: wire, Arguments: input}
	if tok != "" {
		params.SetProgressToken(tok)
	}
	res, err := cs.CallTool(ctx, params)
	if err != nil {
		if cause := context.Cause(ctx); cause != nil {
			return Result{}, cause
		}
		var we *jsonrpc.Error
		switch {
		case errors.As(err, &we) && we.Code == codeResultTooLarge: // schemaConn's bound
			return Result{}, fmt.Errorf("mcp server %q: %s", s.cfg.Name, we.Message)
		case errors.As(err, &we):
			return Result{}, fmt.Errorf("mcp server %q answered an error: %s (code %d)", s.cfg.Name, s.redact(we.Message), we.Code)
		}
		return Result{}, errdefs.New(errdefs.ErrNotAvailable, s.redact(fmt.Sprintf("mcp server %q: %v", s.cfg.Name, err)))
	}
	if s.cfg.Transport == config.MCPHTTP {
		if n := contentBytes(res); n > s.cfg.MaxResultBytes {
			return Result{}, fmt.Errorf("mcp server %q: the result holds %d bytes; max_result_bytes is %d", s.cfg.Name, n, s.cfg.MaxResultBytes)
		}
	}
	out := Result{Content: res.Content, IsError: res.IsError}
	if res.StructuredContent != nil {
		if out.Structured, err = schemaBytes(res.StructuredContent); err != nil {
			return Result{}, err
		}
	}
	return out, nil
}

// Close ends the server's process, if any, and waits for it.
func (s *Server) Close() {
	s.startMu.Lock()
	defer s.startMu.Unlock()
	s.mu.Lock()
	p, cs, done := s.p, s.cs, s.watchDone
	s.p, s.cs, s.state = nil, nil, StateStopped
	s.mu.Unlock()
	if cs != nil {
		_ = cs.Close()
	}
	if p != nil {
		p.stop()
	}
	if done != nil {
		<-done
	}
	if rem := s.rem.Load(); rem != nil {
		rem.close()
	}
}
