// Package mcptest is the test MCP server of the MCP client's tests and the core's: a test
// binary runs it in place of its tests when ModeEnv is set (in the server's env table of the
// test's config), one behavior per mode (Run).
package mcptest

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ModeEnv names the mode a test binary runs the server in.
const ModeEnv = "CWX_TEST_MCP_SERVER"

// Main runs the server and exits when ModeEnv is set, and returns otherwise: the first line
// of a TestMain.
func Main() {
	if mode := os.Getenv(ModeEnv); mode != "" {
		os.Exit(Run(mode))
	}
}

// Run is the test MCP server, one behavior per mode:
//
//   - tools: the go-sdk server over stdio, with a resource (test://readme), a prompt (greet)
//     and the tools echo, sleep (progress, then waits to be
//     cancelled), env (its environment), structured (an outputSchema kept), badstruct (one
//     broken), crash (exits during the call), ask_name (elicits a name), add_tool
//     (adds a tool: list_changed), touch (notifications/resources/updated of
//     test://readme), subscribed (the URIs subscribed to; the server completes greet's who),
//     orphan (starts a sleep in a session of its own and
//     answers its pid), the mapped a.b, and a page size of 2;
//   - collide: tools get-env and get_env, and ok;
//   - crash-start: exits before initialize;
//   - hang: reads stdin and never answers;
//   - hang-after-init: serves, then outlives stdin's EOF and SIGTERM;
//   - flood: writes an endless line to stdout;
//   - garbage: answers every request with invalid JSON-RPC;
//   - sample: a hand-written server whose one tool asks the client for sampling and reports
//     the error code it got.
func Run(mode string) int {
	switch mode {
	case "crash-start":
		fmt.Fprintln(os.Stderr, "test server: giving up at start")
		return 7
	case "hang":
		_, _ = bufio.NewReader(os.Stdin).ReadString(0)
		time.Sleep(time.Hour)
		return 0
	case "flood":
		line := []byte(strings.Repeat("x", 1<<16))
		for {
			if _, err := os.Stdout.Write(line); err != nil {
				return 0
			}
		}
	case "garbage", "sample":
		return rawServer(mode)
	}
	if mode == "hang-after-init" {
		// serves, and ignores stdin's EOF and SIGTERM: only a kill ends it
		signal.Ignore(syscall.SIGTERM, syscall.SIGHUP, syscall.SIGPIPE)
		srv := mcp.NewServer(&mcp.Implementation{Name: "cwx-test", Version: "1"}, nil)
		_ = srv.Run(context.Background(), &mcp.StdioTransport{})
		time.Sleep(time.Hour)
		return 0
	}
	var subs subscriptions
	srv := mcp.NewServer(&mcp.Implementation{Name: "cwx-test", Version: "1"}, &mcp.ServerOptions{PageSize: 2, Instructions: "use echo",
		CompletionHandler: complete, SubscribeHandler: subs.subscribe, UnsubscribeHandler: subs.unsubscribe})
	type text struct {
		Text string `json:"text"`
	}
	type secs struct {
		Seconds float64 `json:"seconds"`
	}
	type empty struct{}
	if mode == "collide" {
		for _, n := range []string{"get-env", "get_env", "ok"} {
			mcp.AddTool(srv, &mcp.Tool{Name: n, Description: n}, func(context.Context, *mcp.CallToolRequest, empty) (*mcp.CallToolResult, any, error) {
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: n}}}, nil, nil
			})
		}
		return run(srv)
	}
	fmt.Fprintln(os.Stderr, "test server: ready")
	srv.AddResource(&mcp.Resource{URI: "test://readme", Name: "readme", MIMEType: "text/plain", Description: "A resource."},
		func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, Text: "read me"}}}, nil
		})
	srv.AddPrompt(&mcp.Prompt{Name: "greet", Description: "Greet someone.", Arguments: []*mcp.PromptArgument{{Name: "who"}}},
		func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: "hello"}}}}, nil
		})
	mcp.AddTool(srv, &mcp.Tool{Name: "echo", Description: "Echo the text."}, func(_ context.Context, _ *mcp.CallToolRequest, in text) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: in.Text}}}, nil, nil
	})
	mcp.AddTool(srv, &mcp.Tool{Name: "a.b", Description: "A dotted name."}, func(context.Context, *mcp.CallToolRequest, empty) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "dotted"}}}, nil, nil
	})
	mcp.AddTool(srv, &mcp.Tool{Name: "sleep", Description: "Report progress, then sleep."}, func(ctx context.Context, req *mcp.CallToolRequest, in secs) (*mcp.CallToolResult, any, error) {
		if tok := req.Params.GetProgressToken(); tok != nil {
			_ = req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: tok, Progress: 1, Total: 2, Message: "half"})
		}
		select {
		case <-time.After(time.Duration(in.Seconds * float64(time.Second))):
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "slept"}}}, nil, nil
		case <-ctx.Done():
			fmt.Fprintln(os.Stderr, "test server: sleep cancelled")
			return nil, nil, ctx.Err()
		}
	})
	mcp.AddTool(srv, &mcp.Tool{Name: "env", Description: "The environment."}, func(context.Context, *mcp.CallToolRequest, empty) (*mcp.CallToolResult, any, error) {
		env := os.Environ()
		slices.Sort(env)
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: strings.Join(env, "\n")}}}, nil, nil
	})
	type sum struct {
		Sum int `json:"sum"`
	}
	type pair struct {
		A int `json:"a"`
		B int `json:"b"`
	}
	mcp.AddTool(srv, &mcp.Tool{Name: "structured", Description: "Add two numbers."}, func(_ context.Context, _ *mcp.CallToolRequest, in pair) (*mcp.CallToolResult, sum, error) {
		return nil, sum{Sum: in.A + in.B}, nil
	})
	srv.AddTool(&mcp.Tool{Name: "badstruct", Description: "Breaks its outputSchema.", InputSchema: json.RawMessage(`{"type":"object"}`),
		OutputSchema: json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}`)},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "{}"}}, StructuredContent: json.RawMessage(`{"n":"one"}`)}, nil
		})
	mcp.AddTool(srv, &mcp.Tool{Name: "crash", Description: "Exit mid-call."}, func(context.Context, *mcp.CallToolRequest, empty) (*mcp.CallToolResult, any, error) {
		fmt.Fprintln(os.Stderr, "test server: crashing on purpose")
		os.Exit(9)
		return nil, nil, nil
	})
	srv.AddTool(&mcp.Tool{Name: "ask_name", Description: "Ask the person's name.", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			if resp, ok := req.Params.InputResponses["name"].(*mcp.ElicitResult); ok {
				name, _ := resp.Content["name"].(string)
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: resp.Action + ":" + name}}}, nil
			}
			return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{"name": &mcp.ElicitParams{Mode: "form", Message: "Your name?",
				RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{"name": map[string]any{"type": "string"}}}}},
				RequestState: "asked"}, nil
		})
	mcp.AddTool(srv, &mcp.Tool{Name: "orphan", Description: "Start a sleep in a session of its own and answer its pid."}, func(context.Context, *mcp.CallToolRequest, empty) (*mcp.CallToolResult, any, error) {
		cmd := exec.Command("sleep", "300")
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true} // out of the server's group and session
		if err := cmd.Start(); err != nil {
			return nil, nil, err
		}
		pid := cmd.Process.Pid
		_ = cmd.Process.Release() // not waited for: it outlives this server unless its keeper ends it
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: strconv.Itoa(pid)}}}, nil, nil
	})
	mcp.AddTool(srv, &mcp.Tool{Name: "touch", Description: "Say test://readme changed."}, func(ctx context.Context, _ *mcp.CallToolRequest, _ empty) (*mcp.CallToolResult, any, error) {
		if err := srv.ResourceUpdated(ctx, &mcp.ResourceUpdatedNotificationParams{URI: "test://readme"}); err != nil {
			return nil, nil, err
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "touched"}}}, nil, nil
	})
	mcp.AddTool(srv, &mcp.Tool{Name: "subscribed", Description: "The URIs subscribed to."}, func(context.Context, *mcp.CallToolRequest, empty) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: strings.Join(subs.list(), ",")}}}, nil, nil
	})
	mcp.AddTool(srv, &mcp.Tool{Name: "add_tool", Description: "Add a tool."}, func(context.Context, *mcp.CallToolRequest, empty) (*mcp.CallToolResult, any, error) {
		mcp.AddTool(srv, &mcp.Tool{Name: "late", Description: "Added later."}, func(context.Context, *mcp.CallToolRequest, empty) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "late"}}}, nil, nil
		})
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "added"}}}, nil, nil
	})
	return run(srv)
}

// complete completes greet's argument who from a fixed list by prefix, one value holding
// a terminal escape.
func complete(_ context.Context, req *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
	out := &mcp.CompleteResult{Completion: mcp.CompletionResultDetails{Values: []string{}}}
	if req.Params.Ref.Type != "ref/prompt" || req.Params.Ref.Name != "greet" || req.Params.Argument.Name != "who" {
		return out, nil
	}
	for _, v := range []string{"Ada", "Alan", "Al\x1b[31mice", "Grace"} {
		if strings.HasPrefix(v, req.Params.Argument.Value) {
			out.Completion.Values = append(out.Completion.Values, v)
		}
	}
	out.Completion.Total = len(out.Completion.Values)
	return out, nil
}

// subscriptions are the URIs a client subscribed to.
type subscriptions struct {
	mu   sync.Mutex
	uris []string
}

func (s *subscriptions) subscribe(_ context.Context, req *mcp.SubscribeRequest) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !slices.Contains(s.uris, req.Params.URI) {
		s.uris = append(s.uris, req.Params.URI)
	}
	return nil
}

func (s *subscriptions) unsubscribe(_ context.Context, req *mcp.UnsubscribeRequest) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.uris = slices.DeleteFunc(s.uris, func(u string) bool { return u == req.Params.URI })
	return nil
}

func (s *subscriptions) list() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.uris)
}

func run(srv *mcp.Server) int {
	if err := srv.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		fmt.Fprintln(os.Stderr, "test server:", err)
		return 1
	}
	return 0
}

// rawServer speaks JSON-RPC by hand, for what the SDK's server will not send.
func rawServer(mode string) int {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<20)
	out := json.NewEncoder(os.Stdout)
	var pending json.RawMessage // the tools/call id waiting for the sampling answer
	for in.Scan() {
		var msg struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Error  *struct {
				Code int `json:"code"`
			} `json:"error"`
		}
		if json.Unmarshal(in.Bytes(), &msg) != nil {
			continue
		}
		if mode == "garbage" && msg.Method != "" && msg.ID != nil {
			fmt.Println(`{"jsonrpc":"2.0","id":` + string(msg.ID) + `,"result":`) // cut off
			fmt.Println(`not json at all`)
			continue
		}
		answer := func(v any) { _ = out.Encode(map[string]any{"jsonrpc": "2.0", "id": msg.ID, "result": v}) }
		switch {
		case msg.Method == "server/discover":
			_ = out.Encode(map[string]any{"jsonrpc": "2.0", "id": msg.ID, "error": map[string]any{"code": -32601, "message": "no discover"}})
		case msg.Method == "initialize":
			answer(map[string]any{"protocolVersion": "2025-11-25", "capabilities": map[string]any{"tools": map[string]any{}}, "serverInfo": map[string]any{"name": "raw", "version": "1"}})
		case msg.Method == "tools/list":
			answer(map[string]any{"tools": []any{map[string]any{"name": "ask", "description": "Ask for sampling.", "inputSchema": map[string]any{"type": "object"}}}})
		case msg.Method == "tools/call":
			pending = msg.ID
			_ = out.Encode(map[string]any{"jsonrpc": "2.0", "id": "s1", "method": "sampling/createMessage",
				"params": map[string]any{"messages": []any{}, "maxTokens": 10}})
		case msg.Method == "" && string(msg.ID) == `"s1"`:
			code := 0
			if msg.Error != nil {
				code = msg.Error.Code
			}
			_ = out.Encode(map[string]any{"jsonrpc": "2.0", "id": pending, "result": map[string]any{
				"content": []any{map[string]any{"type": "text", "text": fmt.Sprintf("sampling answered %d", code)}}}})
		case msg.ID != nil && msg.Method != "":
			answer(map[string]any{})
		}
	}
	return 0
}
