package mcpserve

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cwx-dev/cwx/core"
)

// BenchmarkCallInMemory is the SDK's and this package's share of a tools/call with a
// 1 KiB text result: client and server in one process over the SDK's in-memory
// transport, the Manager a fake that answers at once.
func BenchmarkCallInMemory(b *testing.B) {
	f := newFake()
	f.set([]core.ToolInfo{tool("t", "p")}, nil)
	out := core.ToolResult{Content: []core.ContentBlock{{Type: "text", Text: strings.Repeat("x", 1024)}}}
	f.call = func(context.Context, string, json.RawMessage, core.CallOptions) (core.ToolResult, error) {
		return out, nil
	}
	ct, st := mcp.NewInMemoryTransports()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- New(f, Options{}).Run(ctx, st) }()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		b.Fatal(err)
	}
	p := &mcp.CallToolParams{Name: "t", Arguments: json.RawMessage(`{"text":"x"}`)}
	b.ResetTimer()
	for range b.N {
		if _, err := cs.CallTool(ctx, p); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	_ = cs.Close()
	cancel()
	<-done
}
