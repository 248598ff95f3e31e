package cli

import (
	"io"

	"github.com/spf13/cobra"

	"github.com/cwx-dev/cwx/core"
	"github.com/cwx-dev/cwx/core/bench"
	"github.com/cwx-dev/cwx/core/protocol"
)

// HostStatus is the --json output of `cwx host status`: one entry per host, in the order
// the plugin tier's shared host, the builtin tier's, then each plugin's own host
// (isolation = "process") by plugin id. Each entry is a HostEntry: core.TierStatus, the
// supervisor's view (tier, group: the plugin of its own host, state, generation, shim_pid,
// runtime_pid, runtime_pgid, runtime, runtime_version, runtime_path, uptime_ms,
// last_failure, stderr_tail) plus the Manager's crash count (crashes), number of active
// owners (owners), the plugins it serves (plugins), the newest blame (last_blame: the plugin
// a fault or the host's end was attributed to, and why) and its sandbox, with what the host
// costs (pss_mib: shim and runtime together). A host no enabled plugin needs stays "idle"
// and has no process. Modules lists every pinned builtin module of the builtin tier
// (core.BuiltinModuleInfo: id, owner host:<id>, pinned sha256, whether it had work, its
// owner's state, live tools, why it has no owner, and what was refused or ignored).
type HostStatus struct {
	Tiers   []HostEntry              `json:"tiers"`
	Modules []core.BuiltinModuleInfo `json:"builtin_modules"`
	// MCPServers are the MCP servers of config.toml and of trusted plugins, as `cwx mcp list`
	// reports them (host status starts none).
	MCPServers []MCPServerJSON `json:"mcp_servers,omitempty"`
}

// HostEntry is one host of HostStatus: its status and its proportional memory, the shim's
// and the runtime's (the shim's pages of the cwx binary are shared with the core, so PSS,
// not RSS, is what it costs); 0 for a host with no process.
type HostEntry struct {
	core.TierStatus
	PSSMiB float64 `json:"pss_mib,omitempty"`
}

// processPSS reads a process's PSS in MiB (tests give fixed figures for their fake pids).
var processPSS = bench.PSSMiB

// hostEntries reads each host's PSS beside its status.
func hostEntries(st []core.TierStatus) []HostEntry {
	out := make([]HostEntry, len(st))
	for i, s := range st {
		out[i] = HostEntry{TierStatus: s}
		if s.RuntimePID > 0 {
			out[i].PSSMiB = processPSS(s.ShimPID) + processPSS(s.RuntimePID)
		}
	}
	return out
}

func init() {
	register(func() *cobra.Command {
		host := &cobra.Command{
			Use:   "host",
			Short: "Watch the extension hosts",
			Args:  exactArgs(0),
			RunE:  func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
		}
		host.AddCommand(hostStatusCmd())
		return host
	})
}

func hostStatusCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "status",
		Short: "Start the hosts the enabled plugins need and report each host's state",
		Long: "Starts the extension hosts that the enabled, trusted plugins need (activating " +
			"them): the plugin tier's shared host, the builtin tier's, and the own host of each " +
			"plugin with isolation = \"process\". Prints each host's state, runtime, pid, host " +
			"generation, crashes, live owners, memory (PSS) and plugins, then shuts the hosts down. " +
			"A host no plugin needs is reported idle.",
		Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			m, err := openForCommand(ctx, cmd.ErrOrStderr(), "")
			if err != nil {
				return err
			}
			rerr := reconcileAll(ctx, m)
			st := HostStatus{Tiers: hostEntries(m.Status()), Modules: m.BuiltinModules()}
			if mc, ok := m.(mcpCore); ok {
				for _, s := range mc.MCP().List() {
					st.MCPServers = append(st.MCPServers, MCPServerJSON{MCPServerStatus: s})
				}
			}
			if cerr := closeCore(m); cerr != nil && rerr == nil {
				rerr = cerr
			}
			if err := writeReport(cmd.OutOrStdout(), asJSON, st, func(w io.Writer, st HostStatus) {
				writeHostStatus(w, st.Tiers)
				writeBuiltinModules(w, st.Modules)
				if len(st.MCPServers) > 0 {
					printf(w, "\n")
					writeMCPTable(w, st.MCPServers)
				}
			}); err != nil {
				return err
			}
			return rerr
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print a JSON object (HostStatus)")
	return cmd
}

// writeBuiltinModules prints one line per builtin module of the builtin tier, then the
// reason of a module that has work and no owner, then the notes of each.
func writeBuiltinModules(w io.Writer, mods []core.BuiltinModuleInfo) {
	if len(mods) == 0 {
		return
	}
	printf(w, "\n")
	tw := newTable(w)
	printf(tw, "MODULE\tOWNER\tTIER\tSTATE\tTOOLS\tSHA256\n")
	for _, b := range mods {
		state := b.State
		if !b.Needed {
			state = "idle (no work)"
		}
		printf(tw, "%s\t%s\t%s\t%s\t%d\t%s\n", b.ID, b.Owner, protocol.TierBuiltin, state, b.Tools, b.SHA256[:12])
	}
	_ = tw.Flush()
	for _, b := range mods {
		if b.Problem != "" {
			printf(w, "%s: not started: %s\n", b.Owner, oneLine(b.Problem))
		}
		for _, n := range b.Notes {
			printf(w, "%s: %s\n", b.Owner, oneLine(n))
		}
	}
}
