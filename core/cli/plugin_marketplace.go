package cli

import (
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
	// NotInstallable says why an entry cannot be installed (a source that is not a folder).
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
			k, snap, err := marketplace.Add(home, args[0], pluginEnv.now())
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
					if p.NotInstallable != "" {
						note = "not installable: " + p.NotInstallable
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
		if f, err := e.Folder(snap.Manifest.Metadata.PluginRoot); err != nil {
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

// installMarketplace extracts the entry's folder at the pinned commit (commit, else the one
// the marketplace was added at) into the store's private folder and installs it.
func installMarketplace(s *plugins.Store, source, repo, name, market, commit, closure string) (*plugins.InstallResult, error) {
	snap, err := marketplace.Open(repo, commit)
	if err != nil {
		return nil, npmErr(err)
	}
	e, err := snap.Entry(name)
	if err != nil {
		return nil, npmErr(err)
	}
	folder, err := e.Folder(snap.Manifest.Metadata.PluginRoot)
	if err != nil {
		return nil, npmErr(err)
	}
	if err := os.MkdirAll(s.Layout().TmpDir(), 0o700); err != nil {
		return nil, &ExitError{Code: ExitInternal, Err: err}
	}
	work, err := os.MkdirTemp(s.Layout().TmpDir(), "marketplace-*")
	if err != nil {
		return nil, &ExitError{Code: ExitInternal, Err: err}
	}
	defer os.RemoveAll(work)
	dst := filepath.Join(work, "entry")
	if err := snap.Extract(e, dst); err != nil {
		return nil, npmErr(err)
	}
	o := &plugins.Origin{Type: plugins.OriginMarketplace, Name: name, Marketplace: market, Path: source, Commit: snap.Commit, Folder: folder, Version: e.Version}
	res, err := s.InstallWith(dst, plugins.InstallOptions{Origin: o, Label: o.String(), Closure: closure})
	if err != nil {
		return nil, pluginErr(err)
	}
	return res, nil
}
