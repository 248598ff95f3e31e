package cli

import (
	"context"
	"io"
	"slices"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"github.com/cwx-dev/cwx/core"
	"github.com/cwx-dev/cwx/core/config"
	"github.com/cwx-dev/cwx/core/internal/lazyre"
	"github.com/cwx-dev/cwx/core/plugins"
)

// PluginFailure is an enabled, trusted plugin that is not active in this process: its
// activation failed (a syntax error, a bad export, a refused schema or config), it faulted,
// or its bytes no longer match its receipt. `cwx tool list` and `cwx command list` print
// one line per failure after their table (on stderr with --json) and exit 6.
type PluginFailure struct {
	Plugin string `json:"plugin"`
	State  string `json:"state"`  // failed, faulted, needs review, not trusted, dev session ended
	Reason string `json:"reason"` // one line, escapes stripped
}

// ownersLister is implemented by core.Manager: every owner of this process.
type ownersLister interface {
	Owners() []core.OwnerInfo
}

// splitFailures separates the per-plugin failures of a Reconcile error from the rest.
func splitFailures(err error) ([]PluginFailure, error) {
	pes, rest := core.PluginErrors(err)
	out := make([]PluginFailure, 0, len(pes))
	for _, pe := range pes {
		out = append(out, PluginFailure{Plugin: stripEscapes(pe.Plugin), State: pe.State, Reason: failureLine(pe.Reason)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Plugin < out[j].Plugin })
	return out, rest
}

// failureLine is a reason cut to its first line, escapes stripped, with the useful part
// first: a refused schema as its locations and reasons (shortDiag), without the host's error
// class or a second naming of the tool.
func failureLine(reason string) string {
	first, _, _ := strings.Cut(reason, "\n")
	first = refusedSchema().ReplaceAllString(strings.TrimPrefix(first, "ActivationError: "), "input schema of tool `$1`")
	return cutCell(oneLine(stripEscapes(adviseText(shortDiag(first)))), maxFailureLine)
}

// refusedSchema is the part of a refused registration that the schema refusal after it says.
var refusedSchema = lazyre.New("tool `([^`]*)` refused: input schema of tool `[^`]*`")

// maxFailureLine bounds one failure's line in a listing: room for a few schema violations.
const maxFailureLine = 400

// writeFailures prints one line per enabled plugin that is not active: its state, why,
// and the next command to run (absentNext, the answer a call to its tool gives).
func writeFailures(w io.Writer, fs []PluginFailure) {
	if len(fs) == 0 {
		return
	}
	printf(w, "%s not active:\n", plural(len(fs), "enabled plugin"))
	for _, f := range fs {
		state := f.State
		if f.Reason != "" {
			state += ": " + f.Reason
		}
		printf(w, "  %s  %s (%s)\n", f.Plugin, state, absentNext(f.State, f.Plugin))
	}
}

// heldBack lists the enabled plugins of $CWX_HOME whose record keeps them from running (not
// trusted, needs review, dev session ended), which no reconcile reports: `tool list` and
// `command list` name them after the failures. Tests replace it.
var heldBack = func() []PluginFailure {
	home, err := config.Home()
	if err != nil {
		return nil
	}
	s, err := plugins.Open(plugins.Options{Home: home})
	if err != nil {
		return nil
	}
	recs, err := s.List()
	if err != nil {
		return nil // the state file's own error is the reconcile's to report
	}
	var out []PluginFailure
	for _, r := range recs {
		if !r.Enabled {
			continue
		}
		if state, why := s.HeldBack(r); state != "" {
			reason := ""
			if _, detail, ok := strings.Cut(why, ": "); ok {
				reason = failureLine(detail)
			}
			out = append(out, PluginFailure{Plugin: stripEscapes(r.ID), State: state, Reason: reason})
		}
	}
	return out
}

// failingListCmd is `cwx tool list` and `cwx command list`: activate every enabled plugin
// and wait for all of them, print the live items of one kind as a table or a JSON array,
// then the plugins that failed; exit 6 when one did.
func failingListCmd[T any](short string, items func(liveCore) []T, table func(io.Writer, []T, []PluginFailure)) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "list",
		Short: short,
		Long: "An enabled plugin that is not active is listed after the table with its state, why, and\n" +
			"the command to run next: when its activation failed, it faulted or its bytes changed the\n" +
			"command exits 6; one that is not trusted, needs a review or whose dev session ended is\n" +
			"listed too, and the exit status stays 0.",
		Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, _ []string) (err error) {
			// lazy: the catalog answers for the cached plugins, and no host starts for them
			m, err := openLazy(cmd.Context(), cmd.ErrOrStderr(), "", "")
			if err != nil {
				return err
			}
			defer func() { err = firstErr(err, closeCore(m)) }()
			stopProgress := startProgress(cmd.ErrOrStderr(), "starting the enabled plugins")
			failures, rest := splitFailures(advertising(m).Reconcile(cmd.Context()))
			stopProgress()
			if rest != nil {
				return callErr(rest)
			}
			failed := len(failures) > 0
			failures = append(failures, heldBack()...)
			if asJSON {
				if err := writeJSON(cmd.OutOrStdout(), items(m)); err != nil {
					return err
				}
				writeFailures(cmd.ErrOrStderr(), failures)
			} else {
				table(cmd.OutOrStdout(), items(m), failures)
			}
			if failed {
				return &ExitError{Code: ExitPlugin}
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print a JSON array (failed plugins go to stderr)")
	return cmd
}

// listLive activates the runnable plugins of `cwx plugin list` in this process and sets
// their State and Reason; tests replace it.
var listLive = activateForList

// activateForList opens the core when an item is runnable, reconciles and reads every
// owner's state. An error that keeps every plugin from running (no usable runtime, a
// refused config.toml) is returned, and the items keep their stored status.
func activateForList(ctx context.Context, stderr io.Writer, items []PluginListItem) (failures []PluginFailure, err error) {
	if !slices.ContainsFunc(items, func(it PluginListItem) bool { return plugins.Runnable(it.Status) }) {
		return nil, nil
	}
	m, err := openForCommand(ctx, stderr, "")
	if err != nil {
		return nil, err
	}
	defer func() { err = firstErr(err, closeCore(m)) }()
	stopProgress := startProgress(stderr, "starting the enabled plugins")
	failures, rest := splitFailures(m.Reconcile(ctx))
	stopProgress()
	if rest != nil {
		return failures, callErr(rest)
	}
	byID := map[string]PluginFailure{}
	for _, f := range failures {
		byID[f.Plugin] = f
	}
	states := map[string]core.OwnerInfo{}
	if ol, ok := m.(ownersLister); ok {
		for _, o := range ol.Owners() {
			states[o.PluginID] = o
		}
	}
	for i := range items {
		if !plugins.Runnable(items[i].Status) {
			continue
		}
		if f, ok := byID[items[i].ID]; ok {
			items[i].State, items[i].Reason = f.State, f.Reason
			continue
		}
		if o, ok := states[items[i].ID]; ok {
			items[i].State = o.State
			items[i].ActivationMS = o.Activation.Milliseconds()
		}
	}
	return failures, nil
}
