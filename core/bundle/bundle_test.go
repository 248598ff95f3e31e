package bundle

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
)

var testBundle = Bundle{Name: "cwx-extension-host.mjs", Bytes: []byte("export default 1;\n"), Licenses: []byte("MIT\n")}

func TestMaterializeWritesReadOnlyFiles(t *testing.T) {
	home := t.TempDir()
	m, err := Materialize(home, testBundle)
	if err != nil {
		t.Fatal(err)
	}
	if m.SHA256 != testBundle.SHA256() || len(m.SHA256) != 64 {
		t.Errorf("SHA256 = %q", m.SHA256)
	}
	if want := filepath.Join(home, "extension-host", m.SHA256); m.Dir != want || m.Path != filepath.Join(want, testBundle.Name) {
		t.Errorf("Dir, Path = %q, %q", m.Dir, m.Path)
	}
	checkFile(t, m.Path, testBundle.Bytes)
	checkFile(t, filepath.Join(m.Dir, LicensesName), testBundle.Licenses)
	checkNoStaging(t, m.Dir)
}

func checkFile(t *testing.T, path string, want []byte) {
	t.Helper()
	fi, err := os.Lstat(path)
	if err != nil {
		t.Fatal(err)
	}
	if !fi.Mode().IsRegular() || fi.Mode().Perm() != 0o444 {
		t.Errorf("%s: mode %v, want a regular 0444 file", path, fi.Mode())
	}
	got, err := os.ReadFile(path)
	if err != nil || string(got) != string(want) {
		t.Errorf("%s holds %q (%v), want %q", path, got, err, want)
	}
}

func checkNoStaging(t *testing.T, dir string) {
	t.Helper()
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".staging-") {
			t.Errorf("staging file left behind: %s", e.Name())
		}
	}
}

func inode(t *testing.T, path string) uint64 {
	t.Helper()
	fi, err := os.Lstat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Sys().(*syscall.Stat_t).Ino
}

func TestMaterializeIsIdempotent(t *testing.T) {
	home := t.TempDir()
	m, err := Materialize(home, testBundle)
	if err != nil {
		t.Fatal(err)
	}
	before := inode(t, m.Path)
	m2, err := Materialize(home, testBundle)
	if err != nil {
		t.Fatal(err)
	}
	if m2 != m || inode(t, m.Path) != before {
		t.Errorf("second call rewrote an intact bundle: %+v", m2)
	}
}

// TestMaterializeRepairs covers what a second call finds changed at a file's name.
func TestMaterializeRepairs(t *testing.T) {
	tests := []struct {
		name   string
		file   string // which file is tampered with
		tamper func(t *testing.T, path, outside string)
	}{
		{"changed bytes", testBundle.Name, func(t *testing.T, path, _ string) {
			must(t, os.Chmod(path, 0o600))
			must(t, os.WriteFile(path, []byte("export default 2;\n"), 0o600))
			must(t, os.Chmod(path, 0o444))
		}},
		{"same bytes, writable mode", testBundle.Name, func(t *testing.T, path, _ string) {
			must(t, os.Chmod(path, 0o644))
		}},
		{"symlink at the bundle's name", testBundle.Name, func(t *testing.T, path, outside string) {
			must(t, os.Remove(path))
			must(t, os.Symlink(outside, path))
		}},
		{"symlink at the licenses' name", LicensesName, func(t *testing.T, path, outside string) {
			must(t, os.Remove(path))
			must(t, os.Symlink(outside, path))
		}},
		{"fifo at the bundle's name", testBundle.Name, func(t *testing.T, path, _ string) {
			must(t, os.Remove(path))
			must(t, syscall.Mkfifo(path, 0o600))
		}},
		{"file removed", LicensesName, func(t *testing.T, path, _ string) {
			must(t, os.Remove(path))
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			home := t.TempDir()
			outside := filepath.Join(t.TempDir(), "victim")
			must(t, os.WriteFile(outside, []byte("do not touch"), 0o600))
			m, err := Materialize(home, testBundle)
			if err != nil {
				t.Fatal(err)
			}
			tc.tamper(t, filepath.Join(m.Dir, tc.file), outside)
			if _, err := Materialize(home, testBundle); err != nil {
				t.Fatal(err)
			}
			checkFile(t, m.Path, testBundle.Bytes)
			checkFile(t, filepath.Join(m.Dir, LicensesName), testBundle.Licenses)
			if b, _ := os.ReadFile(outside); string(b) != "do not touch" {
				t.Errorf("wrote through a symlink: the outside file holds %q", b)
			}
			checkNoStaging(t, m.Dir)
		})
	}
}

func TestMaterializeReplacesASymlinkedDirectory(t *testing.T) {
	home, elsewhere := t.TempDir(), t.TempDir()
	must(t, os.MkdirAll(filepath.Join(home, "extension-host"), 0o700))
	dir := filepath.Join(home, "extension-host", testBundle.SHA256())
	must(t, os.Symlink(elsewhere, dir))
	m, err := Materialize(home, testBundle)
	if err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(m.Dir); err != nil || !fi.IsDir() {
		t.Errorf("%s is not a real directory: %v", m.Dir, err)
	}
	if entries, _ := os.ReadDir(elsewhere); len(entries) != 0 {
		t.Errorf("wrote into the symlink's target: %v", entries)
	}
}

func TestMaterializeConcurrently(t *testing.T) {
	home := t.TempDir()
	var wg sync.WaitGroup
	errs := make([]error, 8)
	for i := range errs {
		wg.Go(func() { _, errs[i] = Materialize(home, testBundle) })
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	checkFile(t, filepath.Join(home, "extension-host", testBundle.SHA256(), testBundle.Name), testBundle.Bytes)
}

func TestMaterializeRefusesBadInput(t *testing.T) {
	for _, b := range []Bundle{
		{Name: "", Bytes: []byte("x")},
		{Name: "../x.mjs", Bytes: []byte("x")},
		{Name: "a/b.mjs", Bytes: []byte("x")},
		{Name: LicensesName, Bytes: []byte("x")},
		{Name: ".staging-1", Bytes: []byte("x")},
		{Name: "host.mjs"},
	} {
		if _, err := Materialize(t.TempDir(), b); err == nil {
			t.Errorf("Materialize(%q, %d bytes) succeeded", b.Name, len(b.Bytes))
		}
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
