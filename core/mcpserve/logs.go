package mcpserve

//lint:file-ignore SA1019 notifications/message is what clients on the protocol versions before 2026-07-28 read logs from; the SDK keeps it through the deprecation window

import (
	"context"
	"fmt"
	"strings"

	"github.com/hashicorp/go-hclog"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// logQueue bounds the log lines waiting for the sessions; more are dropped, so logging
// never waits for a client.
const logQueue = 256

// logForwarder sends log lines to every session as notifications/message. The SDK drops a
// line below the level the session's client chose.
type logForwarder struct {
	srv *mcp.Server
	q   chan *mcp.LoggingMessageParams
}

func newLogForwarder(srv *mcp.Server) *logForwarder {
	return &logForwarder{srv: srv, q: make(chan *mcp.LoggingMessageParams, logQueue)}
}

// LogSink is the server's hclog sink: register it on the Manager's intercept logger
// (hclog.InterceptLogger.RegisterSink) to forward the core's logs to the clients.
func (s *Server) LogSink() hclog.SinkAdapter { return s.logs }

// Accept queues one line; it never blocks.
func (f *logForwarder) Accept(name string, level hclog.Level, msg string, args ...any) {
	var b strings.Builder
	b.WriteString(msg)
	for i := 0; i+1 < len(args); i += 2 {
		fmt.Fprintf(&b, " %v=%v", args[i], args[i+1])
	}
	p := &mcp.LoggingMessageParams{Logger: name, Level: mcpLevel(level), Data: b.String()}
	select {
	case f.q <- p:
	default:
	}
}

// run sends queued lines until ctx ends.
func (f *logForwarder) run(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case p := <-f.q:
			for ss := range f.srv.Sessions() {
				_ = ss.Log(ctx, p)
			}
		}
	}
}

func mcpLevel(l hclog.Level) mcp.LoggingLevel {
	switch {
	case l <= hclog.Debug:
		return "debug"
	case l == hclog.Info:
		return "info"
	case l == hclog.Warn:
		return "warning"
	}
	return "error"
}
