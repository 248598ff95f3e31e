package plugins

import (
	"archive/tar"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cwx-dev/cwx/core/plugins/plugintest"
)

const entryJS = "export const name = 'x';\nexport const inject = ['tools', \"commands\"];\nexport function apply(ctx) {}\n"

var fixedNow = func() time.Time { return time.Date(2026, 11, 30, 1, 2, 3, 0, time.UTC) }

func newStore(t *testing.T, home string, mod func(*Options)) *Store {
	t.Helper()
	o := Options{Home: home, Provided: []string{"@deepseek-ai/cordis", "@deepseek-ai/schemastery", "@deepseek-ai/dsh-commands/brand"}, Refused: []string{"@deepseek-ai/dsh-*", "a subpath of any provided package"}, Now: fixedNow}
	if mod != nil {
		mod(&o)
	}
	s, err := Open(o)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func helloFolder(t *testing.T) string {
	dir := filepath.Join(t.TempDir(), "hello")
	plugintest.WriteTree(t, dir, map[string]string{
		"plugin.json":       `{"name":"hello","version":"1.0.0","description":"hi","native":["index.mjs","more/b.js"]}`,
		"index.mjs":         entryJS,
		"more/b.js":         "export function apply() {}\n",
		"assets/readme.txt": "text",
	})
	if err := os.Symlink("assets/readme.txt", filepath.Join(dir, "link.txt")); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestInstallFolder(t *testing.T) {
	home := t.TempDir()
	s := newStore(t, home, nil)
	src := helloFolder(t)
	res, err := s.Install(src)
	if err != nil {
		t.Fatal(err)
	}
	if res.ID != "hello" || res.Files != 5 || res.Unchanged || res.Updated {
		t.Fatalf("result %+v", res)
	}
	want, err := HashTree(src, DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	if res.Closure != want.SHA256 {
		t.Fatalf("staged closure %s differs from the source's %s", res.Closure, want.SHA256)
	}
	if res.StageDir != filepath.Join(home, "plugins", DiskName("hello"), res.Closure) {
		t.Fatalf("stage dir %s", res.StageDir)
	}
	fi, err := os.Stat(filepath.Join(res.StageDir, "index.mjs"))
	if err != nil || fi.Mode().Perm()&0o222 != 0 {
		t.Fatalf("staged file is writable: %v %v", fi.Mode(), err)
	}
	if fi, err := os.Stat(res.StageDir); err != nil || fi.Mode().Perm()&0o222 != 0 {
		t.Fatalf("staged dir is writable: %v", fi.Mode())
	}
	r, err := s.Get("hello")
	if err != nil {
		t.Fatal(err)
	}
	if r.Enabled || r.Trust != nil {
		t.Fatal("a new plugin must start disabled and untrusted")
	}
	if len(r.Entries) != 2 || r.Entries[0].Path != "index.mjs" || r.Entries[1].Path != "more/b.js" {
		t.Fatalf("entries %+v", r.Entries)
	}
	if got := s.Status(r); got != "not trusted" {
		t.Fatalf("status %q", got)
	}
	g1, _ := s.Generation()
	link := filepath.Join(t.TempDir(), "link")
	must(t, os.Symlink(src, link))
	res2, err := s.Install(link)
	if err != nil || !res2.Unchanged {
		t.Fatalf("reinstall of the same bytes: %+v %v", res2, err)
	}
	if g2, _ := s.Generation(); g2 != g1 {
		t.Fatal("an unchanged reinstall moved the generation")
	}
	if left, _ := os.ReadDir(filepath.Join(home, "plugins", ".tmp")); len(left) != 0 {
		t.Fatalf("install left temporary files: %v", left)
	}
}

func npmPackage(name string, extra string) []plugintest.TarEntry {
	return []plugintest.TarEntry{
		{Name: "package/package.json", Body: fmt.Sprintf(`{"name":%q,"version":"1.0.0","type":"module","main":"index.js"%s}`, name, extra)},
		{Name: "package/index.js", Body: entryJS},
	}
}

func TestInstallTarballWithBundledDeps(t *testing.T) {
	s := newStore(t, t.TempDir(), nil)
	ents := npmPackage("@me/tool", `,"dependencies":{"left-pad":"1","@deepseek-ai/schemastery":"3","@deepseek-ai/dsh-agent":"1"},"peerDependencies":{"@deepseek-ai/cordis":"4","@deepseek-ai/dsh-commands":"1","@deepseek-ai/dsh-session":"1"}`)
	ents = append(ents,
		plugintest.TarEntry{Name: "package/node_modules/left-pad/package.json", Body: `{"name":"left-pad","version":"1.0.0","dependencies":{"pad-core":"1"}}`},
		plugintest.TarEntry{Name: "package/node_modules/left-pad/index.js", Body: "export default 1"},
		plugintest.TarEntry{Name: "package/node_modules/pad-core/package.json", Body: `{"name":"pad-core","version":"1.0.0"}`},
		plugintest.TarEntry{Name: "package/node_modules/@deepseek-ai/dsh-agent/package.json", Body: `{"name":"@deepseek-ai/dsh-agent","version":"1.0.0"}`},
	)
	tgz := plugintest.Tarball(t, t.TempDir(), "tool.tgz", ents)
	res, err := s.Install(tgz)
	if err != nil {
		t.Fatal(err)
	}
	if res.ID != "@me/tool" || res.Files != 6 {
		t.Fatalf("%+v", res)
	}
	rv, err := s.Review("@me/tool")
	if err != nil {
		t.Fatal(err)
	}
	want := []Peer{
		{Name: "@deepseek-ai/cordis", Range: "4", Provided: true},
		{Name: "@deepseek-ai/dsh-commands", Range: "1", ProvidedSubpaths: []string{"@deepseek-ai/dsh-commands/brand"}},
		{Name: "@deepseek-ai/dsh-session", Range: "1"},
	}
	if fmt.Sprint(rv.Peers) != fmt.Sprint(want) {
		t.Fatalf("peers %v, want %v", rv.Peers, want)
	}
	if len(rv.Entries) != 1 || fmt.Sprint(rv.Entries[0].Injects) != "[commands tools]" || rv.Entries[0].Display != EntryDisplay {
		t.Fatalf("entries %+v", rv.Entries)
	}
	if len(rv.Notes) != 1 || !strings.Contains(rv.Notes[0], "depends on @deepseek-ai/dsh-agent, which the cwx host refuses to load") {
		t.Fatalf("notes %v", rv.Notes)
	}
	if rv.Warning != RunsJavaScript || rv.Token != ReviewToken("@me/tool", res.Closure, s.tokenPolicy()) || rv.InstallScripts {
		t.Fatalf("review %+v", rv)
	}
}

func TestInstallRefusals(t *testing.T) {
	pkg := func(extra ...plugintest.TarEntry) []plugintest.TarEntry {
		return append(npmPackage("refused", ""), extra...)
	}
	many := npmPackage("many", "")
	for i := 0; i < MaxFiles; i++ {
		many = append(many, plugintest.TarEntry{Name: fmt.Sprintf("package/f/%05d", i)})
	}
	tests := []struct {
		name    string
		entries []plugintest.TarEntry
		want    string
	}{
		{"absolute entry", pkg(plugintest.TarEntry{Name: "/etc/evil", Body: "x"}), "absolute path"},
		{"dotdot entry", pkg(plugintest.TarEntry{Name: "package/../../evil", Body: "x"}), `contains ".."`},
		{"char device", pkg(plugintest.TarEntry{Name: "package/dev", Type: tar.TypeChar}), "device file"},
		{"block device", pkg(plugintest.TarEntry{Name: "package/blk", Type: tar.TypeBlock}), "device file"},
		{"fifo", pkg(plugintest.TarEntry{Name: "package/fifo", Type: tar.TypeFifo}), "device file or pipe"},
		{"symlink absolute", pkg(plugintest.TarEntry{Name: "package/l", Type: tar.TypeSymlink, Linkname: "/etc/passwd"}), "absolute path"},
		{"symlink leaving", pkg(plugintest.TarEntry{Name: "package/sub/l", Type: tar.TypeSymlink, Linkname: "../../outside"}), "leaves the package"},
		{"symlink dot chain", pkg(plugintest.TarEntry{Name: "package/a", Type: tar.TypeSymlink, Linkname: "b/../.."}), "leaves the package"},
		{"hard link", pkg(plugintest.TarEntry{Name: "package/h", Type: tar.TypeLink, Linkname: "package/index.js"}), "hard link"},
		{"duplicate entry", pkg(plugintest.TarEntry{Name: "package/index.js", Body: "again"}), "appears twice"},
		{"over 256 MiB", pkg(plugintest.TarEntry{Name: "package/big.bin", Size: MaxBytes + 1}), "more than 268435456 bytes"},
		{"over 10000 files", many, "more than 10000 files"},
		{"preinstall", npmPackage("s1", `,"scripts":{"preinstall":"x"}`), "install scripts (preinstall)"},
		{"install", npmPackage("s2", `,"scripts":{"install":"x"}`), "install scripts (install)"},
		{"postinstall", npmPackage("s3", `,"scripts":{"postinstall":"x"}`), "install scripts (postinstall)"},
		{"prepare", npmPackage("s4", `,"scripts":{"prepare":"x","test":"y"}`), "install scripts (prepare)"},
		{"missing deps", npmPackage("deps", `,"dependencies":{"zod":"4","@deepseek-ai/schemastery":"3","left-pad":"1"}`), "provided by cwx: left-pad, zod"},
		{"missing nested dep", append(npmPackage("nested", `,"dependencies":{"a":"1"}`),
			plugintest.TarEntry{Name: "package/node_modules/a/package.json", Body: `{"name":"a","dependencies":{"b":"1"}}`}), "b (needed by a)"},
		{"manifest error", []plugintest.TarEntry{{Name: "package/package.json", Body: `{"name":"x"}`}}, "field version: is required"},
		{"host id", []plugintest.TarEntry{{Name: "plugin.json", Body: `{"name":"host","version":"1","native":"a.mjs"}`}, {Name: "a.mjs"}}, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			home := t.TempDir()
			s := newStore(t, home, nil)
			tgz := plugintest.Tarball(t, t.TempDir(), "p.tgz", tc.entries)
			res, err := s.Install(tgz)
			if tc.want == "" { // a control case: must install
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil {
				t.Fatalf("installed: %+v", res)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %q lacks %q", err, tc.want)
			}
			if !errors.Is(err, ErrRefused) && !errors.Is(err, ErrManifest) {
				t.Fatalf("error %v is neither a refusal nor a manifest error", err)
			}
			if !strings.HasPrefix(err.Error(), tgz) {
				t.Fatalf("error %q does not name the tarball", err)
			}
			if st, _ := s.State(); len(st.Plugins) != 0 {
				t.Fatal("a refused package was recorded")
			}
			if left, _ := os.ReadDir(filepath.Join(home, "plugins", ".tmp")); len(left) != 0 {
				t.Fatalf("refusal left temporary files: %v", left)
			}
		})
	}
}

func TestInstallFolderRefusals(t *testing.T) {
	base := map[string]string{"plugin.json": `{"name":"f","version":"1","native":"a.mjs"}`, "a.mjs": entryJS}
	tests := []struct {
		name  string
		setup func(t *testing.T, dir string)
		lim   Limits
		want  string
	}{
		{"symlink leaving", func(t *testing.T, dir string) { must(t, os.Symlink("../secret", filepath.Join(dir, "l"))) }, Limits{}, "leaves the package"},
		{"symlink absolute", func(t *testing.T, dir string) { must(t, os.Symlink("/etc/passwd", filepath.Join(dir, "l"))) }, Limits{}, "absolute path"},
		{"symlink chain", func(t *testing.T, dir string) {
			outside := t.TempDir()
			must(t, os.Symlink(outside, filepath.Join(dir, "..", "out")))
			must(t, os.Symlink("x/..", filepath.Join(dir, "y")))
			must(t, os.Mkdir(filepath.Join(dir, "x"), 0o755))
			must(t, os.Symlink("../../out", filepath.Join(dir, "x", "z")))
		}, Limits{}, "leaves the package"},
		{"fifo", func(t *testing.T, dir string) { must(t, syscall.Mkfifo(filepath.Join(dir, "pipe"), 0o600)) }, Limits{}, "device file, pipe or socket"},
		{"too many files", func(t *testing.T, dir string) {
			for i := 0; i < 4; i++ {
				must(t, os.WriteFile(filepath.Join(dir, fmt.Sprint(i)), nil, 0o644))
			}
		}, Limits{Files: 5, Bytes: MaxBytes}, "more than 5 files"},
		{"too many bytes", func(t *testing.T, dir string) {
			must(t, os.WriteFile(filepath.Join(dir, "big"), make([]byte, 2048), 0o644))
		}, Limits{Files: MaxFiles, Bytes: 1024}, "more than 1024 bytes"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "pkg")
			plugintest.WriteTree(t, dir, base)
			tc.setup(t, dir)
			s := newStore(t, t.TempDir(), func(o *Options) { o.Limits = tc.lim })
			_, err := s.Install(dir)
			if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want a refusal with %q", err, tc.want)
			}
		})
	}
}

func TestInstallNotAPackage(t *testing.T) {
	f := filepath.Join(t.TempDir(), "notes.txt")
	must(t, os.WriteFile(f, []byte("hello"), 0o644))
	_, err := newStore(t, t.TempDir(), nil).Install(f)
	if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), "neither a folder nor") {
		t.Fatalf("got %v", err)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
