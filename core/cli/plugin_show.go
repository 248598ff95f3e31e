package cli

import (
	"os"
	"os/signal"
	"strings"

	"github.com/spf13/cobra"

	"github.com/cwx-dev/cwx/core/ccplugin"
	"github.com/cwx-dev/cwx/core/config"
	"github.com/cwx-dev/cwx/core/plugins"
)

// PluginListItem is one element of the --json output of `cwx plugin list`.
type PluginListItem struct {
	ID      string `json:"id"`
	Version string `json:"version"`
	Status  string `json:"status"` // enabled, trusted, disabled, not trusted, content changed, review again, ...
	Enabled bool   `json:"enabled"`
	Trusted bool   `json:"trusted"` // a receipt exists (it may no longer hold; see status)
	Closure string `json:"closure_sha256"`
	// Source is where the bytes came from: npm:<name>@<version>, or the tarball or folder.
	Source string `json:"source"`
	// State is, for an enabled plugin that could run, its owner once activated by this
	// command: active, failed, faulted or not activated; Reason says why it is not active.
	State  string `json:"state,omitempty"`
	Reason string `json:"reason,omitempty"`
	// ActivationMS is how long its activation took here (it differs between runs).
	ActivationMS int64 `json:"activation_ms,omitempty"`
}

func pluginListCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List installed plugins and their state",
		Long: "list prints what is stored about each plugin. When a plugin is enabled and trusted it\n" +
			"also activates the enabled plugins in this process (starting the extension host they\n" +
			"need, shut down before list exits) and shows a failed one as failed, with its reason.\n" +
			"It ends with the builtin modules cwx itself runs and the sha256 each is pinned to.",
		Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			s, _, err := openPlugins()
			if err != nil {
				return err
			}
			recs, err := s.List()
			if err != nil {
				return pluginErr(err)
			}
			items := make([]PluginListItem, 0, len(recs))
			for _, r := range recs {
				items = append(items, PluginListItem{ID: r.ID, Version: r.Version, Status: s.Status(r), Enabled: r.Enabled, Trusted: r.Trust != nil, Closure: r.Closure, Source: r.Source})
			}
			failures, lerr := listLive(cmd.Context(), cmd.ErrOrStderr(), items)
			if lerr != nil { // the stored state is still worth printing
				printf(cmd.ErrOrStderr(), "cwx: the enabled plugins were not activated: %s\n", oneLine(lerr.Error()))
			}
			if asJSON {
				return writeJSON(cmd.OutOrStdout(), items)
			}
			if len(items) == 0 {
				printf(cmd.OutOrStdout(), "no plugins installed (cwx plugin install PATH|TARBALL)\n")
				return writeBuiltinPins(cmd.OutOrStdout())
			}
			tw := newTable(cmd.OutOrStdout())
			printf(tw, "ID\tVERSION\tSTATUS\tCLOSURE\tSOURCE\n")
			for _, it := range items {
				status := it.Status
				if it.State != "" && it.State != ownerActive {
					status = it.State
				}
				printf(tw, "%s\t%s\t%s\t%s\t%s\n", it.ID, oneLine(it.Version), status, it.Closure[:12], oneLine(stripEscapes(it.Source)))
			}
			if err := tw.Flush(); err != nil {
				return err
			}
			writeFailures(cmd.OutOrStdout(), failures)
			return writeBuiltinPins(cmd.OutOrStdout())
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print a JSON array")
	return cmd
}

// PluginShow is the --json output of `cwx plugin show`.
type PluginShow struct {
	ID          string `json:"id"`
	Version     string `json:"version"`
	Description string `json:"description,omitempty"`
	Kind        string `json:"kind"`
	Source      string `json:"source"`
	Status      string `json:"status"`
	Enabled     bool   `json:"enabled"`
	// Receipt is "valid" or why it does not hold (not trusted, content changed, review
	// again, capabilities changed, review again).
	Receipt  string           `json:"receipt"`
	Closure  string           `json:"closure_sha256"`
	Files    int              `json:"files"`
	Bytes    int64            `json:"bytes"`
	StageDir string           `json:"stage_dir"`
	DataDir  string           `json:"data_dir"`
	Entries  []plugins.Entry  `json:"entries"`
	Config   PluginConfigInfo `json:"config"`
	// Diagnostics are the last 20 of the plugin's 64-entry ring, oldest first.
	Diagnostics      []plugins.Diagnostic `json:"diagnostics"`
	DiagnosticsTotal int                  `json:"diagnostics_total"`
	// Live is the plugin activated in this process: the tools and commands it has live, or
	// why it has none. Diagnostics above already include what this activation recorded.
	Live PluginLive `json:"live"`
	// Sandbox says the plugin tier runs unsandboxed ("" when it runs in bubblewrap).
	Sandbox string `json:"sandbox,omitempty"`
	// Claude is what a Claude Code plugin has and what of it cwx runs (nil for another
	// kind, or when its staged copy cannot be read: Receipt says why).
	Claude *plugins.ClaudeReview `json:"claude_code,omitempty"`
	// Containment says how it is contained on this machine (core.Containment).
	Containment string `json:"containment,omitempty"`
	// Grants are what it asks for beyond its sandbox and what config.toml gives it.
	Grants *plugins.GrantsView `json:"grants,omitempty"`
}

// PluginConfigInfo describes a plugin's [plugins."<id>".config] without its values.
type PluginConfigInfo struct {
	Keys   []string `json:"keys"`            // configured top-level keys, never the values
	Digest string   `json:"digest"`          // sha256 of the JSON sent, or of the refusal
	Error  string   `json:"error,omitempty"` // why the table is refused
}

func pluginShowCmd() *cobra.Command {
	var asJSON, verbose bool
	cmd := &cobra.Command{
		Use:   "show ID",
		Short: "Show a plugin's state, hash, configured keys, recent diagnostics and what it has live",
		Long: "Show prints what is stored about a plugin, then activates it in this process when it is\n" +
			"enabled and trusted (starting the extension host it needs, waiting for this plugin only)\n" +
			"and lists the tools and commands it has live, or why it has none: refused names with\n" +
			"their reasons, an activation failure, a fault. The host is shut down before show exits.\n" +
			"A disabled or untrusted plugin is shown without starting anything.",
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			s, cfg, err := openPlugins()
			if err != nil {
				return err
			}
			r, err := s.Get(args[0])
			if err != nil {
				return pluginErr(err)
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt) // Ctrl-C stops waiting; the host is still shut down
			defer stop()
			var live PluginLive
			if r.Kind == plugins.KindClaudeCode {
				live = newLive(ownerNotStarted) // no host: the core runs its hooks and commands
				live.Reason = "a Claude Code plugin runs no host code: its hooks run in the builtin hooks module, its commands in the core"
			} else if live, err = showLive(ctx, cmd.ErrOrStderr(), s, r, s.Status(r)); err != nil {
				return err
			}
			if r, err = s.Get(args[0]); err != nil { // with what the activation recorded
				return pluginErr(err)
			}
			sh := showPlugin(s, cfg, r)
			sh.Live = live
			sh.Sandbox = unsandboxedNote(s.Layout().Home)
			if r.Kind != plugins.KindClaudeCode {
				sh.Containment = pluginContainment(s.Layout().Home, r.ID)
			}
			if asJSON {
				return writeJSON(cmd.OutOrStdout(), sh)
			}
			ds := newDiagSet(verbose)
			writeShow(cmd, sh, ds)
			writeLiveOnce(cmd.OutOrStdout(), sh.ID, sh.Live, ds)
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print a JSON object")
	cmd.Flags().BoolVar(&verbose, "verbose", false, "print diagnostics in full (a schema refusal with the metaschema path it failed)")
	return cmd
}

func showPlugin(s *plugins.Store, cfg *config.Config, r *plugins.Record) PluginShow {
	sh := PluginShow{ID: r.ID, Version: r.Version, Description: r.Description, Kind: r.Kind, Source: r.Source,
		Status: s.Status(r), Enabled: r.Enabled, Receipt: "valid", Closure: r.Closure, Files: r.Files, Bytes: r.Bytes,
		StageDir: s.Layout().StageDir(r.ID, r.Closure), DataDir: s.Layout().DataDir(r.ID), Entries: r.Entries,
		DiagnosticsTotal: len(r.Diagnostics)}
	// the receipt holds only for the bytes it was given to: re-hash (cached) the staged copy
	if err := s.CheckReceipt(r); err != nil {
		sh.Receipt = strings.TrimPrefix(advise(err), "plugin "+r.ID+": ")
	} else if err := s.VerifyClosure(r); err != nil {
		sh.Receipt = strings.TrimPrefix(advise(err), "plugin "+r.ID+": ")
		sh.Status = plugins.ErrContentChanged.Error()
	}
	if r.Kind == plugins.KindClaudeCode {
		if p, err := ccplugin.Read(sh.StageDir); err == nil {
			sh.Claude = plugins.ReviewClaude(p)
		}
	}
	pc := cfg.Plugin(r.ID)
	var req *plugins.GrantRequests
	if m, err := plugins.ReadManifest(sh.StageDir); err == nil {
		req = m.Requests
	}
	sh.Grants = plugins.ViewGrants(r.ID, req, pc.Grants)
	sh.Config = PluginConfigInfo{Keys: pc.Keys, Digest: pc.Digest}
	if sh.Config.Keys == nil {
		sh.Config.Keys = []string{}
	}
	if pc.Err != nil {
		sh.Config.Error = pc.Err.Error()
	}
	d := r.Diagnostics
	if len(d) > plugins.DiagnosticsShown {
		d = d[len(d)-plugins.DiagnosticsShown:]
	}
	sh.Diagnostics = append([]plugins.Diagnostic{}, d...)
	for i := range sh.Diagnostics {
		sh.Diagnostics[i].Message = adviseText(sh.Diagnostics[i].Message)
	}
	return sh
}

func writeShow(cmd *cobra.Command, sh PluginShow, ds *diagSet) {
	w := cmd.OutOrStdout()
	printf(w, "plugin   %s %s\n", sh.ID, oneLine(sh.Version))
	printf(w, "status   %s\n", sh.Status)
	printf(w, "receipt  %s\n", sh.Receipt)
	printf(w, "closure  sha256:%s (%d files)\n", sh.Closure, sh.Files)
	printf(w, "source   %s\n", sh.Source)
	printf(w, "staged   %s\n", sh.StageDir)
	printf(w, "data     %s\n", sh.DataDir)
	if sh.Sandbox != "" {
		printf(w, "sandbox  %s\n", sh.Sandbox)
	}
	if sh.Containment != "" && sh.Sandbox == "" { // unsandboxed, the line above says all
		printf(w, "runs     %s\n", sh.Containment)
	}
	for _, e := range sh.Entries {
		printf(w, "entry    %s (host code (JavaScript), sha256:%s)\n", e.Path, e.SHA256[:12])
	}
	if sh.Claude != nil {
		writeClaudeReview(w, sh.Claude)
	}
	writeGrants(w, sh.Grants)
	switch {
	case sh.Config.Error != "":
		printf(w, "config   refused: %s\n", sh.Config.Error)
	case len(sh.Config.Keys) == 0:
		printf(w, "config   none\n")
	default:
		printf(w, "config   keys: %s\n", strings.Join(sh.Config.Keys, ", "))
	}
	if len(sh.Diagnostics) == 0 {
		printf(w, "diagnostics: none\n")
		return
	}
	printf(w, "diagnostics (last %d of %d):\n", len(sh.Diagnostics), sh.DiagnosticsTotal)
	for _, d := range sh.Diagnostics {
		if ds.fresh(d.Message) {
			printf(w, "  %s %s: %s\n", d.Time.UTC().Format("2006-01-02T15:04:05Z"), d.Kind, diagText(ds.text(d.Message), "    "))
		}
	}
}
