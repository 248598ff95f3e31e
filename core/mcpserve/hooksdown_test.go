package mcpserve

//lint:file-ignore SA1019 the test reads notifications/message, which the server sends on purpose

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cwx-dev/cwx/core"
)

// TestHooksDownSaidOncePerSession: every call denied because a hook holder is not live is
// an isError result naming the plugin and its state; the next command is given in the
// session's first such result and one warning notification, not at every call; another
// session is told again.
func TestHooksDownSaidOncePerSession(t *testing.T) {
	f := newFake()
	f.set([]core.ToolInfo{tool("read_file", "")}, nil)
	f.call = func(_ context.Context, name string, _ json.RawMessage, _ core.CallOptions) (core.ToolResult, error) {
		return core.ToolResult{}, &core.HooksDownError{Tool: name, Holders: []core.DownHolder{{PluginID: "guard", State: "the plugin tier is failed (its crash budget is spent)",
			Next: "run `cwx plugin disable guard` to go on without its hooks"}}}
	}
	srv := New(f, Options{})
	session := func() (*mcp.ClientSession, chan *mcp.LoggingMessageParams) {
		got := make(chan *mcp.LoggingMessageParams, 8)
		cs := connect(t, srv, &mcp.ClientOptions{LoggingMessageHandler: func(_ context.Context, r *mcp.LoggingMessageRequest) { got <- r.Params }})
		if err := cs.SetLoggingLevel(context.Background(), &mcp.SetLoggingLevelParams{Level: "info"}); err != nil {
			t.Fatal(err)
		}
		return cs, got
	}
	call := func(cs *mcp.ClientSession) string {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "read_file", Arguments: map[string]any{"file_path": "secret.txt"}})
		if err != nil || !res.IsError {
			t.Fatalf("call: %+v, %v", res, err)
		}
		return text(res)
	}
	const named = "denied: tool \"read_file\": denied: plugin `guard` holds a pre-execute hook and is not live (the plugin tier is failed (its crash budget is spent))"
	cs1, got1 := session()
	cs2, got2 := session()
	for _, sess := range []struct {
		cs  *mcp.ClientSession
		got chan *mcp.LoggingMessageParams
	}{{cs1, got1}, {cs2, got2}} {
		cs, got := sess.cs, sess.got
		first, second, third := call(cs), call(cs), call(cs)
		if !strings.HasPrefix(first, named) || !strings.Contains(first, "cwx plugin disable guard") {
			t.Errorf("first: %q", first)
		}
		for _, later := range []string{second, third} {
			if !strings.HasPrefix(later, named) || strings.Contains(later, "cwx plugin disable") || !strings.Contains(later, "said earlier in this session") {
				t.Errorf("later: %q", later)
			}
		}
		select {
		case p := <-got:
			if p.Level != "warning" || !strings.Contains(p.Data.(string), "cwx plugin disable guard") {
				t.Errorf("notification %+v", p)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("no warning notification")
		}
		// the notification is sent before the first result; nothing came with the later calls
		select {
		case p := <-got:
			t.Errorf("a second notification %+v", p)
		default:
		}
	}
}
