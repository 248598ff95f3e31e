package cli

import (
	"io"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"github.com/cwx-dev/cwx/core/npmreg"
	"github.com/cwx-dev/cwx/core/plugins"
)

// PluginOutdated is one row of `cwx plugin outdated --json`.
type PluginOutdated struct {
	ID      string `json:"id"`
	Package string `json:"package"`
	Current string `json:"current"`
	// Wanted is what the query the plugin was installed with ("^1.2", "latest") resolves
	// to now; Latest is the latest dist-tag.
	Query      string   `json:"query"`
	Wanted     string   `json:"wanted"`
	Latest     string   `json:"latest"`
	Newer      []string `json:"newer"`
	Deprecated string   `json:"current_deprecated,omitempty"`
}

func pluginOutdatedCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "outdated",
		Short: "List plugins installed by name that have newer versions on the registry",
		Args:  exactArgs(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			s, cfg, err := openPlugins()
			if err != nil {
				return err
			}
			recs, err := s.List()
			if err != nil {
				return pluginErr(err)
			}
			rows := []PluginOutdated{}
			var reg *npmreg.Registry
			for _, r := range recs {
				o := r.Origin
				if o == nil || o.Type != plugins.OriginNpm {
					continue
				}
				if reg == nil {
					if reg, err = openRegistry(cfg); err != nil {
						return err
					}
					defer reg.Close()
				}
				doc, err := reg.Document(cmd.Context(), o.Name)
				if err != nil {
					return npmErr(err)
				}
				row := PluginOutdated{ID: r.ID, Package: o.Name, Current: o.Version, Query: o.Query, Newer: []string{},
					Deprecated: doc.Deprecated(o.Version)}
				if v, err := doc.Resolve(o.Query); err == nil {
					row.Wanted = v.Version
				}
				if v := doc.Latest(); v != nil {
					row.Latest = v.Version
				}
				for _, v := range doc.Newer(o.Version) {
					row.Newer = append(row.Newer, v.Version)
				}
				if len(row.Newer) > 0 || row.Deprecated != "" {
					rows = append(rows, row)
				}
			}
			sort.Slice(rows, func(i, j int) bool { return rows[i].ID < rows[j].ID })
			if asJSON {
				return writeJSON(cmd.OutOrStdout(), rows)
			}
			if len(rows) == 0 {
				printf(cmd.OutOrStdout(), "every plugin installed by name is at its newest version\n")
				return nil
			}
			tw := newTable(cmd.OutOrStdout())
			printf(tw, "ID\tCURRENT\tWANTED\tLATEST\tNEWER\n")
			for _, r := range rows {
				cur := r.Current
				if r.Deprecated != "" {
					cur += " (deprecated)"
				}
				printf(tw, "%s\t%s\t%s (%s)\t%s\t%s\n", r.ID, cur, r.Wanted, r.Query, r.Latest, strings.Join(r.Newer, " "))
			}
			if err := tw.Flush(); err != nil {
				return err
			}
			printf(cmd.OutOrStdout(), "next: cwx plugin update ID [--to VERSION] --dry-run shows what changes\n")
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print a JSON array")
	return cmd
}

func pluginUpdateCmd() *cobra.Command {
	var asJSON, dryRun bool
	var to string
	cmd := &cobra.Command{
		Use:   "update ID [--to VERSION|RANGE|TAG] [--dry-run]",
		Short: "Stage a plugin's newer version and review what changed; the old one runs until the new one is trusted",
		Long: "update resolves the version (--to, else the query the plugin was installed with, else\n" +
			"latest), downloads it and checks its integrity, stages it and shows what changed:\n" +
			"files, entries, injected services, dependencies, grants and install scripts. The\n" +
			"installed version keeps running until `cwx plugin trust ID --token` is given the\n" +
			"token this review prints. --dry-run prints the review and keeps nothing. A plugin\n" +
			"installed from a marketplace updates to what the marketplace lists at its HEAD now\n" +
			"(an entry in a repository of its own: that repository's ref or HEAD).",
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
			o := r.Origin
			if o != nil && o.Type == plugins.OriginMarketplace {
				if to != "" {
					return exitf(ExitUsage, "--to names an npm version; %s updates to what marketplace %s lists now", r.ID, o.Marketplace)
				}
				stop := startProgress(cmd.ErrOrStderr(), "fetching "+o.Name+"@"+o.Marketplace)
				rv, err := updateMarketplace(cmd.Context(), s, r, dryRun)
				stop()
				if err != nil {
					return err
				}
				return writeReport(cmd.OutOrStdout(), asJSON, rv, writeUpdateReview)
			}
			if o == nil || o.Type != plugins.OriginNpm {
				return exitf(ExitUsage, "%s was installed from %s, not by name or from a marketplace; install the new folder or tarball with `cwx plugin install`", r.ID, r.Source)
			}
			reg, err := openRegistry(cfg)
			if err != nil {
				return err
			}
			defer reg.Close()
			query := to
			if query == "" {
				query = o.Query
			}
			spec := npmreg.Spec{Name: o.Name, Query: query}
			doc, v, err := resolveNpm(cmd.Context(), reg, spec)
			if err != nil {
				return err
			}
			if to == "" && v.Version == o.Version {
				if l := doc.Latest(); l != nil {
					v, spec.Query = l, "latest"
				}
			}
			got, err := fetchNpm(cmd.Context(), s, reg, spec, v, "")
			if err != nil {
				return err
			}
			defer got.Close()
			got.Origin.Query = o.Query
			if to != "" {
				got.Origin.Query = to
			}
			stop := startProgress(cmd.ErrOrStderr(), "staging "+got.Origin.String())
			rv, err := s.StageUpdate(r.ID, got.Path, plugins.InstallOptions{Origin: got.Origin, Label: got.Origin.String()}, dryRun)
			stop()
			if err != nil {
				return pluginErr(err)
			}
			return writeReport(cmd.OutOrStdout(), asJSON, rv, writeUpdateReview)
		},
	}
	cmd.Flags().StringVar(&to, "to", "", "the version, range or dist-tag to update to")
	cmd.Flags().BoolVar(&dryRun, "dry-run", false, "print the review only; stage and record nothing")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print a JSON object")
	return cmd
}

func writeUpdateReview(w io.Writer, rv *plugins.UpdateReview) {
	if rv.Unchanged {
		what := "the registry's " + rv.To
		if rv.Integrity == "" { // not from a registry: a marketplace entry
			what = rv.ToSource
		}
		printf(w, "%s %s: %s has the same bytes; nothing to update\n", rv.ID, rv.From, oneLine(stripEscapes(what)))
		return
	}
	printf(w, "update   %s %s → %s\n", rv.ID, rv.From, rv.To)
	if rv.Integrity != "" {
		printf(w, "source   %s, tarball %s\n", rv.ToSource, rv.Integrity)
	} else {
		printf(w, "source   %s\n", rv.ToSource)
	}
	if rv.Deprecated != "" {
		printf(w, "DEPRECATED by its publisher: %s\n", oneLine(stripEscapes(rv.Deprecated)))
	}
	printf(w, "closure  sha256:%s → sha256:%s\n", rv.FromClosure, rv.ToClosure)
	list := func(label string, xs []string) {
		if len(xs) == 0 {
			printf(w, "%s none\n", label)
			return
		}
		printf(w, "%s %s\n", label, oneLine(stripEscapes(strings.Join(xs, ", "))))
	}
	list("files added:  ", rv.Added)
	list("files removed:", rv.Removed)
	list("files changed:", rv.Changed)
	list("entries before:", rv.EntriesBefore)
	list("entries after: ", rv.EntriesAfter)
	list("entries changed:", rv.EntriesChanged)
	list("injects before:", rv.InjectsBefore)
	list("injects after: ", rv.InjectsAfter)
	if len(rv.Dependencies) == 0 {
		printf(w, "dependencies: unchanged\n")
	} else {
		names := make([]string, 0, len(rv.Dependencies))
		for n := range rv.Dependencies {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			printf(w, "dependency %s: %s\n", n, oneLine(stripEscapes(rv.Dependencies[n])))
		}
	}
	printf(w, "grants:  %s\n", rv.Grants)
	printf(w, "install scripts: none (packages with install scripts are refused)\n")
	if rv.DryRun {
		printf(w, "\ndry run: nothing was staged; %s %s stays as it is\n", rv.ID, rv.From)
		return
	}
	printf(w, "\n%s %s keeps running until this update is trusted.\n", rv.ID, rv.From)
	printf(w, "To trust exactly these bytes: cwx plugin trust %s --token %s\n", shellQuote(rv.ID), rv.Token)
}
