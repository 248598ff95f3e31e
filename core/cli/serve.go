package cli

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"

	"github.com/cwx-dev/cwx/core"
	"github.com/cwx-dev/cwx/core/cmdhooks"
	"github.com/cwx-dev/cwx/core/config"
	"github.com/cwx-dev/cwx/core/gate"
	"github.com/cwx-dev/cwx/core/mcpserve"
	"github.com/cwx-dev/cwx/core/plugins"
)

// serveReady bounds how long `cwx serve` waits for the first reconcile before it answers
// the client; plugins still activating then appear through list_changed.
const serveReady = liveWait

// serveFlags are the flags of `cwx serve`.
type serveFlags struct {
	mcp, allowRemote, approveExt bool
	http, tlsCert, tlsKey        string
	approve, workspace           string
	origins                      []string
}

func init() {
	register(func() *cobra.Command {
		var f serveFlags
		cmd := &cobra.Command{
			Use:   "serve --mcp [--http 127.0.0.1:PORT]",
			Short: "Serve the live tools, commands and MCP servers to an MCP client (stdio, or streamable HTTP)",
			Long: "Serves every live tool (tools/list, tools/call) and command (prompts) of the enabled,\n" +
				"trusted plugins, and the configured MCP servers' tools, prompts and resources, over the\n" +
				"Model Context Protocol, on stdin/stdout by default. Calls go\n" +
				"through the core's gate under the --approve posture: ask (the default) asks by\n" +
				"elicitation when the client supports it and refuses otherwise; deny refuses; auto\n" +
				"approves, but extension tools only with --approve-extensions (else they are asked as\n" +
				"under ask). The choice is printed on stderr at start. With --http, requests need the\n" +
				"bearer token (CWX_MCP_TOKEN, or generated and printed on stderr) and an allowed Origin.",
			Args: exactArgs(0),
			RunE: func(cmd *cobra.Command, _ []string) error { return runServe(cmd, f) },
		}
		fl := cmd.Flags()
		fl.BoolVar(&f.mcp, "mcp", false, "speak the Model Context Protocol (required)")
		fl.StringVar(&f.http, "http", "", "serve streamable HTTP on ADDR (loopback only without --allow-remote) instead of stdio")
		fl.BoolVar(&f.allowRemote, "allow-remote", false, "allow a non-loopback --http address (needs --tls-cert and --tls-key)")
		fl.StringVar(&f.tlsCert, "tls-cert", "", "TLS certificate file for --http")
		fl.StringVar(&f.tlsKey, "tls-key", "", "TLS key file for --http")
		fl.StringSliceVar(&f.origins, "allow-origin", nil, "an Origin allowed besides the loopback ones (repeatable)")
		fl.StringVar(&f.approve, "approve", "", "approval posture: ask, auto or deny (default from [extension_host] approval, else ask)")
		fl.BoolVar(&f.approveExt, "approve-extensions", false, "with --approve auto: approve extension tools without asking")
		fl.StringVar(&f.workspace, "workspace", "", "the workspace directory calls are told about (default: the current directory)")
		return cmd
	})
}

func runServe(cmd *cobra.Command, f serveFlags) (err error) {
	if err := f.check(); err != nil {
		return err
	}
	stderr := cmd.ErrOrStderr()
	if f.workspace == "" {
		f.workspace = "." // the directory the client started the server in
	}
	ws, err := workspaceDir(f.workspace)
	if err != nil {
		return err
	}
	posture, err := servePosture(f)
	if err != nil {
		return err
	}
	printf(stderr, "cwx serve: %s\n", approvalNotice(posture, f.approveExt))
	ctx, cancel := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
	defer cancel()
	log := serveLogger(stderr)
	managerPosture := string(posture)
	if posture == gate.Auto && !f.approveExt {
		managerPosture = string(gate.Ask) // extension tools are never approved silently
	}
	m, err := openCore(ctx, core.Options{Logger: log, Approval: managerPosture, Skills: cliSkills(ws)})
	if err != nil {
		return callErr(err)
	}
	defer func() { err = firstErr(err, closeCore(m)) }()
	mm, ok := m.(mcpserve.Manager)
	if !ok {
		return exitf(ExitInternal, "this core has no change feed to serve from")
	}
	mm = devMarked{mm, m.Plugins()}
	reconcileInBackground(ctx, m, log)
	// the process serves one session (stdio; every client of --http shares it): SessionStart
	// now, its context the initialize result's instructions, SessionEnd when serving ends
	hs := startHookSession(ctx, m, core.CallOptions{Workspace: ws}, stderr)
	defer func() { hs.end(ctx, cmdhooks.ReasonOther) }()
	if err := hs.Stopped(); err != nil {
		return err
	}
	instructions := ""
	if sec := hs.Section(); sec != nil {
		instructions = sec.Wrapped
	}
	srv := mcpserve.New(mm, mcpserve.Options{Version: versionInfo().Version, Workspace: ws, Logger: log, Fallback: serveFallback(posture), Instructions: instructions,
		Explain: func(name string) string { return notLive(m, liveTool, name).Error() }})
	log.RegisterSink(mcpSink{srv.LogSink()})
	if f.http != "" {
		return serveHTTP(ctx, srv, f, stderr)
	}
	return serveStdio(ctx, srv, cmd.InOrStdin(), cmd.OutOrStdout())
}

// check refuses flag combinations that do not make sense.
func (f serveFlags) check() error {
	switch {
	case !f.mcp:
		return exitf(ExitUsage, "cwx serve needs --mcp (the Model Context Protocol is the one it speaks)")
	case f.http == "" && (f.allowRemote || f.tlsCert != "" || f.tlsKey != "" || len(f.origins) > 0):
		return exitf(ExitUsage, "--allow-remote, --tls-cert, --tls-key and --allow-origin need --http")
	case (f.tlsCert == "") != (f.tlsKey == ""):
		return exitf(ExitUsage, "--tls-cert and --tls-key go together")
	case f.http != "" && !mcpserve.Loopback(f.http) && !f.allowRemote:
		return exitf(ExitUsage, "--http %s is not a loopback address; pass --allow-remote (with TLS) to serve other hosts", f.http)
	case f.allowRemote && f.tlsCert == "":
		return exitf(ExitUsage, "--allow-remote requires TLS: pass --tls-cert and --tls-key")
	case f.approveExt && f.approve != string(gate.Auto):
		return exitf(ExitUsage, "--approve-extensions only goes with --approve auto")
	}
	return nil
}

// servePosture resolves the posture as every command does: --approve, then [extension_host]
// approval, then ask.
func servePosture(f serveFlags) (gate.Posture, error) {
	cfgPosture := ""
	if f.approve == "" {
		home, err := config.Home()
		if err != nil {
			return "", callErr(err)
		}
		cfg, err := config.LoadHome(home)
		if err != nil {
			return "", callErr(err)
		}
		cfgPosture = cfg.ExtensionHost.Approval
	}
	p, err := gate.ResolvePosture(f.approve, cfgPosture)
	if err != nil {
		return "", &ExitError{Code: ExitUsage, Err: err}
	}
	return p, nil
}

// approvalNotice says on stderr, at start, how tool calls will be approved. A call that is
// asked every time (the native shell, a call a pre-execute hook asks about, a tool of a
// plugin under `cwx plugin dev`) is asked by elicitation under every posture but deny; no
// flag approves it.
func approvalNotice(p gate.Posture, approveExt bool) string {
	const always = "; calls asked every time (the native `shell`, a call a hook asks about, a tool of a plugin under `cwx plugin dev`) are asked by elicitation under every posture, or refused when the client cannot be asked"
	switch {
	case p == gate.Deny:
		return "approval: deny (every call that needs approval is refused)"
	case p == gate.Auto && approveExt:
		return "approval: auto with --approve-extensions (tools that need approval, extension tools included, are approved WITHOUT asking" + always + ")"
	case p == gate.Auto:
		return "approval: auto, but tools that need approval are still asked by elicitation, or refused when the client cannot be asked (add --approve-extensions to approve them without asking" + always + ")"
	}
	return "approval: ask (tools that need approval are asked by elicitation, or refused when the client cannot be asked; --approve auto --approve-extensions approves them without asking" + always + ")"
}

// serveFallback answers an approval card for a client without elicitation: it refuses,
// names the call by its origin, and gives only advice that would approve it: the flags for
// a call the posture can approve, none for one asked every time.
func serveFallback(p gate.Posture) core.Approver {
	return gate.ApproverFunc(func(_ context.Context, card core.ApprovalCard) (core.Decision, error) {
		if card.Forced {
			return gate.DenyDecision, fmt.Errorf("%s, and the client cannot be asked (no elicitation): no flag approves it; use an MCP client that supports elicitation", card.Refusal())
		}
		return gate.DenyDecision, fmt.Errorf("%s, and the client cannot be asked (no elicitation): run with --approve auto --approve-extensions (posture now %s)", card.Refusal(), p)
	})
}

// serveLogger logs to stderr at the level CWX_LOG names (default error) and to the
// registered sinks (the MCP clients) at every level.
func serveLogger(stderr io.Writer) hclog.InterceptLogger {
	base := coreLogger(stderr)
	return hclog.NewInterceptLogger(&hclog.LoggerOptions{Name: "cwx", Level: base.GetLevel(), Output: inertWriter{stderr}})
}

// mcpSink forwards debug and above (not the hosts' trace lines) to the MCP clients.
type mcpSink struct{ next hclog.SinkAdapter }

func (s mcpSink) Accept(name string, level hclog.Level, msg string, args ...any) {
	if level >= hclog.Debug {
		s.next.Accept(name, level, msg, args...)
	}
}

// reconcileInBackground starts the enabled plugins and waits, at most serveReady, for the
// first reconcile, so the client's first tools/list sees them; later changes (another
// process enabling a plugin, a host restart) reach the client as list_changed.
func reconcileInBackground(ctx context.Context, m liveCore, log hclog.Logger) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := m.Reconcile(ctx); err != nil && ctx.Err() == nil {
			log.Error("reconcile", "error", err)
		}
	}()
	t := time.NewTimer(serveReady)
	defer t.Stop()
	select {
	case <-done:
	case <-t.C:
	case <-ctx.Done():
	}
}

// serveStdio serves one session on stdin/stdout until stdin ends or a signal arrives.
// Nothing else writes to stdout.
func serveStdio(ctx context.Context, srv *mcpserve.Server, in io.Reader, out io.Writer) error {
	t := &mcp.IOTransport{Reader: readCloser(in), Writer: writeCloser(out)}
	done := make(chan error, 1)
	go func() { done <- srv.Run(ctx, t) }()
	select {
	case err := <-done:
		return serveEnd(err)
	case <-ctx.Done():
	}
	// A read blocked on stdin may not end with the session; the process is exiting.
	select {
	case err := <-done:
		return serveEnd(err)
	case <-time.After(time.Second):
		return nil
	}
}

// serveEnd translates the end of a session: Run already counts a client that went away
// as a clean end.
func serveEnd(err error) error {
	if err == nil {
		return nil
	}
	return exitf(ExitInternal, "MCP session: %w", err)
}

// serveHTTP serves streamable HTTP on f.http until a signal arrives.
func serveHTTP(ctx context.Context, srv *mcpserve.Server, f serveFlags, stderr io.Writer) error {
	token, fromEnv := os.Getenv(mcpserve.TokenEnv), true
	if token == "" {
		t, err := mcpserve.NewToken()
		if err != nil {
			return exitf(ExitInternal, "%w", err)
		}
		token, fromEnv = t, false
	}
	ln, err := net.Listen("tcp", f.http)
	if err != nil {
		return exitf(ExitUsage, "--http: %w", err)
	}
	h, err := srv.HTTPHandler(ln.Addr().String(), mcpserve.HTTPOptions{Token: token, Origins: f.origins})
	if err != nil {
		_ = ln.Close()
		return exitf(ExitInternal, "%w", err)
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", h)
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	scheme := "http"
	if f.tlsCert != "" {
		scheme = "https"
	}
	printf(stderr, "cwx serve: MCP streamable HTTP at %s://%s/mcp\n", scheme, ln.Addr())
	if fromEnv {
		printf(stderr, "cwx serve: bearer token from %s\n", mcpserve.TokenEnv)
	} else {
		printf(stderr, "cwx serve: bearer token: %s\n", token)
	}
	stop := srv.Watch(ctx)
	defer stop()
	done := make(chan error, 1)
	go func() {
		if f.tlsCert != "" {
			done <- hs.ServeTLS(ln, f.tlsCert, f.tlsKey)
			return
		}
		done <- hs.Serve(ln)
	}()
	select {
	case err := <-done:
		return exitf(ExitInternal, "MCP HTTP server: %w", err)
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	_ = hs.Shutdown(sctx)
	return nil
}

type nopReadCloser struct{ io.Reader }

func (nopReadCloser) Close() error { return nil }

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

// readCloser and writeCloser keep the process's own streams open when the session closes.
func readCloser(r io.Reader) io.ReadCloser   { return nopReadCloser{r} }
func writeCloser(w io.Writer) io.WriteCloser { return nopWriteCloser{w} }

// devMarked is the Manager `serve --mcp` lists from, with the origin of a tool or command
// whose plugin runs from a `cwx plugin dev` session marked ", dev", so the client's list
// reads "[extension:<plugin>, dev] …" (the MCP description's origin prefix). Each listing
// reads the plugins' records again: a dev session that ends drops the mark with the plugin.
type devMarked struct {
	mcpserve.Manager
	store *plugins.Store
}

func (d devMarked) Tools() []core.ToolInfo {
	tools, dev := d.Manager.Tools(), devPlugins(d.store)
	for i := range tools {
		if dev(tools[i].PluginID) {
			tools[i].Origin += ", dev"
		}
	}
	return tools
}

func (d devMarked) Commands() []core.CommandInfo {
	cmds, dev := d.Manager.Commands(), devPlugins(d.store)
	for i := range cmds {
		if dev(cmds[i].PluginID) {
			cmds[i].Origin += ", dev"
		}
	}
	return cmds
}
