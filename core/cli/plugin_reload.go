package cli

import (
	"context"
	"io"
	"os"
	"os/signal"
	"time"

	"github.com/spf13/cobra"

	"github.com/cwx-dev/cwx/core"
	"github.com/cwx-dev/cwx/core/plugins"
)

// PluginReloadResult is the --json output of `cwx plugin reload`.
type PluginReloadResult struct {
	// Plugins are the installed plugins, sorted by id, with what each has live after the
	// reload.
	Plugins []PluginReloadItem `json:"plugins"`
	// Error is why the extension hosts could not run (no usable runtime, ...), or "".
	Error string `json:"error,omitempty"`
	// ElapsedMS is how long the reload took (it differs between runs).
	ElapsedMS int64 `json:"elapsed_ms"`

	err error // the reload's error, for the exit status
}

// PluginReloadItem is one plugin after `cwx plugin reload`.
type PluginReloadItem struct {
	ID string `json:"id"`
	// Status is the stored status (enabled, disabled, not trusted, ..., review again).
	Status string `json:"status"`
	// State is its owner in this process: active, failed, faulted, revoked, activating,
	// not activated or not started (see PluginLive.State).
	State string `json:"state"`
	// Reason is why it is not active, or "".
	Reason   string          `json:"reason,omitempty"`
	Tools    []string        `json:"tools"`
	Commands []string        `json:"commands"`
	Problems []PluginProblem `json:"problems"`
}

// reloader is implemented by core.Manager: Reconcile that also retries the plugins held
// back after a failed activation or a fault.
type reloader interface {
	Reload(ctx context.Context) error
}

// reloadWait bounds a reload: every activation has its own bound (core.ActivateDeadline) and
// they run in parallel, so this is only reached when a tier cannot start.
const reloadWait = liveWait

// pluginReloadCmd is `cwx plugin reload` (added to the plugin group in plugin.go).
func pluginReloadCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "reload",
		Short: "Re-read config.toml and the plugin state, activate what is desired and report what is live",
		Long: "Reload re-reads config.toml and state.json, retries plugins whose activation failed or\n" +
			"that faulted, activates every enabled and trusted plugin in this process and reports,\n" +
			"per installed plugin, the tools and commands it has live or why it has none. The hosts\n" +
			"are shut down before reload exits.",
		Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt)
			defer stop()
			res, err := reloadPlugins(ctx, cmd.ErrOrStderr())
			if err != nil {
				return err
			}
			err = writeReport(cmd.OutOrStdout(), asJSON, res, writeReload)
			if err == nil && res.err != nil {
				return &ExitError{Code: exitCode(callErr(res.err))} // the message is printed above
			}
			return err
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print a JSON object")
	return cmd
}

// reloadPlugins opens the Manager, reloads, reports every installed plugin and shuts down.
func reloadPlugins(ctx context.Context, stderr io.Writer) (res PluginReloadResult, err error) {
	s, _, err := openPlugins()
	if err != nil {
		return res, err
	}
	start, clock := time.Now(), pluginEnv.now() // start filters the ring; clock times the work
	m, err := openForCommand(ctx, stderr, "")
	if err != nil {
		return res, err
	}
	defer func() { err = firstErr(err, closeCore(m)) }()
	rctx, cancel := context.WithTimeout(ctx, reloadWait)
	var rerr error
	if r, ok := m.(reloader); ok {
		rerr = r.Reload(rctx)
	} else {
		rerr = m.Reconcile(rctx)
	}
	cancel()
	_, rerr = core.PluginErrors(rerr) // each plugin's failure is in its row
	if rerr != nil {
		res.Error, res.err = stripEscapes(advise(rerr)), rerr
	}
	recs, err := s.List()
	if err != nil {
		return res, pluginErr(err)
	}
	res.Plugins = make([]PluginReloadItem, 0, len(recs))
	for _, r := range recs {
		res.Plugins = append(res.Plugins, reloadItem(ctx, m, s, r, start))
	}
	res.ElapsedMS = pluginEnv.now().Sub(clock).Milliseconds()
	return res, nil
}

func reloadItem(ctx context.Context, m liveCore, s *plugins.Store, r *plugins.Record, start time.Time) PluginReloadItem {
	it := PluginReloadItem{ID: r.ID, Status: s.Status(r), State: ownerNotStarted, Tools: []string{}, Commands: []string{}}
	if plugins.Runnable(it.Status) {
		it.State = ownerNotActivated
	}
	if info, ok := ownerOf(m, r.ID); ok {
		it.State, it.Reason = info.State, stripEscapes(info.Reason)
		it.Tools = append(it.Tools, info.Tools...)
		it.Commands = append(it.Commands, info.Commands...)
	}
	it.Problems = problemsSince(ctx, m, s, r.ID, start)
	return it
}

// writeReload prints the text output of `cwx plugin reload`.
func writeReload(w io.Writer, res PluginReloadResult) {
	if res.Error != "" {
		printf(w, "reload: %s\n", oneLine(res.Error))
	}
	if len(res.Plugins) == 0 {
		printf(w, "no plugins installed (cwx plugin install PATH|TARBALL)\n")
		return
	}
	for _, p := range res.Plugins {
		switch {
		case p.State == ownerNotStarted:
			printf(w, "%s: not started (%s)\n", p.ID, p.Status)
		case p.State == ownerActive:
			printf(w, "%s: active, %s, %s\n", p.ID, plural(len(p.Tools), "tool"), plural(len(p.Commands), "command"))
		case p.Reason != "":
			printf(w, "%s: %s: %s\n", p.ID, p.State, oneLine(p.Reason))
		default:
			printf(w, "%s: %s\n", p.ID, p.State)
		}
		for _, t := range p.Tools {
			printf(w, "  tool     %s\n", oneLine(t))
		}
		for _, c := range p.Commands {
			printf(w, "  command  /%s\n", oneLine(c))
		}
		for _, pr := range p.Problems {
			printf(w, "  %s: %s\n", pr.Kind, oneLine(pr.Message))
		}
	}
}
