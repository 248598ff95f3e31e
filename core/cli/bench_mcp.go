package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/cwx-dev/cwx/core"
	"github.com/cwx-dev/cwx/core/bench"
)

// The bench's two MCP servers, as config.toml names them.
const (
	benchStdioServer = "benchstdio"
	benchHTTPServer  = "benchhttp"
)

// benchMCPResultBytes is the servers' max_result_bytes: room for a 1 MiB text and its JSON.
const benchMCPResultBytes = 4 << 20

// benchMCPServerCmd is `cwx bench mcp-server`, the fixture MCP server of `cwx bench --mcp` on
// stdio, in the binary so that a fresh install measures with nothing else.
func benchMCPServerCmd() *cobra.Command {
	return &cobra.Command{
		Use:    "mcp-server",
		Short:  "The MCP server `cwx bench --mcp` measures, on stdio",
		Hidden: true,
		Args:   exactArgs(0),
		RunE:   func(cmd *cobra.Command, _ []string) error { return bench.ServeMCPStdio(cmd.Context()) },
	}
}

// mcpBench is one `cwx bench --mcp`: the bench's home whose config.toml names the stdio and
// the HTTP fixture server, and what was measured.
type mcpBench struct {
	*benchRun
	rep bench.MCPReport
}

func runMCPBench(ctx context.Context, w io.Writer, f benchFlags, b *mcpBench) error {
	rep, err := b.run(ctx)
	b.progress("")
	if err != nil {
		return callErr(err)
	}
	return writeBenchReport(w, f.asJSON, rep, bench.WriteMCPTable)
}

// run serves the HTTP fixture from this process, opens a Manager on a home that names both
// servers, then measures stdio and HTTP in turn, each against the Go SDK's client on a
// session of its own to the same server.
func (b *mcpBench) run(ctx context.Context) (_ bench.MCPReport, err error) {
	b.rep.Runtime = fmt.Sprintf("%s %s", b.rt.Kind, b.rt.Version)
	srv, err := bench.StartMCPHTTP()
	if err != nil {
		return b.rep, err
	}
	defer func() { err = errors.Join(err, srv.Close()) }()
	if err := b.writeHome(srv.URL); err != nil {
		return b.rep, err
	}
	m, err := b.openManager(ctx)
	if err != nil {
		return b.rep, err
	}
	defer func() { err = errors.Join(err, closeManager(m)) }()
	b.progress("starting the stdio MCP servers")
	stdio, err := bench.DialMCPStdio(ctx, []string{b.exe, "bench", "mcp-server"})
	if err != nil {
		return b.rep, err
	}
	b.rep.Stdio, err = b.compare(ctx, m, benchStdioServer, stdio)
	if err = errors.Join(err, stdio.Close()); err != nil {
		return b.rep, err
	}
	b.progress("connecting to the HTTP MCP server")
	web, err := bench.DialMCPHTTP(ctx, srv.URL)
	if err != nil {
		return b.rep, err
	}
	b.rep.HTTP, err = b.compare(ctx, m, benchHTTPServer, web)
	if err = errors.Join(err, web.Close()); err != nil {
		return b.rep, err
	}
	b.rep.Machine = bench.ThisMachine()
	b.rep.Date = time.Now().UTC().Format(time.RFC3339)
	return b.rep, nil
}

// writeHome writes the bench home's config.toml: the runtime by path, and the two servers,
// approved without a card and with room for a 1 MiB result.
func (b *mcpBench) writeHome(url string) error {
	b.home = filepath.Join(b.tmp, "home")
	if err := os.MkdirAll(b.home, 0o700); err != nil {
		return err
	}
	conf := fmt.Sprintf("[extension_host]\nruntime = %q\n%s = %q\n\n", b.rt.Kind, b.rt.Kind, b.rt.Path) +
		fmt.Sprintf("[mcp.servers.%s]\ncommand = %q\nargs = [\"bench\", \"mcp-server\"]\napproval = \"auto\"\nmax_result_bytes = %d\n\n",
			benchStdioServer, b.exe, benchMCPResultBytes) +
		fmt.Sprintf("[mcp.servers.%s]\nurl = %q\napproval = \"auto\"\nmax_result_bytes = %d\n", benchHTTPServer, url, benchMCPResultBytes)
	return os.WriteFile(filepath.Join(b.home, "config.toml"), []byte(conf), 0o600)
}

// compare alternates, call by call, the fixture's tool through the Manager (what `cwx tool
// call mcp_<server>_blob` runs: hooks, the gate, the content policy, core/mcpclient) and
// through peer: 1 KiB results, then 1 MiB results.
func (b *mcpBench) compare(ctx context.Context, m *core.Manager, server string, peer *bench.MCPPeer) (bench.MCPTransport, error) {
	var f bench.MCPTransport
	tool := core.MCPToolPrefix + server + "_" + bench.MCPTool
	pair := func(in []byte, size int) (viaCore, viaSDK func() error) {
		return func() error { return callSized(ctx, m, tool, in, size) },
			func() error { return peer.Blob(ctx, in, size) }
	}
	c, s := pair(in1KiB, 1<<10)
	lc, ls, err := alternate(b.benchRun, server+" 1 KiB results, cwx and the SDK", b.n.mcpSmall, c, s)
	if err != nil {
		return f, fmt.Errorf("%s, 1 KiB: %w", server, err)
	}
	f.CWX1KiBUS, f.SDK1KiBUS = bench.Of(lc, time.Microsecond), bench.Of(ls, time.Microsecond)
	f.Added1KiBUS = bench.Added(f.CWX1KiBUS, f.SDK1KiBUS)
	c, s = pair(in1MiB, 1<<20)
	if lc, ls, err = alternate(b.benchRun, server+" 1 MiB results, cwx and the SDK", b.n.mcpBig, c, s); err != nil {
		return f, fmt.Errorf("%s, 1 MiB: %w", server, err)
	}
	f.CWX1MiBMS, f.SDK1MiBMS = bench.Of(lc, time.Millisecond), bench.Of(ls, time.Millisecond)
	f.Added1MiBMS = bench.Added(f.CWX1MiBMS, f.SDK1MiBMS)
	return f, nil
}
