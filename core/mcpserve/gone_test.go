package mcpserve

import (
	"context"
	"encoding/json"
	"io"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cwx-dev/cwx/core"
)

// goneTransport is the server's end of a connection whose client can go away: once gone
// is set, every write fails as a write to a closed pipe does.
type goneTransport struct {
	mcp.Transport
	gone atomic.Bool
}

func (g *goneTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := g.Transport.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &goneConn{Connection: c, gone: &g.gone}, nil
}

type goneConn struct {
	mcp.Connection
	gone *atomic.Bool
}

func (c *goneConn) Write(ctx context.Context, m jsonrpc.Message) error {
	if c.gone.Load() {
		return io.ErrClosedPipe
	}
	return c.Connection.Write(ctx, m)
}

// TestClientGoneMidCall: a client that goes away while a call runs ends the session
// cleanly: the answer the server then cannot write is no error of Run's.
func TestClientGoneMidCall(t *testing.T) {
	f := newFake()
	f.set([]core.ToolInfo{tool("slow", "p")}, nil)
	entered, release := make(chan struct{}), make(chan struct{})
	f.call = func(ctx context.Context, _ string, _ json.RawMessage, _ core.CallOptions) (core.ToolResult, error) {
		close(entered)
		<-release
		return core.ToolResult{Content: []core.ContentBlock{{Type: "text", Text: "late"}}}, nil
	}
	ct, inner := mcp.NewInMemoryTransports()
	st := &goneTransport{Transport: inner}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- New(f, Options{}).Run(ctx, st) }()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	callCtx, endCall := context.WithCancel(context.Background())
	called := make(chan struct{})
	go func() {
		defer close(called)
		_, _ = cs.CallTool(callCtx, &mcp.CallToolParams{Name: "slow", Arguments: map[string]any{}})
	}()
	defer func() { endCall(); <-called; _ = cs.Close() }()
	<-entered
	st.gone.Store(true)
	close(release)
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("Run after the client went away: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not end when it could no longer write to the client")
	}
}
