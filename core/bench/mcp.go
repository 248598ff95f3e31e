package bench

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os/exec"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// MCPTool is the one tool of the MCP fixture server: blob, whose input {"bytes": N} asks for
// a text content of N bytes.
const MCPTool = "blob"

// maxBlob bounds blob's bytes (config's largest max_result_bytes).
const maxBlob = 16 << 20

// mcpBounds bound the fixture server's HTTP exchanges and the baseline's connect.
const (
	mcpHeaderTimeout = 10 * time.Second
	mcpConnect       = 30 * time.Second
)

type blobInput struct {
	Bytes int `json:"bytes" jsonschema:"how many bytes of text to answer"`
}

// MCPServer is the MCP fixture server of `cwx bench --mcp`, the Go SDK's server with the one
// tool MCPTool: served over stdio by the hidden `cwx bench mcp-server`, and over Streamable
// HTTP by the bench process itself (StartMCPHTTP).
func MCPServer() *mcp.Server {
	srv := mcp.NewServer(&mcp.Implementation{Name: "cwx-bench", Version: "1"}, nil)
	mcp.AddTool(srv, &mcp.Tool{Name: MCPTool, Description: "Answers a text of the given number of bytes."},
		func(_ context.Context, _ *mcp.CallToolRequest, in blobInput) (*mcp.CallToolResult, any, error) {
			if in.Bytes < 0 || in.Bytes > maxBlob {
				return nil, nil, fmt.Errorf("bytes %d: use 0 to %d", in.Bytes, maxBlob)
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: strings.Repeat("m", in.Bytes)}}}, nil, nil
		})
	return srv
}

// ServeMCPStdio serves MCPServer on this process's stdin and stdout until stdin ends.
func ServeMCPStdio(ctx context.Context) error {
	return MCPServer().Run(ctx, &mcp.StdioTransport{})
}

// MCPHTTP is MCPServer behind the SDK's Streamable HTTP handler on a loopback port of this
// process.
type MCPHTTP struct {
	URL    string // http://127.0.0.1:PORT/mcp
	srv    *http.Server
	served chan error
}

// StartMCPHTTP serves MCPServer at /mcp on 127.0.0.1, on a port of the kernel's choosing.
func StartMCPHTTP() (*MCPHTTP, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	srv := MCPServer()
	mux := http.NewServeMux()
	mux.Handle("/mcp", mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil))
	h := &MCPHTTP{URL: "http://" + ln.Addr().String() + "/mcp", served: make(chan error, 1),
		srv: &http.Server{Handler: mux, ReadHeaderTimeout: mcpHeaderTimeout}}
	go func() { h.served <- h.srv.Serve(ln) }() // joined by Close
	return h, nil
}

// Close ends the server and every connection to it.
func (h *MCPHTTP) Close() error {
	err := h.srv.Close()
	if serr := <-h.served; !errors.Is(serr, http.ErrServerClosed) {
		err = errors.Join(err, serr)
	}
	return err
}

// MCPPeer is the Go SDK's client on a session of the fixture server, with nothing between
// them: the baseline of `cwx bench --mcp`.
type MCPPeer struct{ cs *mcp.ClientSession }

// DialMCPStdio spawns argv (the cwx binary as `bench mcp-server`) and connects to it over
// its stdio, as mcp.CommandTransport does.
func DialMCPStdio(ctx context.Context, argv []string) (*MCPPeer, error) {
	return dialMCP(ctx, &mcp.CommandTransport{Command: exec.Command(argv[0], argv[1:]...)})
}

// DialMCPCommand starts cmd (an MCP server on its stdio, such as `cwx serve --mcp`) and
// connects to it, as mcp.CommandTransport does.
func DialMCPCommand(ctx context.Context, cmd *exec.Cmd) (*MCPPeer, error) {
	return dialMCP(ctx, &mcp.CommandTransport{Command: cmd})
}

// DialMCPHTTP connects to the Streamable HTTP server at url.
func DialMCPHTTP(ctx context.Context, url string) (*MCPPeer, error) {
	return dialMCP(ctx, &mcp.StreamableClientTransport{Endpoint: url})
}

func dialMCP(ctx context.Context, t mcp.Transport) (*MCPPeer, error) {
	ctx, cancel := context.WithTimeout(ctx, mcpConnect)
	defer cancel()
	c := mcp.NewClient(&mcp.Implementation{Name: "cwx-bench-baseline", Version: "1"}, nil)
	cs, err := c.Connect(ctx, t, nil)
	if err != nil {
		return nil, fmt.Errorf("the Go SDK's client on the bench MCP server: %w", err)
	}
	return &MCPPeer{cs: cs}, nil
}

// Blob calls MCPTool with input (which asks for size bytes) and checks the answer.
func (p *MCPPeer) Blob(ctx context.Context, input json.RawMessage, size int) error {
	return p.CallText(ctx, MCPTool, input, size)
}

// CallText calls tool with input and checks that the answer is one text of size bytes.
func (p *MCPPeer) CallText(ctx context.Context, tool string, input json.RawMessage, size int) error {
	res, err := p.cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: input})
	if err != nil {
		return err
	}
	if len(res.Content) != 1 || res.IsError {
		return fmt.Errorf("%s answered %d blocks (error %t), want one text", tool, len(res.Content), res.IsError)
	}
	text, ok := res.Content[0].(*mcp.TextContent)
	if !ok || len(text.Text) != size {
		return fmt.Errorf("%s answered %T, want a text of %d bytes", tool, res.Content[0], size)
	}
	return nil
}

// Close ends the session (and, over stdio, the server process: its stdin closed, then
// waited for).
func (p *MCPPeer) Close() error { return p.cs.Close() }

// MCPReport is the outcome of `cwx bench --mcp`: the fixture server's tool called through
// the core's Manager (the gate, the hooks, the content policy, core/mcpclient) and by the
// Go SDK's client with no gate, alternated call by call, over stdio and Streamable HTTP. Its
// JSON form is `cwx bench --mcp --json`.
type MCPReport struct {
	Runtime string       `json:"runtime"` // the extension host the Manager was configured with (no MCP call uses it)
	Stdio   MCPTransport `json:"stdio"`
	HTTP    MCPTransport `json:"http"`
	Machine Machine      `json:"machine"`
	Date    string       `json:"date"`
}

// MCPTransport is one transport's figures. Added is cwx minus the SDK, percentile by
// percentile (so it may be negative where the noise is larger than the difference).
type MCPTransport struct {
	CWX1KiBUS   Latency `json:"cwx_1kib_us"`
	SDK1KiBUS   Latency `json:"sdk_1kib_us"`
	Added1KiBUS Latency `json:"added_1kib_us"`
	CWX1MiBMS   Latency `json:"cwx_1mib_ms"`
	SDK1MiBMS   Latency `json:"sdk_1mib_ms"`
	Added1MiBMS Latency `json:"added_1mib_ms"`
}

// Targets of MCPReport (the seed's phase-3 gate): the added p50 of a 1 KiB result and the
// added p95 of a 1 MiB one.
const (
	MCPTargetAdded1KiBP50US = 300
	MCPTargetAdded1MiBP95MS = 5
)

// Added is a − b, percentile by percentile.
func Added(a, b Latency) Latency {
	return Latency{P50: Round2(a.P50 - b.P50), P95: Round2(a.P95 - b.P95), P99: Round2(a.P99 - b.P99)}
}

// WriteMCPTable prints r as one table, then the targets it is read against.
func WriteMCPTable(w io.Writer, r MCPReport) error {
	t := newTable(w, r.Runtime+", MCP servers")
	for _, tr := range []struct {
		name string
		f    MCPTransport
	}{{"stdio", r.Stdio}, {"http", r.HTTP}} {
		t.lat(tr.name+"_cwx_1kib", "µs", tr.f.CWX1KiBUS)
		t.lat(tr.name+"_sdk_1kib", "µs", tr.f.SDK1KiBUS)
		t.lat(tr.name+"_added_1kib", "µs", tr.f.Added1KiBUS)
		t.lat(tr.name+"_cwx_1mib", "ms", tr.f.CWX1MiBMS)
		t.lat(tr.name+"_sdk_1mib", "ms", tr.f.SDK1MiBMS)
		t.lat(tr.name+"_added_1mib", "ms", tr.f.Added1MiBMS)
	}
	if err := t.tw.Flush(); err != nil {
		return err
	}
	if _, err := fmt.Fprintf(w, "targets: added p50 ≤ %d µs at 1 KiB, added p95 ≤ %d ms at 1 MiB\n",
		MCPTargetAdded1KiBP50US, MCPTargetAdded1MiBP95MS); err != nil {
		return err
	}
	return writeMachine(w, r.Machine, r.Date)
}
