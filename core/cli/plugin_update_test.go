package cli

import (
	"encoding/json"
	"os"
	"sort"
	"strings"
	"testing"

	"github.com/cwx-dev/cwx/core/plugins"
	"github.com/cwx-dev/cwx/core/plugins/plugintest"
)

// publishFiles publishes name@version with the given files under package/.
func (r *testRegistry) publishFiles(name, version string, files map[string]string) {
	r.t.Helper()
	var entries []plugintest.TarEntry
	for _, p := range sortedFileNames(files) {
		entries = append(entries, plugintest.TarEntry{Name: "package/" + p, Body: files[p]})
	}
	tgz := plugintest.Tarball(r.t, r.t.TempDir(), "p.tgz", entries)
	data, err := os.ReadFile(tgz)
	if err != nil {
		r.t.Fatal(err)
	}
	r.put(name, version, data, nil)
}

func sortedFileNames(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func getRecord(t *testing.T, id string) *plugins.Record {
	t.Helper()
	s, _, err := openPlugins()
	if err != nil {
		t.Fatal(err)
	}
	r, err := s.Get(id)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestOutdatedAndUpdate(t *testing.T) {
	home := pluginHome(t)
	reg := newTestRegistry(t)
	useRegistry(t, home, reg)
	const id = "@acme/hello"
	reg.publishFiles(id, "1.0.0", map[string]string{
		"package.json": `{"name":"@acme/hello","version":"1.0.0","main":"index.mjs"}`,
		"index.mjs":    "export const inject = ['tools'];\nexport function apply(ctx) {}\n",
		"README.md":    "one\n",
	})
	reg.tag(id, "latest", "1.0.0")
	installJSON(t, "npm:@acme/hello@^1.0.0")
	mustCLI(t, "plugin", "trust", id, "--token", reviewToken(t, id))
	mustCLI(t, "plugin", "enable", id)
	oldClosure := getRecord(t, id).Closure

	if out := mustCLI(t, "plugin", "outdated"); !strings.Contains(out, "at its newest version") {
		t.Fatalf("outdated before a new version:\n%s", out)
	}
	reg.publishFiles(id, "1.1.0", map[string]string{
		"package.json": `{"name":"@acme/hello","version":"1.1.0","main":"index.mjs"}`,
		"index.mjs":    "import './lib.mjs';\nexport const inject = ['tools', 'storage'];\nexport function apply(ctx) {}\n",
		"lib.mjs":      "export const x = 1;\n",
	})
	reg.publishFiles(id, "2.0.0", map[string]string{
		"package.json": `{"name":"@acme/hello","version":"2.0.0","main":"index.mjs"}`,
		"index.mjs":    "export function apply(ctx) {}\n",
	})
	reg.tag(id, "latest", "1.1.0")

	var rows []PluginOutdated
	if err := json.Unmarshal([]byte(mustCLI(t, "plugin", "outdated", "--json")), &rows); err != nil {
		t.Fatal(err)
	}
	if len(rows) != 1 || rows[0].Current != "1.0.0" || rows[0].Wanted != "1.1.0" || rows[0].Latest != "1.1.0" ||
		strings.Join(rows[0].Newer, " ") != "2.0.0 1.1.0" || rows[0].Query != "^1.0.0" {
		t.Fatalf("outdated: %+v", rows)
	}

	// A dry run reviews and keeps nothing.
	dry := mustCLI(t, "plugin", "update", id, "--dry-run")
	for _, want := range []string{
		"update   @acme/hello 1.0.0 → 1.1.0",
		"files added:   lib.mjs",
		"files removed: README.md",
		"files changed: index.mjs, package.json",
		"entries changed: index.mjs",
		"injects before: tools",
		"injects after:  storage, tools",
		"grants:  none requested",
		"install scripts: none",
		"dry run: nothing was staged",
	} {
		if !strings.Contains(dry, want) {
			t.Errorf("dry run lacks %q:\n%s", want, dry)
		}
	}
	r := getRecord(t, id)
	if r.Pending != nil || r.Version != "1.0.0" {
		t.Fatalf("a dry run recorded %+v", r.Pending)
	}
	var rv plugins.UpdateReview
	if err := json.Unmarshal([]byte(mustCLI(t, "plugin", "update", id, "--dry-run", "--json")), &rv); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(plugins.Layout{Home: home}.StageDir(id, rv.ToClosure)); !os.IsNotExist(err) {
		t.Fatalf("a dry run left the new version staged: %v", err)
	}

	// The update is staged; the old version keeps running until it is trusted.
	out := mustCLI(t, "plugin", "update", id)
	if !strings.Contains(out, "1.0.0 keeps running until this update is trusted") {
		t.Fatalf("update:\n%s", out)
	}
	r = getRecord(t, id)
	s, _, _ := openPlugins()
	if r.Version != "1.0.0" || r.Closure != oldClosure || r.Pending == nil || r.Pending.Version != "1.1.0" || s.Status(r) != "enabled" {
		t.Fatalf("after staging: version %s, status %s, pending %+v", r.Version, s.Status(r), r.Pending)
	}
	if lk := readLockFile(t, home); lk.Plugins[id].Version != "1.0.0" {
		t.Fatalf("the lock moved before the update was trusted: %+v", lk.Plugins[id])
	}
	token := out[strings.LastIndex(out, "--token ")+len("--token "):]
	token = strings.TrimSpace(token)
	// The running version's own token does not promote the update.
	mustCLI(t, "plugin", "trust", id, "--token", reviewToken(t, id))
	if r := getRecord(t, id); r.Version != "1.0.0" || r.Pending == nil {
		t.Fatalf("the old token promoted the update: %s", r.Version)
	}
	mustCLI(t, "plugin", "trust", id, "--token", token)
	r = getRecord(t, id)
	if r.Version != "1.1.0" || r.Pending != nil || r.Source != "npm:@acme/hello@1.1.0" || s.Status(r) != "enabled" || r.Origin.Query != "^1.0.0" {
		t.Fatalf("after trust: version %s, source %s, status %s, pending %+v", r.Version, r.Source, s.Status(r), r.Pending)
	}
	if lk := readLockFile(t, home); lk.Plugins[id].Version != "1.1.0" || lk.Plugins[id].Closure != r.Closure {
		t.Fatalf("the lock after the update: %+v", lk.Plugins[id])
	}

	// --to picks another version, outside the installed range.
	out = mustCLI(t, "plugin", "update", id, "--to", "2.0.0", "--dry-run")
	if !strings.Contains(out, "1.1.0 → 2.0.0") || !strings.Contains(out, "injects after:  ?") {
		t.Fatalf("--to 2.0.0:\n%s", out)
	}
	// A plugin installed from a folder has no registry to update from.
	mustCLI(t, "plugin", "install", basicFixture(t))
	if r := runPluginCLI(t, "plugin", "update", "hello"); r.code != ExitUsage || !strings.Contains(r.stderr, "not by name") {
		t.Fatalf("update of a folder plugin: exit %d\n%s", r.code, r.stderr)
	}
}
