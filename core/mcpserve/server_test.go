package mcpserve

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cwx-dev/cwx/core"
	"github.com/cwx-dev/cwx/core/registry"
)

// connect runs srv on one end of an in-memory transport and returns a client session on
// the other; the test's cleanup closes both.
func connect(t *testing.T, srv *Server, opts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	return connectAt(t, srv, opts, "")
}

// connectAt is connect with the client on protocol version v ("" is the SDK's latest).
func connectAt(t *testing.T, srv *Server, opts *mcp.ClientOptions, v string) *mcp.ClientSession {
	t.Helper()
	ct, st := mcp.NewInMemoryTransports()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Run(ctx, st) }()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, opts).Connect(ctx, ct, &mcp.ClientSessionOptions{ProtocolVersion: v})
	if err != nil {
		cancel()
		<-done
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cs.Close()
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Run: %v", err)
		}
	})
	return cs
}

func text(r *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range r.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// TestListFollowsChanges: tools/list is the live catalog with origin-prefixed descriptions,
// and each change of the catalog reaches the client as list_changed.
func TestListFollowsChanges(t *testing.T) {
	f := newFake()
	f.set([]core.ToolInfo{tool("a_tool", "p1"), {Name: "read_file", Origin: "native", Description: "Read a file.", InputSchema: json.RawMessage(`{"type":"object"}`), ReadOnly: true}}, nil)
	changed := make(chan struct{}, 8)
	cs := connect(t, New(f, Options{}), &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { changed <- struct{}{} },
	})
	names := func() string {
		res, err := cs.ListTools(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, tl := range res.Tools {
			entry := tl.Name + "=" + tl.Description
			if tl.Annotations != nil && tl.Annotations.ReadOnlyHint {
				entry += " (read-only)"
			}
			out = append(out, entry)
		}
		return strings.Join(out, ",")
	}
	if got, want := names(), "a_tool=[extension:p1] does a_tool,read_file=[native] Read a file. (read-only)"; got != want {
		t.Fatalf("tools/list: %s, want %s", got, want)
	}
	steps := []struct {
		tools []core.ToolInfo
		want  string
	}{
		{[]core.ToolInfo{tool("a_tool", "p1"), tool("b_tool", "p2")}, "a_tool=[extension:p1] does a_tool,b_tool=[extension:p2] does b_tool"},
		{[]core.ToolInfo{tool("b_tool", "p2")}, "b_tool=[extension:p2] does b_tool"},
		{nil, ""},
	}
	for i, s := range steps {
		f.set(s.tools, nil)
		select {
		case <-changed:
		case <-time.After(10 * time.Second):
			t.Fatalf("step %d: no list_changed", i)
		}
		if got := names(); got != s.want {
			t.Errorf("step %d: tools/list %s, want %s", i, got, s.want)
		}
	}
}

// TestCallResults maps each kind of answer and refusal of the core.
func TestCallResults(t *testing.T) {
	f := newFake()
	f.set([]core.ToolInfo{tool("t", "p")}, nil)
	var answer atomic.Value
	f.call = func(context.Context, string, json.RawMessage, core.CallOptions) (core.ToolResult, error) {
		a := answer.Load().(func() (core.ToolResult, error))
		return a()
	}
	cs := connect(t, New(f, Options{}), nil)
	cases := []struct {
		name       string
		res        core.ToolResult
		err        error
		isError    bool
		text       string
		structured string
	}{
		{"text", core.ToolResult{Content: []core.ContentBlock{{Type: "text", Text: "hello"}}}, nil, false, "hello", ""},
		{"structured", core.ToolResult{Content: []core.ContentBlock{{Type: "text", Text: `{"n":1}`}}, Structured: json.RawMessage(`{"n":1}`)}, nil, false, `{"n":1}`, `{"n":1}`},
		{"plugin error result", core.ToolResult{Content: []core.ContentBlock{{Type: "text", Text: "bad"}}, IsError: true}, nil, true, "bad", ""},
		{"invalid input", core.ToolResult{}, fmt.Errorf("tool %q: %w", "t", &registry.InputError{Tool: "t", Violations: []string{"/text: expected string, but got number"}}), true, "invalid input: tool \"t\": input for tool `t` does not match its schema: /text: expected string", ""},
		{"plugin threw", core.ToolResult{}, &core.ExecutionError{Name: "t", Message: "boom"}, true, "the plugin failed: t: extension failed: boom", ""},
		{"host exited", core.ToolResult{}, fmt.Errorf("tool %q: %w", "t", core.ErrHostExited), true, "the extension host exited during the call", ""},
		{"timeout", core.ToolResult{}, fmt.Errorf("tool %q: %w", "t", core.ErrTimeout), true, "timed out", ""},
		{"escapes stripped", core.ToolResult{}, &core.ExecutionError{Name: "t", Message: "a\x1b[31mred"}, true, "failed: ared", ""},
	}
	for _, c := range cases {
		answer.Store(func() (core.ToolResult, error) { return c.res, c.err })
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "t", Arguments: map[string]any{}})
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		got := ""
		if res.StructuredContent != nil {
			b, _ := json.Marshal(res.StructuredContent)
			got = string(b)
		}
		if res.IsError != c.isError || !strings.Contains(text(res), c.text) || got != c.structured {
			t.Errorf("%s: isError=%v text=%q structured=%s", c.name, res.IsError, text(res), got)
		}
	}
	if _, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "nope"}); err == nil || !strings.Contains(err.Error(), `unknown tool "nope"`) {
		t.Errorf("unknown tool: %v", err)
	}
}

// TestCancellationAndProgress: a call running past ProgressEvery sends progress, and the
// client's cancellation ends the Manager call's context.
func TestCancellationAndProgress(t *testing.T) {
	f := newFake()
	f.set([]core.ToolInfo{tool("wait", "p")}, nil)
	cancelled := make(chan error, 1)
	f.call = func(ctx context.Context, _ string, _ json.RawMessage, _ core.CallOptions) (core.ToolResult, error) {
		<-ctx.Done()
		cancelled <- ctx.Err()
		return core.ToolResult{}, fmt.Errorf("%w: %w", core.ErrCancelled, ctx.Err())
	}
	progress := make(chan float64, 16)
	cs := connect(t, New(f, Options{ProgressEvery: time.Millisecond}), &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
			select {
			case progress <- r.Params.Progress:
			default:
			}
		},
	})
	ctx, cancel := context.WithCancel(context.Background())
	p := &mcp.CallToolParams{Name: "wait", Arguments: map[string]any{}}
	p.SetProgressToken("tok")
	done := make(chan error, 1)
	go func() { _, err := cs.CallTool(ctx, p); done <- err }()
	if n := <-progress; n != 1 {
		t.Errorf("first progress %v, want 1", n)
	}
	cancel()
	if err := <-cancelled; !errors.Is(err, context.Canceled) {
		t.Errorf("the Manager call's context ended with %v", err)
	}
	if err := <-done; err == nil {
		t.Error("the cancelled call returned no error")
	}
}

// TestApprovalByElicitation: the approval card reaches the client as an elicitation, and
// its answer decides; a client without elicitation gets the fallback's refusal.
func TestApprovalByElicitation(t *testing.T) {
	f := newFake()
	f.set([]core.ToolInfo{tool("t", "p")}, nil)
	f.call = func(ctx context.Context, name string, in json.RawMessage, o core.CallOptions) (core.ToolResult, error) {
		if err := approve(ctx, name, in, o); err != nil {
			return core.ToolResult{}, err
		}
		return core.ToolResult{Content: []core.ContentBlock{{Type: "text", Text: "ran"}}}, nil
	}
	var answer atomic.Value
	var asked atomic.Value
	asked.Store("")
	cs := connect(t, New(f, Options{}), &mcp.ClientOptions{
		ElicitationHandler: func(_ context.Context, r *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			asked.Store(r.Params.Message)
			a := answer.Load().(string)
			if a == "" {
				return &mcp.ElicitResult{Action: "decline"}, nil
			}
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"decision": a}}, nil
		},
	})
	cases := []struct {
		answer  string
		isError bool
		text    string
	}{
		{answerOnce, false, "ran"},
		{answerSession, false, "ran"},
		{answerDeny, true, "denied: tool \"t\": denied: not approved"},
		{"", true, "declined the approval request (decline)"},
	}
	for _, c := range cases {
		answer.Store(c.answer)
		asked.Store("")
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "t", Arguments: map[string]any{"text": "x"}})
		if err != nil || res.IsError != c.isError || !strings.Contains(text(res), c.text) {
			t.Errorf("answer %q: %v isError=%v %q", c.answer, err, res != nil && res.IsError, text(orEmpty(res)))
		}
		if m := asked.Load().(string); !strings.Contains(m, "Extension tool `t` from plugin `p`") {
			t.Errorf("answer %q: the elicitation showed %q", c.answer, m)
		}
	}

	plain := connect(t, New(f, Options{}), nil)
	res, err := plain.CallTool(context.Background(), &mcp.CallToolParams{Name: "t", Arguments: map[string]any{}})
	if err != nil || !res.IsError || !strings.Contains(text(res), "no elicitation") {
		t.Errorf("no elicitation: %v %+v", err, res)
	}
}

// TestApprovalStateBound: an answer counts only with the request state of the same card.
func TestApprovalStateBound(t *testing.T) {
	s := New(newFake(), Options{})
	other := New(newFake(), Options{})
	cases := []struct {
		name  string
		state string
		key   string
		want  bool
	}{
		{"same key", s.state("k1"), "k1", true},
		{"another key", s.state("k1"), "k2", false},
		{"another server", other.state("k1"), "k1", false},
		{"empty", "", "k1", false},
	}
	for _, c := range cases {
		if got := s.stateValid(c.state, c.key); got != c.want {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}

// TestCommandsArePrompts: prompts/list lists the commands; prompts/get runs one.
func TestCommandsArePrompts(t *testing.T) {
	f := newFake()
	f.set(nil, []core.CommandInfo{{Name: "greet", PluginID: "p", Origin: "extension:p", Description: "Greet.", ArgumentHint: "<name>"}})
	f.run = func(_ context.Context, name, input string) (core.CommandResult, error) {
		switch input {
		case "submit":
			return core.CommandResult{Kind: "submit", Prompt: "say hi"}, nil
		case "fail":
			return core.CommandResult{Kind: "error", Text: "usage: /greet <name>"}, nil
		}
		return core.CommandResult{Kind: "success", Text: "hi " + input}, nil
	}
	cs := connect(t, New(f, Options{}), nil)
	list, err := cs.ListPrompts(context.Background(), nil)
	if err != nil || len(list.Prompts) != 1 || list.Prompts[0].Description != "[extension:p] Greet." || list.Prompts[0].Arguments[0].Description != "<name>" {
		t.Fatalf("prompts/list: %v %+v", err, list)
	}
	cases := []struct{ input, role, text string }{
		{"Ada", "assistant", "hi Ada"},
		{"submit", "user", "say hi"},
		{"fail", "assistant", "usage: /greet <name>"},
	}
	for _, c := range cases {
		res, err := cs.GetPrompt(context.Background(), &mcp.GetPromptParams{Name: "greet", Arguments: map[string]string{"input": c.input}})
		if err != nil || len(res.Messages) != 1 || string(res.Messages[0].Role) != c.role || res.Messages[0].Content.(*mcp.TextContent).Text != c.text {
			t.Errorf("prompts/get %q: %v %+v", c.input, err, res)
		}
	}
}

func orEmpty(r *mcp.CallToolResult) *mcp.CallToolResult {
	if r == nil {
		return &mcp.CallToolResult{}
	}
	return r
}

// TestApprovalOffersToolGrant: the elicitation offers the terminal prompter's choices,
// "allow this tool for the session" included, and that answer reaches the gate as
// AllowToolForSession; a forced card offers neither session grant.
func TestApprovalOffersToolGrant(t *testing.T) {
	f := newFake()
	f.set([]core.ToolInfo{tool("t", "p"), tool("shell", "p")}, nil)
	decided := make(chan core.Decision, 4)
	f.call = func(ctx context.Context, name string, in json.RawMessage, o core.CallOptions) (core.ToolResult, error) {
		card := core.ApprovalCard{Key: "ext:p@c:" + name + ":" + string(in), PluginID: "p", Tool: name,
			Title: "Extension tool `" + name + "` from plugin `p`", Input: string(in)}
		if name == "shell" {
			card.Forced = true
		} else {
			card.ToolKey, card.ToolChoice = "tool:ext:p@c:"+name, "allow `"+name+"` from `p` at this exact version with any input for the session"
		}
		d, err := o.Approver.Approve(ctx, card)
		if err != nil {
			return core.ToolResult{}, fmt.Errorf("%w: %w", core.ErrDenied, err)
		}
		decided <- d
		return core.ToolResult{Content: []core.ContentBlock{{Type: "text", Text: "ran"}}}, nil
	}
	schemas := make(chan string, 4)
	cs := connect(t, New(f, Options{}), &mcp.ClientOptions{
		ElicitationHandler: func(_ context.Context, r *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			b, _ := json.Marshal(r.Params.RequestedSchema)
			schemas <- string(b)
			a := answerOnce // the SDK refuses an answer the form does not offer
			if strings.Contains(string(b), answerTool) {
				a = answerTool
			}
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"decision": a}}, nil
		},
	})
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "t", Arguments: map[string]any{"text": "x"}})
	if err != nil || res.IsError {
		t.Fatalf("call: %v %q", err, text(orEmpty(res)))
	}
	if d := <-decided; d != core.AllowToolForSession {
		t.Errorf("the answer reached the gate as %s", d)
	}
	schema := <-schemas
	for _, s := range []string{`"allow_once","allow_session","allow_tool","deny"`, "Allow `t` from `p` at this exact version with any input for the session"} {
		if !strings.Contains(schema, s) {
			t.Errorf("the elicitation's form lacks %s: %s", s, schema)
		}
	}
	res, err = cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "shell", Arguments: map[string]any{"text": "x"}})
	if err != nil || res.IsError {
		t.Fatalf("forced call: %v %q", err, text(orEmpty(res)))
	}
	if d := <-decided; d != core.AllowOnce {
		t.Errorf("the forced call's answer reached the gate as %s", d)
	}
	if schema := <-schemas; strings.Contains(schema, "allow_tool") || strings.Contains(schema, "allow_session") {
		t.Errorf("a forced card's form offers a session grant: %s", schema)
	}
	// Even an answer the form did not offer grants nothing on a forced card.
	forced := core.ApprovalCard{Forced: true, ToolKey: "tool:native:shell"}
	for _, a := range []string{answerTool, answerSession} {
		d, err := decision(&mcp.ElicitResult{Action: "accept", Content: map[string]any{"decision": a}}, forced)
		if err != nil || d != core.AllowOnce {
			t.Errorf("%s on a forced card: %s, %v", a, d, err)
		}
	}
}

// TestMCPServerProgressPassesThrough: an MCP server's tool reports its own progress, which
// reaches the client as it is (no ticks of the serve loop in between).
func TestMCPServerProgressPassesThrough(t *testing.T) {
	f := newFake()
	f.set([]core.ToolInfo{tool("mcp_s_work", "mcp:s")}, nil)
	f.call = func(_ context.Context, _ string, _ json.RawMessage, o core.CallOptions) (core.ToolResult, error) {
		if o.Progress == nil {
			return core.ToolResult{}, errors.New("no progress function for an MCP tool's call")
		}
		o.Progress(0.5, 2, "half")
		time.Sleep(20 * time.Millisecond) // longer than ProgressEvery: a tick would show
		return core.ToolResult{Content: []core.ContentBlock{{Type: "text", Text: "done"}}}, nil
	}
	type seen struct {
		p, total float64
		msg      string
	}
	progress := make(chan seen, 16)
	cs := connect(t, New(f, Options{ProgressEvery: time.Millisecond}), &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
			progress <- seen{r.Params.Progress, r.Params.Total, r.Params.Message}
		},
	})
	p := &mcp.CallToolParams{Name: "mcp_s_work", Arguments: map[string]any{}}
	p.SetProgressToken("tok")
	res, err := cs.CallTool(context.Background(), p)
	if err != nil || text(res) != "done" {
		t.Fatalf("call: %v %v", res, err)
	}
	if got := <-progress; got != (seen{0.5, 2, "half"}) {
		t.Fatalf("progress %+v", got)
	}
	select {
	case extra := <-progress:
		t.Fatalf("a tick reached the client: %+v", extra)
	case <-time.After(50 * time.Millisecond):
	}
}
