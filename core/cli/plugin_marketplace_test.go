package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/cwx-dev/cwx/core/plugins"
	"github.com/cwx-dev/cwx/core/plugins/plugintest"
)

// commitTree writes files into the repository's work tree and commits them all.
func commitTree(t *testing.T, repo *git.Repository, dir string, files map[string]string) string {
	t.Helper()
	plugintest.WriteTree(t, dir, files)
	wt, err := repo.Worktree()
	if err != nil {
		t.Fatal(err)
	}
	if err := wt.AddGlob("."); err != nil {
		t.Fatal(err)
	}
	h, err := wt.Commit("test", &git.CommitOptions{Author: &object.Signature{Name: "t", Email: "t@example.com", When: time.Unix(0, 0)}})
	if err != nil {
		t.Fatal(err)
	}
	return h.String()
}

func TestMarketplaceInstallPinnedToItsCommit(t *testing.T) {
	home := pluginHome(t)
	dir := filepath.Join(t.TempDir(), "market")
	repo, err := git.PlainInit(dir, false)
	if err != nil {
		t.Fatal(err)
	}
	first := commitTree(t, repo, dir, map[string]string{
		".claude-plugin/marketplace.json": `{"name":"acme-market","owner":{"name":"Acme"},"plugins":[
			{"name":"greeter","description":"Says hi","version":"1.0.0","source":"./plugins/greeter"},
			{"name":"elsewhere","source":{"source":"pip","package":"acme"}}]}`,
		"plugins/greeter/plugin.json": `{"name":"greeter","version":"1.0.0","native":"index.mjs"}`,
		"plugins/greeter/index.mjs":   "export const inject = ['tools'];\nexport function apply(ctx) { /* first */ }\n",
	})
	out := mustCLI(t, "plugin", "marketplace", "add", dir)
	if !strings.Contains(out, "added marketplace acme-market at commit "+first) {
		t.Fatalf("add: %s", out)
	}
	// A later commit and an uncommitted edit: the install still takes the commit added.
	commitTree(t, repo, dir, map[string]string{"plugins/greeter/index.mjs": "export function apply(ctx) { /* second */ }\n"})
	os.WriteFile(filepath.Join(dir, "plugins/greeter/index.mjs"), []byte("export function apply(ctx) { /* dirty */ }\n"), 0o644)

	var items []MarketplaceListItem
	if err := json.Unmarshal([]byte(mustCLI(t, "plugin", "marketplace", "list", "--json")), &items); err != nil {
		t.Fatal(err)
	}
	if len(items) != 1 || items[0].Commit != first || len(items[0].Plugins) != 2 || items[0].Plugins[0].Folder != "plugins/greeter" ||
		!strings.Contains(items[0].Plugins[1].NotInstallable, `source is "pip"`) {
		t.Fatalf("list: %+v", items)
	}
	res := installJSON(t, "greeter@acme-market")
	if res.ID != "greeter" || !strings.Contains(res.Source, "greeter@acme-market (commit "+first[:12]+")") {
		t.Fatalf("install: %+v", res)
	}
	s, _, _ := openPlugins()
	staged, err := os.ReadFile(filepath.Join(s.Layout().StageDir("greeter", res.Closure), "index.mjs"))
	if err != nil || !strings.Contains(string(staged), "first") {
		t.Fatalf("staged index.mjs %q, %v; want the first commit's", staged, err)
	}
	if r := runPluginCLI(t, "plugin", "install", "elsewhere@acme-market"); r.code != ExitInvalid || !strings.Contains(r.stderr, `cwx installs folder, "github" and "url" (git) sources`) {
		t.Fatalf("a pip source: exit %d\n%s", r.code, r.stderr)
	}

	// The lock reinstalls the same commit's folder on a fresh home.
	lk := readLockFile(t, home)
	if o := lk.Plugins["greeter"].Origin; o.Type != plugins.OriginMarketplace || o.Commit != first || o.Folder != "plugins/greeter" {
		t.Fatalf("lock origin %+v", o)
	}
	data, _ := os.ReadFile(filepath.Join(home, "plugins.lock"))
	lockFile := filepath.Join(t.TempDir(), "plugins.lock")
	os.WriteFile(lockFile, data, 0o600)
	t.Setenv("CWX_HOME", filepath.Join(t.TempDir(), "fresh"))
	mustCLI(t, "plugin", "install", "--from-lock", lockFile)
	if r := getRecord(t, "greeter"); r.Closure != res.Closure {
		t.Fatalf("fresh home closure %s, want %s", r.Closure, res.Closure)
	}
}
