// Package marketplace reads Claude Code marketplaces: git repositories with a
// .claude-plugin/marketplace.json that lists plugins. Repositories are read with
// github.com/go-git/go-git/v5, never a shell git.
//
// [Add] records a marketplace in $CWX_HOME/marketplaces.json under its manifest's name,
// with the commit its HEAD had then. A local path is read in place; an https URL is cloned
// bare under $CWX_HOME/marketplaces/ (fetched again on a later add), go-git's https
// transport going through core/egress (no proxy, public addresses only, capped, with a
// deadline); other URL schemes are refused. [Open] reads a snapshot from the object store
// at one commit, so neither a later commit nor an uncommitted edit changes what is listed
// or installed. [Snapshot.Extract] writes an entry's folder as that commit has it through
// an os.Root (regular and executable files and symlinks; a submodule, a ".git" component
// or a path that leaves the folder is refused; at most [MaxFiles] entries and [MaxBytes]
// bytes); core/cli then installs that folder as any folder is installed, with an origin
// naming the entry, the marketplace, the repository, the commit and the folder, which
// `install --from-lock` uses to extract the same commit again.
//
// Only folder sources ("./plugins/x", or a name under metadata.pluginRoot) are installed;
// an entry whose source is a GitHub repository or a URL is listed with the reason it is
// not installable. An entry installs when it is a cwx plugin (plugin.json or an npm package
// folder) or a Claude Code plugin folder (.claude-plugin/plugin.json, package ccplugin).
package marketplace
