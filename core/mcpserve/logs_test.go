package mcpserve

//lint:file-ignore SA1019 the test reads notifications/message, which the server sends on purpose (logs.go)

import (
	"context"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestLogsReachTheClient: a line given to LogSink reaches the session as
// notifications/message at or above the level the client set, and not below it.
func TestLogsReachTheClient(t *testing.T) {
	srv := New(newFake(), Options{})
	got := make(chan *mcp.LoggingMessageParams, 8)
	cs := connect(t, srv, &mcp.ClientOptions{
		LoggingMessageHandler: func(_ context.Context, r *mcp.LoggingMessageRequest) { got <- r.Params },
	})
	if err := cs.SetLoggingLevel(context.Background(), &mcp.SetLoggingLevelParams{Level: "warning"}); err != nil {
		t.Fatal(err)
	}
	srv.LogSink().Accept("cwx.plugin", hclog.Info, "below the level")
	srv.LogSink().Accept("cwx.plugin", hclog.Error, "host exited", "tier", "plugin")
	select {
	case p := <-got:
		if p.Level != "error" || p.Logger != "cwx.plugin" || p.Data != "host exited tier=plugin" {
			t.Errorf("got %+v", p)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no notifications/message")
	}
	select {
	case p := <-got:
		t.Errorf("a second message %+v", p)
	default:
	}
}
