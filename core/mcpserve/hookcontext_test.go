package mcpserve

import (
	"testing"

	"github.com/cwx-dev/cwx/core"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestToolResultCarriesHookContext: the PostToolUse hooks' context follows the tool's own
// content, each line marked as a hook's, and a result without it is unchanged.
func TestToolResultCarriesHookContext(t *testing.T) {
	cases := []struct {
		name string
		res  core.ToolResult
		want []string
	}{
		{"no context", core.ToolResult{Content: []core.ContentBlock{{Type: "text", Text: "ok"}}}, []string{"ok"}},
		{"two lines", core.ToolResult{Content: []core.ContentBlock{{Type: "text", Text: "ok"}}, HookContext: []string{"lint: 2 warnings", "tests: green"}},
			[]string{"ok", hookContextPrefix + "lint: 2 warnings", hookContextPrefix + "tests: green"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out := toolResult(c.res)
			if len(out.Content) != len(c.want) {
				t.Fatalf("content %d blocks, want %d", len(out.Content), len(c.want))
			}
			for i, w := range c.want {
				if got := out.Content[i].(*mcp.TextContent).Text; got != w {
					t.Fatalf("block %d = %q, want %q", i, got, w)
				}
			}
		})
	}
}
