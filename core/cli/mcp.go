package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"

	"github.com/spf13/cobra"

	"github.com/cwx-dev/cwx/core"
)

// `cwx mcp`: the MCP servers of config.toml ([mcp.servers.<name>], core/mcpclient). They run
// unsandboxed with the user's rights; a listing starts none of them unless asked.
func init() {
	register(func() *cobra.Command {
		cmd := &cobra.Command{
			Use:   "mcp",
			Short: "List and inspect the MCP servers of config.toml",
			Long: "MCP servers are programs config.toml names in [mcp.servers.<name>] tables (command, args,\n" +
				"env, cwd, approval, tools, timeout_s, max_result_bytes). cwx starts one when a call of its\n" +
				"tools needs it and offers its tools as mcp_<server>_<tool>, through the same hooks and\n" +
				"approval gate as every other tool. A server runs unsandboxed, with your rights.",
			Args: cobra.NoArgs,
		}
		cmd.AddCommand(newMCPListCmd(), newMCPShowCmd(), newMCPItemsCmd("resources"), newMCPItemsCmd("prompts"),
			newMCPReviewCmd(), newMCPTrustCmd())
		return cmd
	})
}

// mcpCore is what `cwx mcp` needs of the Manager: its MCP servers.
type mcpCore interface {
	MCP() *core.MCPServers
}

// MCPServerJSON is one server in `cwx mcp list --json` and `cwx mcp show --json`.
type MCPServerJSON struct {
	core.MCPServerStatus
	// Cached says Tools counts the catalog's tools of the server's last admission: the
	// server was not started.
	Cached bool            `json:"cached,omitempty"`
	List   []core.ToolInfo `json:"tool_list,omitempty"`
}

// withMCP opens a lazy Manager and runs f with it, closing every server it started.
func withMCP(cmd *cobra.Command, f func(ctx context.Context, m liveCore, mc *core.MCPServers) error) (err error) {
	ctx, cancel := signal.NotifyContext(cmd.Context(), os.Interrupt)
	defer cancel()
	m, err := openLazy(ctx, cmd.ErrOrStderr(), "", "")
	if err != nil {
		return err
	}
	defer func() { err = firstErr(err, closeCore(m)) }()
	mc, ok := m.(mcpCore)
	if !ok {
		return exitf(ExitInternal, "this core does not run MCP servers")
	}
	return f(ctx, m, mc.MCP())
}

func newMCPListCmd() *cobra.Command {
	var asJSON, start bool
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List the MCP servers: state, pid, tools, restarts, last error (starts none unless --start)",
		Args:  exactArgs(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			return withMCP(cmd, func(ctx context.Context, m liveCore, mc *core.MCPServers) error {
				cached := map[string]int{}
				for _, t := range m.Tools() {
					if name, ok := strings.CutPrefix(t.Origin, core.OriginMCP); ok && t.Cached {
						cached[name]++
					}
				}
				out := []MCPServerJSON{}
				for _, s := range mc.List() {
					if start {
						s, _ = mc.Start(ctx, s.Name) // a failure is the row's state and last error
					}
					row := MCPServerJSON{MCPServerStatus: s}
					if s.State != "ready" {
						if n, ok := cached[s.Name]; ok {
							row.Tools, row.Cached = n, true
						}
					}
					out = append(out, row)
				}
				for _, p := range mc.Problems() { // a file whose servers cannot run at all
					printf(cmd.ErrOrStderr(), "warning: %s\n", oneLine(stripEscapes(p)))
				}
				return writeReport(cmd.OutOrStdout(), asJSON, out, writeMCPTable)
			})
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print a JSON array")
	cmd.Flags().BoolVar(&start, "start", false, "start every server to report it live")
	return cmd
}

func writeMCPTable(w io.Writer, rows []MCPServerJSON) {
	if len(rows) == 0 {
		printf(w, "no MCP servers (add [mcp.servers.<name>] tables with a command or a url to config.toml, or name a .mcp.json with mcp_servers_file)\n")
		return
	}
	tw := newTable(w)
	printf(tw, "NAME\tSTATE\tPID\tTOOLS\tRESTARTS\tAPPROVAL\tCOMMAND OR URL\tLAST ERROR\n")
	for _, r := range rows {
		pid, tools := "-", fmt.Sprint(r.Tools)
		if r.PID != 0 {
			pid = fmt.Sprint(r.PID)
		}
		if r.Cached {
			tools += " (cached)"
		}
		printf(tw, "%s\t%s\t%s\t%s\t%d\t%s\t%s\t%s\n", r.Name, r.State, pid, tools, r.Restarts, r.Approval,
			oneLine(mcpWhat(r.Command, r.Transport, r.URL)), oneLine(r.LastErr))
	}
	_ = tw.Flush()
}

func newMCPShowCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "show NAME",
		Short: "Start one MCP server and show it: what runs, its tools, what was refused and why",
		Args:  exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return withMCP(cmd, func(ctx context.Context, _ liveCore, mc *core.MCPServers) error {
				tools, err := mc.Tools(ctx, args[0])
				st, _ := mc.Start(ctx, args[0])
				if err != nil && st.Name == "" {
					return callErr(err)
				}
				out := MCPServerJSON{MCPServerStatus: st, List: tools}
				if err := writeReport(cmd.OutOrStdout(), asJSON, out, writeMCPServer); err != nil {
					return err
				}
				if err != nil {
					return callErr(err)
				}
				return nil
			})
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print a JSON object")
	return cmd
}

// mcpWhat is a server in one line: its command, or its transport and URL.
func mcpWhat(command []string, transport, url string) string {
	if url != "" {
		return transport + " " + url
	}
	return strings.Join(command, " ")
}

// writeMCPReaches prints a remote server's URL and header names, else nothing.
func writeMCPReaches(w io.Writer, transport, url string, headers []string) bool {
	if url == "" {
		return false
	}
	printf(w, "reaches:  %s (%s, from the core)\n", oneLine(url), transport)
	if len(headers) > 0 {
		printf(w, "headers:  %s (values not shown)\n", strings.Join(headers, ", "))
	}
	return true
}

func writeMCPServer(w io.Writer, s MCPServerJSON) {
	printf(w, "server:   %s (%s)\n", s.Name, s.State)
	if !writeMCPReaches(w, s.Transport, s.URL, s.Headers) {
		printf(w, "runs:     %s (unsandboxed, with your rights)\n", oneLine(strings.Join(s.Command, " ")))
	}
	if s.Cwd != "" {
		printf(w, "cwd:      %s\n", s.Cwd)
	}
	printf(w, "identity: sha256:%s\n", s.Identity)
	printf(w, "approval: %s\n", s.Approval)
	if s.PID != 0 {
		printf(w, "pid:      %d\n", s.PID)
	}
	if s.LastErr != "" {
		printf(w, "last error: %s\n", oneLine(s.LastErr))
	}
	if s.Instructions != "" {
		printf(w, "instructions: %s\n", oneLine(s.Instructions))
	}
	printf(w, "tools:\n")
	for _, t := range s.List {
		printf(w, "  %s\t%s\n", t.Name, oneLine(t.Description))
	}
	for _, r := range s.Refused {
		printf(w, "refused:  %s\n", oneLine(r.String()))
	}
}

// newMCPItemsCmd is `cwx mcp resources [NAME]` and `cwx mcp prompts [NAME]`: what one server,
// or every server, lists (each is started).
func newMCPItemsCmd(what string) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   what + " [NAME]",
		Short: "List the " + what + " of one MCP server, or of all (starts them)",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return withMCP(cmd, func(ctx context.Context, _ liveCore, mc *core.MCPServers) error {
				var names []string
				if len(args) == 1 {
					names = args
				} else {
					for _, s := range mc.List() {
						names = append(names, s.Name)
					}
				}
				out := map[string]any{}
				var failed error
				for _, n := range names {
					var items any
					var err error
					if what == "resources" {
						items, err = mc.Resources(ctx, n)
					} else {
						items, err = mc.Prompts(ctx, n)
					}
					if err != nil {
						failed = firstErr(failed, callErr(err))
						continue
					}
					out[n] = items
				}
				if err := writeReport(cmd.OutOrStdout(), asJSON, out, func(w io.Writer, v map[string]any) { writeMCPItems(w, names, v) }); err != nil {
					return err
				}
				return failed
			})
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print a JSON object: server name to its list")
	return cmd
}

func writeMCPItems(w io.Writer, names []string, v map[string]any) {
	for _, n := range names {
		switch items := v[n].(type) {
		case []core.MCPResource:
			for _, r := range items {
				printf(w, "%s\t%s\t%s\t%s\n", n, r.URI, r.Name, oneLine(r.Description))
			}
		case []core.MCPPrompt:
			for _, p := range items {
				printf(w, "%s\t%s(%s)\t%s\n", n, p.Name, strings.Join(p.Arguments, ", "), oneLine(p.Description))
			}
		}
	}
}

func newMCPReviewCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "review NAME",
		Short: "Show what a plugin's or an MCP file's server would run or reach, and the token that trusts exactly that",
		Long: "A server a Claude Code plugin's .mcp.json brings, or one of a file mcp_servers_file names,\n" +
			"runs only once trusted. review prints its command, arguments, the names of the variables\n" +
			"it sets and where it runs (or the URL it reaches and the names of its headers), and a\n" +
			"token bound to all of them: `cwx mcp trust NAME --token T` trusts exactly that. A server\n" +
			"of config.toml is your decision and needs no trust.",
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return withMCP(cmd, func(_ context.Context, _ liveCore, mc *core.MCPServers) error {
				r, err := mc.Review(args[0])
				if err != nil {
					return callErr(err)
				}
				return writeReport(cmd.OutOrStdout(), asJSON, r, writeMCPReview)
			})
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print a JSON object")
	return cmd
}

func writeMCPReview(w io.Writer, r core.MCPReview) {
	from := "config.toml"
	switch {
	case r.Plugin != "":
		from = "plugin " + r.Plugin
	case r.Source != "":
		from = r.Source
	}
	printf(w, "server:   %s (from %s)\n", r.Name, oneLine(from))
	if !writeMCPReaches(w, r.Transport, r.URL, r.Headers) {
		printf(w, "runs:     %s\n", oneLine(strings.Join(r.Command, " ")))
		if len(r.Env) > 0 {
			printf(w, "sets:     %s (values not shown)\n", strings.Join(r.Env, ", "))
		}
		printf(w, "in:       %s\n", r.Cwd)
	}
	printf(w, "identity: sha256:%s\n", r.Identity)
	printf(w, "note:     %s\n", r.Note)
	switch {
	case r.Problem != "":
		printf(w, "cannot run: %s\n", oneLine(r.Problem))
	case r.Trusted:
		printf(w, "trusted:  yes\n")
	default:
		printf(w, "trusted:  no; to trust exactly this: cwx mcp trust %s --token %s\n", r.Name, r.Token)
	}
}

func newMCPTrustCmd() *cobra.Command {
	var token string
	cmd := &cobra.Command{
		Use:   "trust NAME --token T",
		Short: "Trust a plugin's or an MCP file's server exactly as `cwx mcp review` showed it",
		Args:  exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if token == "" {
				return exitf(ExitUsage, "--token is required: run `cwx mcp review %s` and pass the token it prints", args[0])
			}
			return withMCP(cmd, func(_ context.Context, _ liveCore, mc *core.MCPServers) error {
				if err := mc.Trust(args[0], token); err != nil {
					return callErr(err)
				}
				printf(cmd.OutOrStdout(), "trusted MCP server %s; it starts when a call of its tools needs it\n", args[0])
				return nil
			})
		},
	}
	cmd.Flags().StringVar(&token, "token", "", "the token that cwx mcp review NAME printed")
	return cmd
}

// progressPrinter prints an MCP server's progress of a call on stderr, one line each:
// "progress: 3/10 message" (the total when the server gives one).
func progressPrinter(w io.Writer) func(p, total float64, msg string) {
	return func(p, total float64, msg string) {
		line := fmt.Sprintf("progress: %g", p)
		if total > 0 {
			line += fmt.Sprintf("/%g", total)
		}
		if msg != "" {
			line += " " + oneLine(msg)
		}
		printf(w, "%s\n", line)
	}
}
