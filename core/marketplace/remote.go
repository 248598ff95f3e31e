package marketplace

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/go-git/go-git/v5"
	gitconfig "github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/transport/client"
	githttp "github.com/go-git/go-git/v5/plumbing/transport/http"

	"github.com/cwx-dev/cwx/core/egress"
	"github.com/cwx-dev/cwx/core/errdefs"
)

// FetchTimeout bounds one clone or fetch of a repository.
const FetchTimeout = 5 * time.Minute

// ErrNoCommit is a ref or commit the fetched repository does not have.
var ErrNoCommit = fmt.Errorf("%w: the repository has no such commit", ErrMarketplace)

// remotePolicy is the egress policy for fetching repository rawURL. Only its own origin is
// reached, redirects included. local, when set, is an origin the user typed themselves (a
// marketplace URL given to `marketplace add`): when it is a literal address or localhost,
// rawURL may reach the private ranges and use plain http only if it is on that same origin.
// Everything else is https to a public address.
func remotePolicy(rawURL string, local *egress.Origin) (egress.Policy, egress.Origin, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return egress.Policy{}, egress.Origin{}, fmt.Errorf("%w: %v", ErrMarketplace, err)
	}
	o, err := egress.OriginOf(u)
	if err != nil {
		return egress.Policy{}, egress.Origin{}, fmt.Errorf("%w: %v", ErrMarketplace, err)
	}
	userLocal := local != nil && *local == o && (o.IsLiteral() || o.Host == "localhost")
	if o.Scheme != "https" && !userLocal {
		return egress.Policy{}, o, fmt.Errorf("%w: %s: a git repository is fetched over https (plain http only from a local address you gave to `marketplace add`)", ErrMarketplace, u.Redacted())
	}
	p := egress.Policy{
		Allow: func(_, to egress.Origin) error {
			if to != o {
				return fmt.Errorf("%w: only the repository's own origin %s is reached", egress.ErrNotAllowed, o)
			}
			return nil
		},
		Private:          func(to egress.Origin) bool { return userLocal && to == o },
		MaxResponseBytes: MaxBytes,
		Timeout:          FetchTimeout,
	}
	return p, o, nil
}

// clientKey carries the *gitEgress of one clone or fetch in its context.
type clientKey struct{}

// gitEgress is one operation's egress client and the first refusal it made: go-git wraps a
// transport's error without Unwrap, so syncRepo returns the refusal itself (which matches
// errdefs.ErrRefused) rather than go-git's text of it.
type gitEgress struct {
	c       *egress.Client
	mu      sync.Mutex
	refused error // +checklocks:mu
}

func (g *gitEgress) refusal() error {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.refused
}

var installOnce sync.Once

// installTransports makes go-git's http and https transports send every request through
// the egress client its context carries (go-git passes the operation's context to each
// request), so each operation is judged by its own policy; a request without one is
// refused. go-git's transports are process-wide, and only this package uses go-git.
func installTransports() {
	installOnce.Do(func() {
		t := githttp.NewClient(&http.Client{Transport: contextTransport{}})
		client.InstallProtocol("https", t)
		client.InstallProtocol("http", t)
	})
}

type contextTransport struct{}

func (contextTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	g, _ := req.Context().Value(clientKey{}).(*gitEgress)
	if g == nil {
		return nil, fmt.Errorf("%w: a git request with no egress policy", egress.ErrNotAllowed)
	}
	if h := req.Header.Get("Host"); h != "" && (h == req.URL.Host || h == req.URL.Hostname()) {
		// go-git also writes the URL's host as a Host header, which net/http never sends
		// (it sends req.Host); egress refuses any Host header, so drop this copy.
		req = req.Clone(req.Context())
		req.Header.Del("Host")
	}
	resp, err := g.c.RoundTripper().RoundTrip(req)
	if err != nil {
		g.mu.Lock()
		if g.refused == nil && (errors.Is(err, errdefs.ErrRefused) || errors.Is(err, errdefs.ErrTooLarge)) {
			g.refused = err
		}
		g.mu.Unlock()
	}
	return resp, err
}

// cacheDir is where the bare clone of rawURL is kept under $CWX_HOME/marketplaces/.
func cacheDir(home, kind, rawURL string) string {
	sum := sha256.Sum256([]byte(rawURL))
	return filepath.Join(home, "marketplaces", kind, hex.EncodeToString(sum[:8])+".git")
}

// fetchSpecs are the refs a cached clone keeps: the remote's branches and tags under their
// own names (not a mirror, which would also fetch a host's pull-request refs).
var fetchSpecs = []gitconfig.RefSpec{"+refs/heads/*:refs/heads/*", "+refs/tags/*:refs/tags/*"}

// syncRepo keeps a bare clone of rawURL in dir: created when missing, its branches and tags
// fetched again, and HEAD pointed at the branch the remote's HEAD names, all through an
// egress client under p.
func syncRepo(ctx context.Context, dir, rawURL string, p egress.Policy) error {
	installTransports()
	g := &gitEgress{c: egress.New(p)}
	defer g.c.Close()
	ctx, cancel := context.WithTimeout(ctx, FetchTimeout)
	defer cancel()
	ctx = context.WithValue(ctx, clientKey{}, g)
	fail := func(op string, err error) error {
		if r := g.refusal(); r != nil {
			err = r
		}
		return fmt.Errorf("%s %s: %w", op, redacted(rawURL), err)
	}
	fresh := false
	r, err := git.PlainOpen(dir)
	if errors.Is(err, git.ErrRepositoryNotExists) {
		if err := os.MkdirAll(filepath.Dir(dir), 0o700); err != nil {
			return err
		}
		if r, err = git.PlainInit(dir, true); err == nil {
			_, err = r.CreateRemote(&gitconfig.RemoteConfig{Name: "origin", URLs: []string{rawURL}, Fetch: fetchSpecs})
		}
		fresh = true
	}
	if err != nil {
		return fmt.Errorf("%w: the cached clone %s: %v", ErrMarketplace, dir, err)
	}
	drop := func() {
		if fresh {
			os.RemoveAll(dir)
		}
	}
	rem, err := r.Remote("origin")
	if err != nil {
		drop()
		return fmt.Errorf("%w: the cached clone %s: %v", ErrMarketplace, dir, err)
	}
	refs, err := rem.ListContext(ctx, &git.ListOptions{})
	if err != nil {
		drop()
		return fail("list", err)
	}
	err = r.FetchContext(ctx, &git.FetchOptions{RemoteName: "origin", RefSpecs: fetchSpecs, Force: true})
	if err != nil && !errors.Is(err, git.NoErrAlreadyUpToDate) {
		drop()
		return fail("fetch", err)
	}
	if head := remoteHead(refs); head != "" {
		if err := r.Storer.SetReference(plumbing.NewSymbolicReference(plumbing.HEAD, head)); err != nil {
			drop()
			return err
		}
	}
	return nil
}

// remoteHead is the branch the remote's HEAD names: its symbolic target when the server
// says, else a branch at HEAD's commit ("main" or "master" first); "" when there is none.
func remoteHead(refs []*plumbing.Reference) plumbing.ReferenceName {
	var head plumbing.Hash
	for _, ref := range refs {
		if ref.Name() != plumbing.HEAD {
			continue
		}
		if ref.Type() == plumbing.SymbolicReference && ref.Target().IsBranch() {
			return ref.Target()
		}
		head = ref.Hash()
	}
	if head.IsZero() {
		return ""
	}
	var at []plumbing.ReferenceName
	for _, ref := range refs {
		if ref.Name().IsBranch() && ref.Type() == plumbing.HashReference && ref.Hash() == head {
			at = append(at, ref.Name())
		}
	}
	slices.SortFunc(at, func(a, b plumbing.ReferenceName) int {
		rank := func(n plumbing.ReferenceName) int {
			switch n.Short() {
			case "main":
				return 0
			case "master":
				return 1
			}
			return 2
		}
		if d := rank(a) - rank(b); d != 0 {
			return d
		}
		return strings.Compare(string(a), string(b))
	})
	if len(at) == 0 {
		return ""
	}
	return at[0]
}

func redacted(raw string) string {
	if u, err := url.Parse(raw); err == nil {
		return u.Redacted()
	}
	return raw
}

// Checkout is an entry's plugin read from its own repository at one commit.
type Checkout struct {
	URL    string
	Commit string
	tree   *object.Tree
}

// FetchEntry clones (or fetches) g's repository into the cache under home and reads it at
// one commit: pinned when set (the commit a lock recorded), else g.SHA, else the commit g.Ref
// (a branch or tag) or the repository's HEAD names now. When both pinned and g.SHA are set
// they must agree. market is where the marketplace was added from (a path or a URL): a
// repository on that URL's own local origin may use it, as `marketplace add` did.
func FetchEntry(ctx context.Context, home, market string, g *GitSource, pinned string) (*Checkout, error) {
	var local *egress.Origin
	if u, err := url.Parse(market); err == nil && u.Host != "" {
		if o, err := egress.OriginOf(u); err == nil {
			local = &o
		}
	}
	p, _, err := remotePolicy(g.URL, local)
	if err != nil {
		return nil, err
	}
	if pinned != "" && g.SHA != "" && pinned != g.SHA {
		return nil, fmt.Errorf("%w: the lock pins commit %s, the marketplace entry now pins %s", ErrMarketplace, pinned, g.SHA)
	}
	dir := cacheDir(home, "sources", g.URL)
	if err := syncRepo(ctx, dir, g.URL, p); err != nil {
		return nil, err
	}
	repo, err := git.PlainOpen(dir)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrMarketplace, dir, err)
	}
	want := pinned
	if want == "" {
		want = g.SHA
	}
	h, err := resolve(repo, g.Ref, want)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", g, err)
	}
	c, err := repo.CommitObject(h)
	if err != nil {
		return nil, fmt.Errorf("%w: %s has no commit %s", ErrNoCommit, redacted(g.URL), h)
	}
	tree, err := c.Tree()
	if err != nil {
		return nil, fmt.Errorf("%w: commit %s: %v", ErrMarketplace, h, err)
	}
	return &Checkout{URL: g.URL, Commit: h.String(), tree: tree}, nil
}

// resolve is the commit hash names (when set, it must be in the repository), else ref's
// (a branch, a tag, peeled to its commit), else HEAD's.
func resolve(repo *git.Repository, ref, hash string) (plumbing.Hash, error) {
	if hash != "" {
		h := plumbing.NewHash(hash)
		if _, err := repo.CommitObject(h); err != nil {
			return plumbing.ZeroHash, fmt.Errorf("%w: %s", ErrNoCommit, hash)
		}
		return h, nil
	}
	if ref == "" {
		head, err := repo.Head()
		if err != nil {
			return plumbing.ZeroHash, fmt.Errorf("%w: no HEAD commit: %v", ErrNoCommit, err)
		}
		return head.Hash(), nil
	}
	for _, name := range []plumbing.ReferenceName{plumbing.NewBranchReferenceName(ref), plumbing.NewTagReferenceName(ref)} {
		r, err := repo.Reference(name, true)
		if err != nil {
			continue
		}
		if tag, err := repo.TagObject(r.Hash()); err == nil {
			c, err := tag.Commit()
			if err != nil {
				return plumbing.ZeroHash, fmt.Errorf("%w: tag %s does not name a commit", ErrNoCommit, ref)
			}
			return c.Hash, nil
		}
		return r.Hash(), nil
	}
	return plumbing.ZeroHash, fmt.Errorf("%w: no branch or tag %q", ErrNoCommit, ref)
}

// Extract writes the repository's tree at the checkout's commit into dst (which must not
// exist), as [Snapshot.Extract] writes a folder; name is the entry's, for errors.
func (c *Checkout) Extract(name, dst string) error { return extractTree(c.tree, name, dst) }
