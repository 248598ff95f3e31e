package marketplace

import (
	"encoding/json"
	"fmt"
	"net/url"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/cwx-dev/cwx/core/internal/lazyre"
)

// GitHubBase is the base of a "github" source's clone URL: the entry's repo is appended
// with ".git", as Claude Code reads a GitHub repository source.
const GitHubBase = "https://github.com/"

// GitSource is an entry whose plugin is the root of a git repository of its own: a
// {"source": "github", "repo": "owner/name"} or a {"source": "url", "url": "https://….git"}
// entry, with an optional "ref" (a branch or tag; the repository's HEAD without one) and
// "sha" (the commit the marketplace pins).
type GitSource struct {
	URL string `json:"url"`
	Ref string `json:"ref,omitempty"`
	SHA string `json:"sha,omitempty"`
}

// String is the URL with its ref or sha, for listings.
func (g *GitSource) String() string {
	s := g.URL
	if g.Ref != "" {
		s += "#" + g.Ref
	}
	if g.SHA != "" {
		s += " @" + g.SHA
	}
	return s
}

var (
	githubRepo = lazyre.New(`^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}/[A-Za-z0-9_.-]{1,100}$`)
	gitRef     = lazyre.New(`^[A-Za-z0-9][A-Za-z0-9_./-]{0,199}$`)
)

// Git returns the entry's git repository source: nil and no error for a folder source, an
// error saying why for a source object cwx cannot install (another kind, a malformed repo,
// URL, ref or sha).
func (e Entry) Git() (*GitSource, error) {
	var s string
	if json.Unmarshal(e.Source, &s) == nil {
		return nil, nil
	}
	var obj struct {
		Source string `json:"source"`
		Repo   string `json:"repo"`
		URL    string `json:"url"`
		Ref    string `json:"ref"`
		SHA    string `json:"sha"`
	}
	if err := json.Unmarshal(e.Source, &obj); err != nil {
		return nil, fmt.Errorf("%w: %s's source is neither a folder nor a source object", ErrMarketplace, e.Name)
	}
	bad := func(why string, args ...any) (*GitSource, error) {
		return nil, fmt.Errorf("%w: %s's %s source: %s", ErrMarketplace, e.Name, obj.Source, fmt.Sprintf(why, args...))
	}
	g := &GitSource{Ref: obj.Ref, SHA: strings.ToLower(obj.SHA)}
	switch obj.Source {
	case "github":
		if !githubRepo().MatchString(obj.Repo) || strings.Contains(obj.Repo, "..") {
			return bad("repo %q is not owner/name", obj.Repo)
		}
		g.URL = GitHubBase + strings.TrimSuffix(obj.Repo, ".git") + ".git"
	case "url":
		if err := checkGitURL(obj.URL); err != nil {
			return bad("%v", err)
		}
		g.URL = obj.URL
	default:
		return nil, fmt.Errorf("%w: %s's source is %q; cwx installs folder, \"github\" and \"url\" (git) sources", ErrMarketplace, e.Name, obj.Source)
	}
	if g.Ref != "" && (!gitRef().MatchString(g.Ref) || strings.Contains(g.Ref, "..") || strings.HasSuffix(g.Ref, ".lock")) {
		return bad("ref %q is not a branch or tag name", g.Ref)
	}
	if g.SHA != "" && (len(g.SHA) != 40 || !plumbing.IsHash(g.SHA)) {
		return bad("sha %q is not a full 40-digit commit hash", obj.SHA)
	}
	return g, nil
}

// checkGitURL accepts an http(s) URL with a host and no user information, query or
// fragment. Whether its origin may be reached (an http or private one) is the fetch's
// policy.
func checkGitURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil {
		return fmt.Errorf("url %q: %v", raw, err)
	}
	switch {
	case u.Scheme != "https" && u.Scheme != "http":
		return fmt.Errorf("url %q: a git source must be an https URL", u.Redacted())
	case u.Host == "":
		return fmt.Errorf("url %q has no host", u.Redacted())
	case u.User != nil:
		return fmt.Errorf("url %q carries credentials; cwx does not send them", u.Redacted())
	case u.RawQuery != "" || u.Fragment != "":
		return fmt.Errorf("url %q: a git URL has no query or fragment", u.Redacted())
	}
	return nil
}
