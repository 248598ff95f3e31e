package mcpserve

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cwx-dev/cwx/core"
	"github.com/cwx-dev/cwx/core/internal/mcptest"
	"github.com/cwx-dev/cwx/shared/testenv"
)

// gatewayManager opens a real Manager whose config.toml has the MCP server t: this test
// binary as the test MCP server (package mcptest), approved without a card. Its keeper is a
// freshly built cwx.
func gatewayManager(t *testing.T) *core.Manager {
	t.Helper()
	bin := testenv.BuildCWX(t, "")
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	cfg := fmt.Sprintf("[mcp.servers.t]\ncommand = %q\nenv = {%s = \"tools\"}\napproval = \"auto\"\n", exe, mcptest.ModeEnv)
	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	m, err := core.Open(ctx, core.Options{Home: home, ShimPath: bin, Approval: "auto", PollInterval: -1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
		defer cancel()
		if err := m.Close(ctx); err != nil {
			t.Errorf("close: %v", err)
		}
	})
	return m
}

// TestGatewayLiveServer: through a real Manager, the client's first tools/list starts the
// configured server (nothing is cached) and lists its tools; a tool that adds a tool makes
// the server send list_changed, which reaches the client as list_changed with the new tool
// listed; the server's prompt and resource are served and relayed; its elicitation during a
// call reaches the client as one form elicitation whose answer goes back to the server.
func TestGatewayLiveServer(t *testing.T) {
	m := gatewayManager(t)
	changed := make(chan struct{}, 64)
	var mu sync.Mutex
	var shown []*mcp.ElicitParams
	cs := connect(t, New(m, Options{}), &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { changed <- struct{}{} },
		ElicitationHandler: func(_ context.Context, r *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			mu.Lock()
			defer mu.Unlock()
			shown = append(shown, r.Params)
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": "Ada"}}, nil
		},
	})
	ctx := context.Background()
	tools := func() []string {
		t.Helper()
		res, err := cs.ListTools(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, tl := range res.Tools {
			out = append(out, tl.Name)
		}
		return out
	}
	if got := tools(); !slices.Contains(got, "mcp_t_echo") || slices.Contains(got, "mcp_t_late") {
		t.Fatalf("the first tools/list: %v", got)
	}
	for len(changed) > 0 {
		<-changed
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "mcp_t_add_tool", Arguments: map[string]any{}})
	if err != nil || res.IsError || text(res) != "added" {
		t.Fatalf("add_tool: %v %q", err, text(orEmpty(res)))
	}
	select {
	case <-changed:
	case <-time.After(20 * time.Second):
		t.Fatal("no notifications/tools/list_changed after the server's tools changed")
	}
	deadline := time.Now().Add(20 * time.Second)
	for !slices.Contains(tools(), "mcp_t_late") {
		if time.Now().After(deadline) {
			t.Fatalf("mcp_t_late is not listed after list_changed: %v", tools())
		}
		time.Sleep(20 * time.Millisecond)
	}

	ps, err := cs.ListPrompts(ctx, nil)
	if err != nil || !slices.ContainsFunc(ps.Prompts, func(p *mcp.Prompt) bool {
		return p.Name == "mcp_t_greet" && p.Description == "[mcp:t] Greet someone." && len(p.Arguments) == 1 && p.Arguments[0].Name == "who"
	}) {
		t.Fatalf("prompts/list: %v %+v", err, ps)
	}
	got, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "mcp_t_greet", Arguments: map[string]string{"who": "Ada"}})
	if err != nil || len(got.Messages) != 1 || got.Messages[0].Content.(*mcp.TextContent).Text != "hello" {
		t.Fatalf("prompts/get: %v %+v", err, got)
	}
	rs, err := cs.ListResources(ctx, nil)
	if err != nil || len(rs.Resources) != 1 || rs.Resources[0].URI != "test://readme" {
		t.Fatalf("resources/list: %v %+v", err, rs)
	}
	read, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "test://readme"})
	if err != nil || len(read.Contents) != 1 || read.Contents[0].Text != "read me" {
		t.Fatalf("resources/read: %v %+v", err, read)
	}

	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "mcp_t_ask_name", Arguments: map[string]any{}})
	if err != nil || res.IsError || text(res) != "accept:Ada" {
		t.Fatalf("ask_name: %v %q", err, text(orEmpty(res)))
	}
	mu.Lock()
	defer mu.Unlock()
	if len(shown) != 1 || !strings.HasPrefix(shown[0].Message, "MCP server `t` asks (while its tool `mcp_t_ask_name` runs):\nYour name?") {
		t.Fatalf("elicitations shown: %+v", shown)
	}
}
