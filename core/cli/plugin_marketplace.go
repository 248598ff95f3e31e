package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/cwx-dev/cwx/core/config"
	"github.com/cwx-dev/cwx/core/marketplace"
	"github.com/cwx-dev/cwx/core/plugins"
)

// MarketplaceListItem is one entry of `cwx plugin marketplace list --json`.
type MarketplaceListItem struct {
	marketplace.Known
	Plugins []MarketplacePlugin `json:"plugins"`
}

// MarketplacePlugin is one plugin a marketplace lists.
type MarketplacePlugin struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	Version     string `json:"version,omitempty"`
	Folder      string `json:"folder,omitempty"`
	// Git is set for an entry whose plugin is a git repository of its own; the commit is
	// resolved (and pinned) when it is installed.
	Git *marketplace.GitSource `json:"git,omitempty"`
	// NotInstallable says why an entry cannot be installed (a source cwx does not read).
	NotInstallable string `json:"not_installable,omitempty"`
}

func pluginMarketplaceCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "marketplace",
		Short: "Add and list Claude Code marketplaces (install an entry with `cwx plugin install NAME@MARKETPLACE`)",
		Args:  cobra.NoArgs,
	}
	var asJSON bool
	add := &cobra.Command{
		Use:   "add PATH|HTTPS-URL",
		Short: "Read a git repository's .claude-plugin/marketplace.json at its HEAD commit",
		Args:  exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			home, err := config.Home()
			if err != nil {
				return &ExitError{Code: ExitInternal, Err: err}
			}
			k, snap, err := marketplace.Add(cmd.Context(), home, args[0], pluginEnv.now())
			if err != nil {
				return npmErr(err)
			}
			item := listItem(k, snap)
			if asJSON {
				return writeJSON(cmd.OutOrStdout(), item)
			}
			printf(cmd.OutOrStdout(), "added marketplace %s at commit %s (%d plugins)\n", k.Name, k.Commit, len(item.Plugins))
			return nil
		},
	}
	add.Flags().BoolVar(&asJSON, "json", false, "print a JSON object")
	var listJSON bool
	list := &cobra.Command{
		Use:   "list",
		Short: "List the added marketplaces and their plugins, at the commit each was added at",
		Args:  exactArgs(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			home, err := config.Home()
			if err != nil {
				return &ExitError{Code: ExitInternal, Err: err}
			}
			ks, err := marketplace.List(home)
			if err != nil {
				return npmErr(err)
			}
			items := []MarketplaceListItem{}
			for _, k := range ks {
				snap, err := marketplace.Open(k.Repo, k.Commit)
				if err != nil {
					return npmErr(err)
				}
				items = append(items, listItem(k, snap))
			}
			if listJSON {
				return writeJSON(cmd.OutOrStdout(), items)
			}
			if len(items) == 0 {
				printf(cmd.OutOrStdout(), "no marketplaces added (cwx plugin marketplace add PATH|HTTPS-URL)\n")
				return nil
			}
			w := cmd.OutOrStdout()
			for _, it := range items {
				printf(w, "%s  %s  commit %s\n", it.Name, oneLine(stripEscapes(it.Source)), it.Commit)
				for _, p := range it.Plugins {
					note := p.Folder
					switch {
					case p.NotInstallable != "":
						note = "not installable: " + p.NotInstallable
					case p.Git != nil:
						note = "git " + p.Git.String()
					}
					printf(w, "  %s@%s  %s  %s\n", p.Name, it.Name, oneLine(stripEscapes(p.Description)), oneLine(stripEscapes(note)))
				}
			}
			return nil
		},
	}
	list.Flags().BoolVar(&listJSON, "json", false, "print a JSON array")
	cmd.AddCommand(add, list)
	return cmd
}

func listItem(k marketplace.Known, snap *marketplace.Snapshot) MarketplaceListItem {
	it := MarketplaceListItem{Known: k, Plugins: []MarketplacePlugin{}}
	for _, e := range snap.Manifest.Plugins {
		p := MarketplacePlugin{Name: e.Name, Description: e.Description, Version: e.Version}
		if g, err := e.Git(); err != nil {
			p.NotInstallable = err.Error()
		} else if g != nil {
			p.Git = g
		} else if f, err := e.Folder(snap.Manifest.Metadata.PluginRoot); err != nil {
			p.NotInstallable = err.Error()
		} else {
			p.Folder = f
		}
		it.Plugins = append(it.Plugins, p)
	}
	return it
}

// marketplaceRef reports whether src names NAME@MARKETPLACE of an added marketplace (and is
// not a path that exists).
func marketplaceRef(src string) (entry string, k marketplace.Known, ok bool) {
	at := strings.LastIndexByte(src, '@')
	if at <= 0 || strings.ContainsAny(src, "/\\") {
		return "", k, false
	}
	if _, err := os.Lstat(src); err == nil {
		return "", k, false
	}
	home, err := config.Home()
	if err != nil {
		return "", k, false
	}
	k, found, err := marketplace.Get(home, src[at+1:])
	if err != nil || !found {
		return "", k, false
	}
	return src[:at], k, true
}

// marketEntry names a marketplace entry to install: the marketplace's source (path or URL),
// the repository read for it, the entry's and the marketplace's names, and the commits
// pinned: the marketplace's (else the one it was added at) and, for an entry that is a git
// repository of its own, that repository's (empty: resolve it now).
type marketEntry struct {
	Source, Repo, Name, Market, Commit, RepositoryCommit string
}

// installMarketplace extracts the entry at the pinned commit and installs it as a folder
// is installed (staged, disabled, not trusted until reviewed).
func installMarketplace(ctx context.Context, s *plugins.Store, m marketEntry, closure string) (*plugins.InstallResult, error) {
	dst, o, cleanup, err := extractMarketplace(ctx, s, m)
	if err != nil {
		return nil, err
	}
	defer cleanup()
	res, err := s.InstallWith(dst, plugins.InstallOptions{Origin: o, Label: o.String(), Closure: closure})
	if err != nil {
		return nil, pluginErr(err)
	}
	return res, nil
}

// extractMarketplace writes the entry, as the pinned commits have it, into a folder under
// the store's private folder and returns it with the origin to record; cleanup removes it.
// The entry is a folder of the marketplace repository, or the root of the entry's own git
// repository, cloned into the cache under $CWX_HOME and read at one commit, which the
// origin records.
func extractMarketplace(ctx context.Context, s *plugins.Store, m marketEntry) (string, *plugins.Origin, func(), error) {
	snap, err := marketplace.Open(m.Repo, m.Commit)
	if err != nil {
		return "", nil, nil, npmErr(err)
	}
	e, err := snap.Entry(m.Name)
	if err != nil {
		return "", nil, nil, npmErr(err)
	}
	g, err := e.Git()
	if err != nil {
		return "", nil, nil, npmErr(err)
	}
	o := &plugins.Origin{Type: plugins.OriginMarketplace, Name: m.Name, Marketplace: m.Market, Path: m.Source, Commit: snap.Commit, Version: e.Version}
	extract := func(dst string) error { return snap.Extract(e, dst) }
	if g != nil {
		co, err := marketplace.FetchEntry(ctx, s.Layout().Home, m.Source, g, m.RepositoryCommit)
		if err != nil {
			return "", nil, nil, npmErr(err)
		}
		o.Repository, o.RepositoryCommit = co.URL, co.Commit
		extract = func(dst string) error { return co.Extract(e.Name, dst) }
	} else if o.Folder, err = e.Folder(snap.Manifest.Metadata.PluginRoot); err != nil {
		return "", nil, nil, npmErr(err)
	}
	if err := os.MkdirAll(s.Layout().TmpDir(), 0o700); err != nil {
		return "", nil, nil, &ExitError{Code: ExitInternal, Err: err}
	}
	work, err := os.MkdirTemp(s.Layout().TmpDir(), "marketplace-*")
	if err != nil {
		return "", nil, nil, &ExitError{Code: ExitInternal, Err: err}
	}
	cleanup := func() { os.RemoveAll(work) }
	dst := filepath.Join(work, "entry")
	if err := extract(dst); err != nil {
		cleanup()
		return "", nil, nil, npmErr(err)
	}
	return dst, o, cleanup, nil
}

// updateMarketplace stages what a marketplace entry is now (the marketplace fetched again
// and read at its HEAD, an entry in its own repository at its ref or HEAD) as an update
// of r, and returns the review; the installed version runs until the update is trusted.
func updateMarketplace(ctx context.Context, s *plugins.Store, r *plugins.Record, dryRun bool) (*plugins.UpdateReview, error) {
	o := r.Origin
	repo, err := marketplace.Fetch(ctx, s.Layout().Home, o.Path)
	if err != nil {
		return nil, npmErr(fmt.Errorf("%s: %w", r.ID, err))
	}
	dst, no, cleanup, err := extractMarketplace(ctx, s, marketEntry{Source: o.Path, Repo: repo, Name: o.Name, Market: o.Marketplace})
	if err != nil {
		return nil, err
	}
	defer cleanup()
	rv, err := s.StageUpdate(r.ID, dst, plugins.InstallOptions{Origin: no, Label: no.String()}, dryRun)
	if err != nil {
		return nil, pluginErr(err)
	}
	return rv, nil
}
