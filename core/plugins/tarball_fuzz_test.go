package plugins

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
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

// FuzzInstallTarball installs arbitrary tar streams (gzip-compressed in memory) through
// Store.Install. Whatever the bytes: no panic; nothing is created outside the cwx home; the
// staging folder is empty afterwards; a failure is a typed error; an installed package has
// no symlink resolving outside its stage folder and stays within the limits.
func FuzzInstallTarball(f *testing.F) {
	for _, s := range tarballSeeds(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		base := t.TempDir()
		home := filepath.Join(base, "home")
		src := filepath.Join(base, "src")
		if err := os.Mkdir(src, 0o700); err != nil {
			t.Fatal(err)
		}
		var gz bytes.Buffer
		zw := gzip.NewWriter(&gz)
		zw.Write(raw)
		zw.Close()
		tgz := filepath.Join(src, "p.tgz")
		if err := os.WriteFile(tgz, gz.Bytes(), 0o600); err != nil {
			t.Fatal(err)
		}
		s := newStore(t, home, func(o *Options) { o.Limits = fuzzLimits })
		res, err := s.Install(tgz)
		checkNothingOutside(t, base, home, tgz)
		if left, _ := os.ReadDir(s.layout.tmpDir()); len(left) != 0 {
			t.Fatalf("the staging folder is left behind: %v", left)
		}
		if err != nil {
			if strings.TrimSpace(err.Error()) == "" {
				t.Fatalf("an install failure with no message: %#v", err)
			}
			return
		}
		checkInstalledTree(t, res)
	})
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

// checkInstalledTree walks an installed stage folder: every symlink resolves inside it and
// the entries and bytes stay within fuzzLimits.
func checkInstalledTree(t *testing.T, res *InstallResult) {
	t.Helper()
	if res.Files > fuzzLimits.Files || res.Bytes > fuzzLimits.Bytes {
		t.Fatalf("installed %d files, %d bytes over the limits %+v", res.Files, res.Bytes, fuzzLimits)
	}
	err := filepath.WalkDir(res.StageDir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type()&fs.ModeSymlink != 0 && !resolvesInside(res.StageDir, p) {
			t.Errorf("installed symlink %s resolves outside %s", p, res.StageDir)
		}
		if d.Type()&(fs.ModeDevice|fs.ModeNamedPipe|fs.ModeSocket) != 0 {
			t.Errorf("installed %s is a device, pipe or socket", p)
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
		var gz bytes.Buffer
		zw := gzip.NewWriter(&gz)
		zw.Write(raw)
		zw.Close()
		tgz := filepath.Join(t.TempDir(), "p.tgz")
		if err := os.WriteFile(tgz, gz.Bytes(), 0o600); err != nil {
			t.Fatal(err)
		}
		res, err := newStore(t, t.TempDir(), func(o *Options) { o.Limits = fuzzLimits }).Install(tgz)
		if (err == nil) != want[i] {
			t.Errorf("seed %d: installed=%v (err %v), want installed=%v", i, err == nil, err, want[i])
		}
		if err == nil {
			checkInstalledTree(t, res)
		}
	}
}
