// Package marketplace reads Claude Code marketplaces: git repositories with a
// .claude-plugin/marketplace.json that lists plugins. Repositories are read with
// github.com/go-git/go-git/v5, never a shell git.
//
// [Add] records a marketplace in $CWX_HOME/marketplaces.json under its manifest's name,
// with the commit its HEAD had then. A local path is read in place; an http(s) URL is
// cloned bare under $CWX_HOME/marketplaces/ (fetched again on a later add; branches and
// tags only, HEAD following the remote's).
// [Open] reads a snapshot from the object store at one commit, so neither a later commit
// nor an uncommitted edit changes what is listed or installed. [Snapshot.Extract] writes an
// entry's folder as that commit has it through an os.Root (regular and executable files
// and symlinks; a submodule, a ".git" component or a path that leaves the folder is
// refused; at most [MaxFiles] entries and [MaxBytes] bytes); core/cli then installs that
// folder as any folder is installed (staged, disabled, not trusted until reviewed), with an
// origin naming the entry, the marketplace, the repository, the commit and the folder,
// which `install --from-lock` uses to extract the same commit again.
//
// # Entries in repositories of their own
//
// An entry's source is a folder ("./plugins/x", or a name under metadata.pluginRoot) or a
// git repository whose root is the plugin: {"source": "github", "repo": "owner/name"}
// (cloned from [GitHubBase]) or {"source": "url", "url": "https://….git"}, each with an
// optional "ref" (branch or tag) and "sha" (a full commit hash); [Entry.Git] reads and
// checks them. Other kinds ("npm", "pip", …) are listed with the reason they are not
// installable. [FetchEntry] clones the repository bare under
// $CWX_HOME/marketplaces/sources/ (or fetches it again) and reads it at one commit: the one
// a lock pinned, else the entry's sha, else what its ref or HEAD names at install time. That
// commit is recorded in the origin (Repository, RepositoryCommit), so the lock reinstalls
// the same tree, and a later install of a moved HEAD (or `cwx plugin update ID`, which
// reads the marketplace at its HEAD again and reviews what changed) is an update that needs
// a new review.
// [Checkout.Extract] writes the tree as Snapshot.Extract writes a folder.
//
// # The network
//
// go-git's http and https transports are replaced, once per process, by one whose
// http.Client sends each request through the core/egress client that the operation's
// context carries (go-git passes the context to every request; a request without one is
// refused), so every clone and fetch is judged by its own policy (remotePolicy): no proxy,
// only the repository's own origin (a redirect elsewhere is refused at that hop), responses
// capped at [MaxBytes], [FetchTimeout] for the whole operation, and the private address
// ranges refused. A marketplace URL the user typed as a literal address or localhost (a
// local server) may reach that address, over http too; an entry's repository may do so only
// when it is on that same origin. A manifest cannot point cwx at any other local address.
// go-git wraps a transport's error without Unwrap, so the first refusal is kept and
// returned itself, matching errdefs.ErrRefused. go-git also writes the URL's host as a
// "Host" header, which net/http never sends; that copy is dropped before egress, which
// refuses any Host header.
package marketplace
