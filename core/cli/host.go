package cli

import (
	"io"

	"github.com/spf13/cobra"

	"github.com/cwx-dev/cwx/core"
	"github.com/cwx-dev/cwx/core/protocol"
)

// HostStatus is the --json output of `cwx host status`: one entry per tier, in the order
// plugin, builtin. Each entry is core.TierStatus: the supervisor's view (tier, state,
// generation, shim_pid, runtime_pid, runtime_pgid, runtime, runtime_version,
// runtime_path, uptime_ms, last_failure, stderr_tail) plus the Manager's crash count
// (crashes), number of active owners (owners) and the newest blame (last_blame: the plugin a
// fault or the host's end was attributed to, and why). A tier no enabled plugin needs stays
// "idle" and has no process. Modules lists every pinned builtin module of the builtin tier
// (core.BuiltinModuleInfo: id, owner host:<id>, pinned sha256, whether it had work, its
// owner's state, live tools, why it has no owner, and what was refused or ignored).
type HostStatus struct {
	Tiers   []core.TierStatus        `json:"tiers"`
	Modules []core.BuiltinModuleInfo `json:"builtin_modules"`
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
		Short: "Start the tiers the enabled plugins need and report each tier's state",
		Long: "Starts the extension host tiers that the enabled, trusted plugins need (activating " +
			"them), prints each tier's state, runtime, pid, host generation, crashes and live " +
			"owners, then shuts the hosts down. A tier no plugin needs is reported idle.",
		Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			m, err := openForCommand(ctx, cmd.ErrOrStderr(), "")
			if err != nil {
				return err
			}
			rerr := reconcileAll(ctx, m)
			st := HostStatus{Tiers: m.Status(), Modules: m.BuiltinModules()}
			if cerr := closeCore(m); cerr != nil && rerr == nil {
				rerr = cerr
			}
			if err := writeReport(cmd.OutOrStdout(), asJSON, st, func(w io.Writer, st HostStatus) {
				writeHostStatus(w, st.Tiers)
				writeBuiltinModules(w, st.Modules)
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
