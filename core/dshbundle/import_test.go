package dshbundle

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cwx-dev/cwx/core/plugins"
	"github.com/cwx-dev/cwx/core/plugins/plugintest"
)

func openStore(t *testing.T) *plugins.Store {
	t.Helper()
	s, err := plugins.Open(plugins.Options{Home: filepath.Join(t.TempDir(), "home")})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func pluginFiles(name, body string) map[string]string {
	return map[string]string{
		"package.json": `{"name":"` + name + `","version":"1.0.0","type":"module","main":"index.mjs"}`,
		"index.mjs":    "export function apply(ctx) { /* " + body + " */ }\n",
	}
}

// writeBundle writes a bundle package: its package.json naming patch, the patch files, and
// the plugins it carries under node_modules.
func writeBundle(t *testing.T, dir, patch string, files map[string]string, carried map[string]string) {
	t.Helper()
	all := map[string]string{"package.json": `{"name":"@b/bundle","version":"2.0.0","dsh":{"bundle":{"patch":` + patch + `}}}`}
	for k, v := range files {
		all[k] = v
	}
	for name, body := range carried {
		for k, v := range pluginFiles(name, body) {
			all["node_modules/"+name+"/"+k] = v
		}
	}
	plugintest.WriteTree(t, dir, all)
}

const twoLayers = `["./base.yml", "extra.yml"]`

var layerFiles = map[string]string{
	"base.yml": `
- insert:
    - id: a
      name: '@x/a'
      config: {n: 1}
    - id: grp
      name: cordis:group
      group: true
      disabled: true
      config:
        - id: c
          name: '@x/c'
    - id: inst
      name: '@x/installed'
    - id: gone
      name: '@x/gone'
    - id: sub
      name: '@x/a/startup'
`,
	"extra.yml": `
- id: a
  config: {n: 2}
- id: nothing
  disabled: true
`,
}

func TestResolveRowsAndSources(t *testing.T) {
	s := openStore(t)
	inst := filepath.Join(t.TempDir(), "installed")
	plugintest.WriteTree(t, inst, pluginFiles("@x/installed", "mine"))
	ir, err := s.Install(inst)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "bundle")
	writeBundle(t, dir, twoLayers, layerFiles, map[string]string{"@x/a": "a", "@x/c": "c"})
	c, err := Preview(s, dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Bundles) != 1 || c.Bundles[0].Name != "@b/bundle" || c.Bundles[0].Version != "2.0.0" || strings.Join(c.Bundles[0].Patches, ",") != "base.yml,extra.yml" {
		t.Fatalf("composition: %+v", c)
	}
	got := map[string]Row{}
	var order []string
	for _, r := range c.Rows {
		got[r.ID] = r
		order = append(order, strings.Join(r.Path, ">"))
	}
	if strings.Join(order, " ") != "a grp grp>c inst gone sub" {
		t.Fatalf("rows: %s", strings.Join(order, " "))
	}
	if r := got["a"]; r.Source.Kind != SourceBundled || r.Source.Rel != "node_modules/@x/a" || asJSON(t, r.Config) != `{"n":2}` || r.Disabled != "" {
		t.Fatalf("a: %+v %+v", r, r.Source)
	}
	if r := got["c"]; r.Disabled != `by group "grp"` || r.Source.Kind != SourceBundled {
		t.Fatalf("c: %+v", r)
	}
	if r := got["grp"]; !r.Group || r.Source != nil || r.Disabled != "" {
		t.Fatalf("grp: %+v", r)
	}
	if r := got["inst"]; r.Source.Kind != SourceInstalled || r.Source.Closure != ir.Closure {
		t.Fatalf("inst: %+v", r.Source)
	}
	if r := got["gone"]; r.Source.Kind != SourceMissing {
		t.Fatalf("gone: %+v", r.Source)
	}
	if r := got["sub"]; r.Source.Kind != SourceUnsupported || !strings.Contains(r.Source.Why, "subpath") {
		t.Fatalf("sub: %+v", r.Source)
	}
	if len(c.Warnings) != 1 || c.Warnings[0].Layer != 1 || c.Warnings[0].Patch != 2 {
		t.Fatalf("warnings: %+v", c.Warnings)
	}

	// The hash is of the composition, not of the YAML: a comment changes nothing, a config
	// value or a byte of a carried plugin does.
	again, err := Preview(s, dir)
	if err != nil || again.SHA256 != c.SHA256 {
		t.Fatalf("a second preview: %v %s %s", err, again.SHA256, c.SHA256)
	}
	appendFile(t, filepath.Join(dir, "base.yml"), "# a comment\n")
	if h := preview(t, s, dir); h != c.SHA256 {
		t.Fatal("a comment changed the hash")
	}
	appendFile(t, filepath.Join(dir, "extra.yml"), "- id: a\n  config: {n: 3}\n")
	h3 := preview(t, s, dir)
	if h3 == c.SHA256 {
		t.Fatal("a config change kept the hash")
	}
	appendFile(t, filepath.Join(dir, "node_modules/@x/c/index.mjs"), "//\n")
	if preview(t, s, dir) == h3 {
		t.Fatal("a changed byte of a carried plugin kept the hash")
	}
}

func preview(t *testing.T, s *plugins.Store, dir string) string {
	t.Helper()
	c, err := Preview(s, dir)
	if err != nil {
		t.Fatal(err)
	}
	return c.SHA256
}

func appendFile(t *testing.T, p, text string) {
	t.Helper()
	f, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(text); err != nil {
		t.Fatal(err)
	}
}

func TestInstallExactHash(t *testing.T) {
	s := openStore(t)
	dir := filepath.Join(t.TempDir(), "bundle")
	writeBundle(t, dir, twoLayers, layerFiles, map[string]string{"@x/a": "a", "@x/c": "c"})
	c, err := Preview(s, dir)
	if err != nil {
		t.Fatal(err)
	}

	// a byte changed after the preview: refused, nothing installed
	appendFile(t, filepath.Join(dir, "node_modules/@x/a/index.mjs"), "//\n")
	if _, _, err := Install(s, "sha256:"+c.SHA256, dir); !errors.Is(err, ErrChanged) || !errors.Is(err, plugins.ErrContentChanged) {
		t.Fatalf("changed bytes: %v", err)
	}
	if list, _ := s.List(); len(list) != 0 {
		t.Fatalf("installed after a refusal: %d", len(list))
	}

	c, err = Preview(s, dir)
	if err != nil {
		t.Fatal(err)
	}
	_, done, err := Install(s, "sha256:"+c.SHA256, dir)
	if err != nil {
		t.Fatal(err)
	}
	byPkg := map[string]Installed{}
	for _, d := range done {
		byPkg[d.Package] = d
	}
	a := byPkg["@x/a"]
	if a.Result == nil || a.Result.ID != "@x/a" || a.Result.Closure != rowSource(c, "a").Closure {
		t.Fatalf("@x/a: %+v", a)
	}
	if byPkg["@x/c"].Result != nil || byPkg["@x/c"].Skipped != "disabled" {
		t.Fatalf("@x/c under a disabled group: %+v", byPkg["@x/c"])
	}
	if d := byPkg["@x/gone"]; d.Result != nil || !strings.HasPrefix(d.Skipped, "missing") {
		t.Fatalf("@x/gone: %+v", d)
	}
	r, err := s.Get("@x/a")
	if err != nil {
		t.Fatal(err)
	}
	if r.Enabled || r.Trust != nil || plugins.Runnable(s.Status(r)) {
		t.Fatalf("installed runnable: %+v", r)
	}
	if list, _ := s.List(); len(list) != 1 {
		t.Fatalf("installed %d plugins, want 1", len(list))
	}
}

func rowSource(c *Composition, id string) *Source {
	for _, r := range c.Rows {
		if r.ID == id {
			return r.Source
		}
	}
	return nil
}

// An insert or override that carries other bytes under a reviewed plugin's id makes a new
// version, which runs only once reviewed and trusted again.
func TestInstallNeverReplacesReviewedCodeWithoutReview(t *testing.T) {
	s := openStore(t)
	mine := filepath.Join(t.TempDir(), "mine")
	plugintest.WriteTree(t, mine, pluginFiles("@x/a", "reviewed"))
	if _, err := s.Install(mine); err != nil {
		t.Fatal(err)
	}
	rv, err := s.Review("@x/a")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Trust("@x/a", rv.Token); err != nil {
		t.Fatal(err)
	}
	if err := s.Enable("@x/a"); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "bundle")
	writeBundle(t, dir, `"p.yml"`, map[string]string{"p.yml": "- insert: [{id: a, name: '@x/a'}]\n"}, map[string]string{"@x/a": "other"})
	c, err := Preview(s, dir)
	if err != nil {
		t.Fatal(err)
	}
	src := rowSource(c, "a")
	if src.Kind != SourceBundled || src.Replaces == "" {
		t.Fatalf("source: %+v", src)
	}
	if _, _, err := Install(s, c.SHA256, dir); err != nil {
		t.Fatal(err)
	}
	r, err := s.Get("@x/a")
	if err != nil {
		t.Fatal(err)
	}
	if r.Closure != src.Closure || plugins.Runnable(s.Status(r)) || s.CheckReceipt(r) == nil {
		t.Fatalf("the bundle's bytes run without review: status %s", s.Status(r))
	}
}

func TestInstallFromTarball(t *testing.T) {
	s := openStore(t)
	dir := filepath.Join(t.TempDir(), "package")
	writeBundle(t, dir, `"p.yml"`, map[string]string{"p.yml": "- insert: [{id: a, name: '@x/a', config: {k: v}}]\n"}, map[string]string{"@x/a": "a"})
	tgz := filepath.Join(t.TempDir(), "bundle.tgz")
	if out, err := exec.Command("tar", "-czf", tgz, "-C", filepath.Dir(dir), "package").CombinedOutput(); err != nil {
		t.Skipf("tar: %v %s", err, out)
	}
	c, err := Preview(s, tgz)
	if err != nil {
		t.Fatal(err)
	}
	_, done, err := Install(s, c.SHA256, tgz)
	if err != nil {
		t.Fatal(err)
	}
	if len(done) != 1 || done[0].Result == nil {
		t.Fatalf("done: %+v", done)
	}
	r, _ := s.Get("@x/a")
	if r.Origin == nil || r.Origin.Type != plugins.OriginTarball || r.Origin.Path != tgz {
		t.Fatalf("origin: %+v", r.Origin)
	}
	if left, _ := filepath.Glob(filepath.Join(s.Layout().Home, "plugins", ".tmp", "unpack-*")); len(left) != 0 {
		t.Fatalf("unpacked folders left: %v", left)
	}
}

func TestResolveRefuses(t *testing.T) {
	s := openStore(t)
	for _, tc := range []struct {
		name, pkg string
		files     map[string]string
		want      string
	}{
		{"no bundle", `{"name":"x"}`, nil, "declares no dsh.bundle.patch"},
		{"escape", `{"name":"x","dsh":{"bundle":{"patch":"../p.yml"}}}`, nil, "inside the package"},
		{"absolute", `{"name":"x","dsh":{"bundle":{"patch":"/etc/p.yml"}}}`, nil, "inside the package"},
		{"not a path", `{"name":"x","dsh":{"bundle":{"patch":5}}}`, nil, "a path or a list"},
		{"empty list", `{"name":"x","dsh":{"bundle":{"patch":[]}}}`, nil, "lists 0 files"},
		{"absent file", `{"name":"x","dsh":{"bundle":{"patch":"p.yml"}}}`, nil, "p.yml"},
		{"bad yaml", `{"name":"x","dsh":{"bundle":{"patch":"p.yml"}}}`, map[string]string{"p.yml": "a: 1"}, "top-level YAML list"},
		{"name not a string", `{"name":"x","dsh":{"bundle":{"patch":"p.yml"}}}`, map[string]string{"p.yml": "- insert: [{id: a, name: 5}]"}, "name must be a string"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			files := map[string]string{"package.json": tc.pkg}
			for k, v := range tc.files {
				files[k] = v
			}
			plugintest.WriteTree(t, dir, files)
			if _, err := Preview(s, dir); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err %v, want %q", err, tc.want)
			}
		})
	}
	// a patch file that is a symlink is not read, even inside the package
	dir := t.TempDir()
	plugintest.WriteTree(t, dir, map[string]string{"package.json": `{"name":"x","dsh":{"bundle":{"patch":"p.yml"}}}`, "real.yml": "[]"})
	if err := os.Symlink("real.yml", filepath.Join(dir, "p.yml")); err != nil {
		t.Fatal(err)
	}
	if _, err := Preview(s, dir); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Fatalf("symlinked patch: %v", err)
	}
}

// Disabled ancestry as DSH's loader has it: a group always runs, a row is disabled by its own
// flag or by any group above it, and a literal flag wins over an expression.
func TestDisabledAncestry(t *testing.T) {
	dir := t.TempDir()
	writeBundle(t, dir, `"p.yml"`, map[string]string{"p.yml": `
- insert:
    - id: outer
      group: true
      disabled: !!js process.env.OFF
      config:
        - {id: a, name: x}
        - {id: b, name: x, disabled: true}
        - id: inner
          group: true
          disabled: true
          config:
            - {id: c, name: x, disabled: !!js other}
    - {id: d, name: x, disabled: 0}
    - {id: e, name: x, disabled: 'no'}
`}, nil)
	c, err := Resolve([]string{dir}, func(string) (string, string, bool) { return "", "", false }, plugins.DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range c.Rows {
		got = append(got, r.ID+"="+r.Disabled)
	}
	want := `outer= a=!!js process.env.OFF (on group "outer") b=yes inner= c=by group "inner" d= e=yes`
	if strings.Join(got, " ") != want {
		t.Fatalf("got  %s\nwant %s", strings.Join(got, " "), want)
	}
}

// Several bundles are a profile's layers: later patches override earlier rows, and a row's
// plugin comes from the first bundle that carries it.
func TestLayeredBundles(t *testing.T) {
	s := openStore(t)
	base := filepath.Join(t.TempDir(), "base")
	writeBundle(t, base, `"p.yml"`, map[string]string{"p.yml": "- insert: [{id: a, name: '@x/a', config: {n: 1}}, {id: b, name: '@x/b'}]\n"},
		map[string]string{"@x/a": "a"})
	mode := filepath.Join(t.TempDir(), "mode")
	plugintest.WriteTree(t, mode, map[string]string{
		"package.json": `{"name":"@b/mode","version":"1.0.0","main":"index.mjs","dsh":{"bundle":{"patch":"m.yml"}}}`,
		"index.mjs":    "export function apply() {}\n",
		"m.yml":        "- id: a\n  config: {n: 2}\n- id: b\n  disabled: true\n- insert: [{id: m, name: '@b/mode'}]\n",
	})
	plugintest.WriteTree(t, mode, map[string]string{"node_modules/@x/a/package.json": `{"name":"@x/a","version":"9.0.0","main":"index.mjs"}`, "node_modules/@x/a/index.mjs": "export function apply() {}\n"})
	c, err := Preview(s, base, mode)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Bundles) != 2 || c.Bundles[1].Name != "@b/mode" {
		t.Fatalf("bundles: %+v", c.Bundles)
	}
	a, b, m := c.Rows[0], c.Rows[1], c.Rows[2]
	if asJSON(t, a.Config) != `{"n":2}` || a.Source.Bundle != "@b/bundle" || b.Disabled != "yes" || m.Source.Kind != SourceUnsupported {
		t.Fatalf("rows: %+v %+v / %+v / %+v", a, a.Source, b, m.Source)
	}
	if only, _ := Preview(s, base); only.SHA256 == c.SHA256 {
		t.Fatal("a layer more kept the hash")
	}
	_, done, err := Install(s, c.SHA256, base, mode)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, d := range done {
		if d.Result != nil {
			ids = append(ids, d.Result.ID+"@"+d.Result.Version)
		}
	}
	if strings.Join(ids, ",") != "@x/a@1.0.0" {
		t.Fatalf("installed %v: %+v", ids, done)
	}
	// the carried @x/a of the first bundle that has it, not the mode bundle's 9.0.0
	if r, _ := s.Get("@x/a"); r.Origin == nil || r.Origin.Path != filepath.Join(base, "node_modules", "@x", "a") {
		t.Fatalf("origin: %+v", r.Origin)
	}
}
