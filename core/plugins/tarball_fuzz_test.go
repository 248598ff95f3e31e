package plugins

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// fuzzLimits keep one fuzz execution small: the limits themselves are under test too.
var fuzzLimits = Limits{Files: 64, Bytes: 1 << 20}

// fuzzEntry is one seed entry of an uncompressed tar stream.
type fuzzEntry struct {
	name string
	typ  byte
	body string
	link string
}

// rawTar is the uncompressed tar stream of entries; the fuzzer mutates tar headers, not
// deflate blocks (a mutated deflate stream is refused by gzip and reaches nothing).
func rawTar(t testing.TB, entries ...fuzzEntry) []byte {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, e := range entries {
		typ := e.typ
		if typ == 0 {
			typ = tar.TypeReg
		}
		hdr := &tar.Header{Name: e.name, Typeflag: typ, Mode: 0o644, Linkname: e.link, ModTime: time.Unix(0, 0)}
		if typ == tar.TypeReg {
			hdr.Size = int64(len(e.body))
		}
		if err := tw.WriteHeader(hdr); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write([]byte(e.body)); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// tarballSeeds are a valid npm package and the attacks the extraction tests name: "..",
// absolute names, hard links, devices, a repeated name, a symlink that leaves the package and
// a file written through a symlink planted by an earlier entry.
func tarballSeeds(t testing.TB) [][]byte {
	pkg := []fuzzEntry{
		{name: "package/package.json", body: `{"name":"fz","version":"1.0.0","type":"module","main":"index.js"}`},
		{name: "package/index.js", body: entryJS},
	}
	with := func(more ...fuzzEntry) []fuzzEntry { return append(slices.Clone(pkg), more...) }
	return [][]byte{
		rawTar(t, pkg...),
		rawTar(t, with(fuzzEntry{name: "package/lib/", typ: tar.TypeDir}, fuzzEntry{name: "package/lib/a.js", body: "export default 1"})...),
		rawTar(t, with(fuzzEntry{name: "package/l", typ: tar.TypeSymlink, link: "index.js"})...),
		rawTar(t, with(fuzzEntry{name: "package/../evil", body: "x"})...),
		rawTar(t, with(fuzzEntry{name: "/abs/evil", body: "x"})...),
		rawTar(t, with(fuzzEntry{name: "package/h", typ: tar.TypeLink, link: "package/index.js"})...),
		rawTar(t, with(fuzzEntry{name: "package/dev", typ: tar.TypeChar})...),
		rawTar(t, with(fuzzEntry{name: "package/index.js", body: "again"})...),
		rawTar(t, with(fuzzEntry{name: "package/up", typ: tar.TypeSymlink, link: "../../../../.."})...),
		rawTar(t, with(fuzzEntry{name: "package/d/y", typ: tar.TypeSymlink, link: ".."},
			fuzzEntry{name: "package/d/x", typ: tar.TypeSymlink, link: "y/../../../../.."},
			fuzzEntry{name: "package/d/x/planted", body: "owned"})...),
		rawTar(t, fuzzEntry{name: "package/package.json", body: `{"name":"fz","version":"1.0.0","main":"missing.js"}`}),
	}
}

// FuzzInstallTarball feeds arbitrary tar streams (gzip-compressed in memory) to the part of
// Store.Install that judges the bytes: extraction, the tree scan and the manifest checks
// (TestTarballSeeds runs the seeds through the whole Install). Whatever the bytes: no panic;
// nothing is created outside the unpack folder's home; a refused extraction is a
// *RefusalError; an accepted tree has no symlink resolving outside it, no device and stays
// within the limits.
func FuzzInstallTarball(f *testing.F) {
	for _, s := range tarballSeeds(f) {
		f.Add(s)
	}
	s, err := Open(Options{Home: f.TempDir(), Limits: fuzzLimits, Provided: []string{"@deepseek-ai/cordis"}})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		base := t.TempDir()
		home := filepath.Join(base, "home")
		unpack := filepath.Join(home, "plugins", ".tmp", "install-1", "unpack")
		if err := os.MkdirAll(unpack, 0o700); err != nil {
			t.Fatal(err)
		}
		tgz := filepath.Join(base, "src", "p.tgz")
		writeGzip(t, tgz, raw)
		root, err := extractTarball(tgz, tgz, unpack, fuzzLimits)
		checkNothingOutside(t, base, home, tgz)
		if err != nil {
			var re *RefusalError
			if !errors.As(err, &re) || !errors.Is(err, ErrRefused) {
				t.Fatalf("extraction failed with %v (%T), want a *RefusalError", err, err)
			}
			return
		}
		files, err := scanTree(tgz, root, fuzzLimits)
		if err != nil {
			return
		}
		checkTree(t, root, len(files))
		_, _ = s.checkPackage(tgz, root)
	})
}

// writeGzip writes raw gzip-compressed to p, creating its folder.
func writeGzip(t testing.TB, p string, raw []byte) {
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	if _, err := zw.Write(raw); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, gz.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
}

// checkNothingOutside fails when anything but home and the tarball exists under base.
func checkNothingOutside(t *testing.T, base, home, tgz string) {
	t.Helper()
	err := filepath.WalkDir(base, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		switch {
		case p == base || p == filepath.Dir(tgz) || p == tgz:
			return nil
		case p == home:
			return fs.SkipDir
		}
		t.Errorf("%s exists outside the cwx home after the install", p)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// checkInstalledTree checks an installed stage folder (see checkTree).
func checkInstalledTree(t *testing.T, res *InstallResult) {
	t.Helper()
	if res.Bytes > fuzzLimits.Bytes {
		t.Fatalf("installed %d bytes over the limits %+v", res.Bytes, fuzzLimits)
	}
	checkTree(t, res.StageDir, res.Files)
}

// checkTree walks a tree of files (regular files and symlinks): every symlink leads inside
// root (kernelPath), nothing is a device, pipe or socket, and the files stay within fuzzLimits.
func checkTree(t *testing.T, root string, files int) {
	t.Helper()
	if files > fuzzLimits.Files {
		t.Fatalf("%d files over the limits %+v", files, fuzzLimits)
	}
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		t.Fatal(err)
	}
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type()&fs.ModeSymlink != 0 {
			if to := kernelPath(p, 0); !under(realRoot, to) {
				t.Errorf("symlink %s leads to %s, outside %s", p, to, root)
			}
		}
		if d.Type()&(fs.ModeDevice|fs.ModeNamedPipe|fs.ModeSocket) != 0 {
			t.Errorf("%s is a device, pipe or socket", p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestTarballSeeds pins what each seed of FuzzInstallTarball reaches: the first three
// install; every attack, and a manifest whose main is missing, is refused.
func TestTarballSeeds(t *testing.T) {
	want := []bool{true, true, true, false, false, false, false, false, false, false, false}
	seeds := tarballSeeds(t)
	if len(seeds) != len(want) {
		t.Fatalf("%d seeds, %d expectations", len(seeds), len(want))
	}
	for i, raw := range seeds {
		tgz := filepath.Join(t.TempDir(), "p.tgz")
		writeGzip(t, tgz, raw)
		res, err := newStore(t, t.TempDir(), func(o *Options) { o.Limits = fuzzLimits }).Install(tgz)
		if (err == nil) != want[i] {
			t.Errorf("seed %d: installed=%v (err %v), want installed=%v", i, err == nil, err, want[i])
		}
		if err == nil {
			checkInstalledTree(t, res)
		}
	}
}

// kernelPath is where opening p (absolute) leads, resolved one component at a time as the
// kernel does ("x/.." after a symlink x leaves the link's target, not x's folder). At the
// first missing component it stops: that is where a create through p would land (a dangling
// link inside the package is harmless). A loop of links stays where it is.
func kernelPath(p string, hops int) string {
	cur := "/"
	for _, c := range strings.Split(p, "/") {
		switch c {
		case "", ".":
			continue
		case "..":
			cur = filepath.Dir(cur)
			continue
		}
		next := filepath.Join(cur, c)
		fi, err := os.Lstat(next)
		if err != nil {
			return next
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			cur = next
			continue
		}
		target, err := os.Readlink(next)
		if err != nil || hops > 40 {
			return next
		}
		if !filepath.IsAbs(target) {
			target = cur + "/" + target // not Join: Join would clean "x/.." lexically
		}
		cur = kernelPath(target, hops+1)
	}
	return cur
}

// under reports whether p is root or inside it (both cleaned, absolute).
func under(root, p string) bool {
	r, err := filepath.Rel(root, p)
	return err == nil && r != ".." && !strings.HasPrefix(r, "../")
}

// TestKernelPath pins kernelPath on the cases the fuzz check depends on.
func TestKernelPath(t *testing.T) {
	root := t.TempDir()
	real, err := filepath.EvalSymlinks(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{"a/b/c"} {
		if err := os.MkdirAll(filepath.Join(real, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	links := map[string]string{
		"dangling": "missing.js",          // inside, harmless
		"deep":     "a/b/c",               // a folder inside
		"chain":    "deep/../../../../up", // through deep: c/../../.. is the root's parent's parent
		"up":       "../outside",
		"loop":     "loop",
	}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(real, name)); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		link   string
		inside bool
	}{{"dangling", true}, {"deep", true}, {"chain", false}, {"up", false}, {"loop", true}}
	for _, tc := range tests {
		got := kernelPath(filepath.Join(real, tc.link), 0)
		if under(real, got) != tc.inside {
			t.Errorf("%s → %s: inside=%v, want %v", tc.link, got, !tc.inside, tc.inside)
		}
	}
}
