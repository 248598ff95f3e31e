package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/cwx-dev/cwx/core/config"
	"github.com/cwx-dev/cwx/core/marketplace"
	"github.com/cwx-dev/cwx/core/npmreg"
	"github.com/cwx-dev/cwx/core/plugins"
)

// installFromLock installs every plugin of the lock file at p with the bytes it records:
// an npm tarball must have the pinned integrity, a local tarball too, and every staged
// copy the pinned closure hash, or it is refused before it is recorded.
func installFromLock(cmd *cobra.Command, s *plugins.Store, cfg *config.Config, p string, asJSON bool) error {
	lk, err := plugins.ReadLock(p)
	if err != nil {
		return pluginErr(err)
	}
	var reg *npmreg.Registry
	defer func() {
		if reg != nil {
			reg.Close()
		}
	}()
	outs := []PluginInstallResult{}
	for _, id := range lk.IDs() {
		e := lk.Plugins[id]
		var res *plugins.InstallResult
		switch o := e.Origin; o.Type {
		case plugins.OriginNpm:
			if reg == nil {
				if reg, err = openRegistry(cfg); err != nil {
					return err
				}
			}
			doc, err := reg.Document(cmd.Context(), o.Name)
			if err != nil {
				return npmErr(fmt.Errorf("%s: %w", id, err))
			}
			v := doc.Versions[o.Version]
			if v == nil {
				return exitf(ExitInvalid, "%s: npm:%s@%s is no longer published on %s", id, o.Name, o.Version, reg.URL())
			}
			if o.Integrity == "" {
				return exitf(ExitInvalid, "%s: the lock records no integrity for npm:%s@%s", id, o.Name, o.Version)
			}
			res, _, err = installVersion(cmd.Context(), s, reg, npmreg.Spec{Name: o.Name, Query: o.Query}, v, o.Integrity, e.Closure)
			if err != nil {
				return err
			}
		case plugins.OriginTarball:
			sri, err := plugins.TarballIntegrity(o.Path)
			if err != nil {
				return pluginErr(fmt.Errorf("%s: %w", id, err))
			}
			if sri != o.Integrity {
				return exitf(ExitDenied, "%s: %s is %s, the lock pins %s; refusing other bytes", id, o.Path, sri, o.Integrity)
			}
			if res, err = s.InstallWith(o.Path, plugins.InstallOptions{Origin: o, Closure: e.Closure}); err != nil {
				return pluginErr(err)
			}
		case plugins.OriginMarketplace:
			home := s.Layout().Home
			repo, ferr := marketplace.Fetch(cmd.Context(), home, o.Path)
			if ferr != nil {
				return npmErr(fmt.Errorf("%s: %w", id, ferr))
			}
			m := marketEntry{Source: o.Path, Repo: repo, Name: o.Name, Market: o.Marketplace, Commit: o.Commit, RepositoryCommit: o.RepositoryCommit}
			if res, err = installMarketplace(cmd.Context(), s, m, e.Closure); err != nil {
				return err
			}
		default:
			if res, err = s.InstallWith(o.Path, plugins.InstallOptions{Origin: o, Closure: e.Closure}); err != nil {
				return pluginErr(err)
			}
		}
		if res.ID != id {
			return exitf(ExitInvalid, "the lock's %s installed as %s", id, res.ID)
		}
		r, err := s.Get(res.ID)
		if err != nil {
			return pluginErr(err)
		}
		outs = append(outs, PluginInstallResult{ID: res.ID, Version: res.Version, Closure: res.Closure, Files: res.Files, Bytes: res.Bytes,
			StageDir: res.StageDir, Unchanged: res.Unchanged, Updated: res.Updated, Status: s.Status(r), Source: r.Source})
		if !asJSON {
			printf(cmd.OutOrStdout(), "installed %s %s from %s, closure sha256:%s as locked (%s)\n", res.ID, res.Version, r.Source, res.Closure, s.Status(r))
		}
	}
	if asJSON {
		return writeJSON(cmd.OutOrStdout(), outs)
	}
	if len(outs) > 0 {
		printf(cmd.OutOrStdout(), "next: review and trust each plugin (cwx plugin review ID)\n")
	}
	return nil
}
