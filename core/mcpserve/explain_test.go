package mcpserve

import (
	"context"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cwx-dev/cwx/core"
)

// TestUnknownToolExplained: a tools/call for a name that is not live fails with the
// protocol's invalid-params error whose message is Options.Explain's answer (the one the CLI
// gives: whose the name is, its state, what to run), escapes stripped; without Explain it is
// the SDK's "unknown tool".
func TestUnknownToolExplained(t *testing.T) {
	for _, tc := range []struct {
		name    string
		explain func(string) string
		want    string
	}{
		{"explained", func(n string) string {
			return "no live tool \"" + n + "\": it belongs to plugin `p`, whose activation failed: \x1b[31mboom\x1b[0m"
		}, "no live tool \"hello_greet\": it belongs to plugin `p`, whose activation failed: boom"},
		{"no Explain", nil, "unknown tool \"hello_greet\""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake()
			f.set([]core.ToolInfo{tool("other", "p")}, nil)
			cs := connect(t, New(f, Options{Explain: tc.explain}), nil)
			_, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "hello_greet", Arguments: map[string]any{}})
			if err == nil || !strings.Contains(err.Error(), tc.want) || strings.ContainsRune(err.Error(), 0x1b) {
				t.Fatalf("call: %v; want %q", err, tc.want)
			}
		})
	}
}
