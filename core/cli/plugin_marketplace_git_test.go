package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/cwx-dev/cwx/core/marketplace"
)

// stagedFile reads a file of id's staged copy of closure.
func stagedFile(t *testing.T, id, closure, name string) string {
	t.Helper()
	s, _, err := openPlugins()
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(s.Layout().StageDir(id, closure), name))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// A marketplace served over smart HTTP on loopback (go-git's server side), whose entries are
// git repositories of their own: each installs the repository's root at the commit
// resolved at install time (HEAD, a tag, or the entry's sha), which the lock pins; a
// redirect to another origin and a repository on another origin are refused.
func TestMarketplaceGitSourcePinnedToItsCommit(t *testing.T) {
	home := pluginHome(t)
	srv := newGitServer(t)
	other := newGitServer(t) // another loopback origin the user never gave

	pdir := filepath.Join(t.TempDir(), "greeter")
	prepo, err := git.PlainInit(pdir, false)
	if err != nil {
		t.Fatal(err)
	}
	first := commitTree(t, prepo, pdir, map[string]string{
		"plugin.json": `{"name":"greeter","version":"1.0.0","native":"index.mjs"}`,
		"index.mjs":   "export const inject = ['tools'];\nexport function apply(ctx) { /* first */ }\n",
	})
	sig := &object.Signature{Name: "t", Email: "t@example.com", When: time.Unix(0, 0)}
	if _, err := prepo.CreateTag("v1", plumbing.NewHash(first), &git.CreateTagOptions{Tagger: sig, Message: "v1"}); err != nil {
		t.Fatal(err)
	}
	purl := srv.serveRepo(t, "greeter", pdir)
	ourl := other.serveRepo(t, "greeter", pdir)
	srv.redirect["/moved.git/info/refs"] = ourl + "/info/refs"

	mdir := filepath.Join(t.TempDir(), "market")
	mrepo, err := git.PlainInit(mdir, false)
	if err != nil {
		t.Fatal(err)
	}
	src := func(kv ...string) string {
		m := map[string]string{}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		b, _ := json.Marshal(m)
		return string(b)
	}
	mcommit := commitTree(t, mrepo, mdir, map[string]string{".claude-plugin/marketplace.json": fmt.Sprintf(`{"name":"acme-git","owner":{"name":"Acme"},"plugins":[
		{"name":"remote","description":"HEAD of its repository","source":%s},
		{"name":"tagged","source":%s},
		{"name":"pinned","source":%s},
		{"name":"moved","source":%s},
		{"name":"offsite","source":%s},
		{"name":"hub","source":%s},
		{"name":"pkg","source":{"source":"npm","package":"x"}}]}`,
		src("source", "url", "url", purl), src("source", "url", "url", purl, "ref", "v1"), src("source", "url", "url", purl, "sha", first),
		src("source", "url", "url", srv.srv.URL+"/moved.git"), src("source", "url", "url", ourl), src("source", "github", "repo", "acme/hub"))})
	murl := srv.serveRepo(t, "market", mdir)

	// The marketplace itself is cloned over HTTP through core/egress: the loopback address is
	// reachable because the user typed it.
	if out := mustCLI(t, "plugin", "marketplace", "add", murl); !strings.Contains(out, "added marketplace acme-git at commit "+mcommit) {
		t.Fatalf("add: %s", out)
	}
	var items []MarketplaceListItem
	if err := json.Unmarshal([]byte(mustCLI(t, "plugin", "marketplace", "list", "--json")), &items); err != nil {
		t.Fatal(err)
	}
	byName := map[string]MarketplacePlugin{}
	for _, p := range items[0].Plugins {
		byName[p.Name] = p
	}
	if g := byName["remote"].Git; g == nil || g.URL != purl || byName["remote"].NotInstallable != "" {
		t.Fatalf("remote listed as %+v", byName["remote"])
	}
	if g := byName["tagged"].Git; g == nil || g.Ref != "v1" {
		t.Fatalf("tagged listed as %+v", byName["tagged"])
	}
	if g := byName["hub"].Git; g == nil || g.URL != marketplace.GitHubBase+"acme/hub.git" {
		t.Fatalf("a github source listed as %+v", byName["hub"])
	}
	if p := byName["pkg"]; p.Git != nil || !strings.Contains(p.NotInstallable, `source is "npm"`) {
		t.Fatalf("an npm source listed as %+v", p)
	}
	text := mustCLI(t, "plugin", "marketplace", "list")
	if !strings.Contains(text, "remote@acme-git  HEAD of its repository  git "+purl) {
		t.Fatalf("list:\n%s", text)
	}

	// Installed as a folder is: staged, disabled, not trusted, pinned to the commit read.
	res := installJSON(t, "remote@acme-git")
	if res.ID != "greeter" || res.Status != "not trusted" || !strings.Contains(res.Source, "repository commit "+first[:12]) {
		t.Fatalf("install: %+v", res)
	}
	if o := getRecord(t, "greeter").Origin; o.Repository != purl || o.RepositoryCommit != first || o.Commit != mcommit || o.Folder != "" {
		t.Fatalf("origin %+v", o)
	}
	if got := stagedFile(t, "greeter", res.Closure, "index.mjs"); !strings.Contains(got, "first") {
		t.Fatalf("staged index.mjs %q, want the first commit's", got)
	}
	if rv := mustCLI(t, "plugin", "review", "greeter"); !strings.Contains(rv, "repository commit "+first[:12]) {
		t.Fatalf("review does not name the repository commit:\n%s", rv)
	}

	// Refused: a redirect to another origin, a repository on another (private) origin.
	for _, tc := range []struct{ entry, want string }{
		{"moved@acme-git", "only the repository's own origin"},
		{"offsite@acme-git", "fetched over https"},
		{"pkg@acme-git", `source is "npm"`},
	} {
		r := runPluginCLI(t, "plugin", "install", tc.entry)
		if r.code != ExitInvalid || !strings.Contains(r.stderr, tc.want) {
			t.Fatalf("%s: exit %d, want %d with %q\n%s", tc.entry, r.code, ExitInvalid, tc.want, r.stderr)
		}
	}
	if n := other.hits("/"); n != 0 || srv.hits("/moved.git/") == 0 {
		t.Fatalf("the other origin was asked %d times, the redirecting one %d", n, srv.hits("/moved.git/"))
	}

	// A new commit on the plugin's repository: the lock still installs the first on a fresh
	// home, and so do the tag and the sha; installing the HEAD entry again takes the new
	// commit, as an update whose new bytes need a new review.
	commitTree(t, prepo, pdir, map[string]string{"index.mjs": "export const inject = ['tools'];\nexport function apply(ctx) { /* second */ }\n"})
	data, err := os.ReadFile(filepath.Join(home, "plugins.lock"))
	if err != nil {
		t.Fatal(err)
	}
	lockFile := filepath.Join(t.TempDir(), "plugins.lock")
	os.WriteFile(lockFile, data, 0o600)

	// `plugin update` reviews the move to the new commit and keeps the first running until
	// the update is trusted; --dry-run keeps nothing.
	dry := mustCLI(t, "plugin", "update", "greeter", "--dry-run")
	for _, want := range []string{"update   greeter 1.0.0 → 1.0.0", "repository commit ", "files changed: index.mjs", "dry run: nothing was staged"} {
		if !strings.Contains(dry, want) {
			t.Errorf("dry run lacks %q:\n%s", want, dry)
		}
	}
	if r := getRecord(t, "greeter"); r.Pending != nil {
		t.Fatalf("a dry run recorded %+v", r.Pending)
	}
	mustCLI(t, "plugin", "update", "greeter")
	if r := getRecord(t, "greeter"); r.Closure != res.Closure || r.Pending == nil || r.Pending.Origin.RepositoryCommit == first {
		t.Fatalf("after update: closure %s, pending %+v", r.Closure, r.Pending)
	}
	if r := runPluginCLI(t, "plugin", "update", "greeter", "--to", "2.0.0"); r.code != ExitUsage {
		t.Fatalf("--to on a marketplace plugin: exit %d\n%s", r.code, r.stderr)
	}

	t.Setenv("CWX_HOME", filepath.Join(t.TempDir(), "fresh"))
	mustCLI(t, "plugin", "install", "--from-lock", lockFile)
	if r := getRecord(t, "greeter"); r.Closure != res.Closure || r.Origin.RepositoryCommit != first {
		t.Fatalf("from the lock: closure %s, origin %+v; want %s at %s", r.Closure, r.Origin, res.Closure, first)
	}

	t.Setenv("CWX_HOME", filepath.Join(t.TempDir(), "fresh2"))
	mustCLI(t, "plugin", "marketplace", "add", murl)
	for _, entry := range []string{"tagged@acme-git", "pinned@acme-git"} {
		if r := installJSON(t, entry); r.Closure != res.Closure || !strings.Contains(r.Source, "repository commit "+first[:12]) {
			t.Fatalf("%s: %+v, want the first commit's closure %s", entry, r, res.Closure)
		}
	}
	up := installJSON(t, "remote@acme-git")
	if !up.Updated || up.Closure == res.Closure || up.Status != "not trusted" {
		t.Fatalf("HEAD after a new commit: %+v", up)
	}
	if got := stagedFile(t, "greeter", up.Closure, "index.mjs"); !strings.Contains(got, "second") {
		t.Fatalf("staged index.mjs %q, want the second commit's", got)
	}
}
