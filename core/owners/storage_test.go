package owners

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCheckStorage(t *testing.T) {
	for _, c := range []struct {
		name  string
		setup func(t *testing.T, dataDir string)
		want  string // "" for admitted
	}{
		{"missing folder", func(*testing.T, string) {}, ""},
		{"at the quota", func(t *testing.T, d string) {
			writeSized(t, filepath.Join(d, "storage", "a.json"), MaxStorageBytes)
		}, ""},
		{"an unfinished write is not counted", func(t *testing.T, d string) {
			writeSized(t, filepath.Join(d, "storage", "a.json"), MaxStorageBytes)
			writeSized(t, filepath.Join(d, "storage", ".tmp-a-0123"), 10)
		}, ""},
		{"over the quota", func(t *testing.T, d string) {
			writeSized(t, filepath.Join(d, "storage", "a.json"), MaxStorageBytes-10)
			writeSized(t, filepath.Join(d, "storage", "b.json"), 11)
		}, "holds 1048577 bytes; the limit is 1048576"},
		{"a symlinked folder", func(t *testing.T, d string) {
			if err := os.Mkdir(filepath.Join(d, "elsewhere"), 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(filepath.Join(d, "elsewhere"), filepath.Join(d, "storage")); err != nil {
				t.Fatal(err)
			}
		}, "storage is a symlink; cwx never follows a symlink"},
		{"a symlinked data folder", func(t *testing.T, d string) {
			out := t.TempDir()
			writeSized(t, filepath.Join(out, "storage", "a.json"), MaxStorageBytes+1)
			if err := os.Rename(d, d+".gone"); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(out, d); err != nil {
				t.Fatal(err)
			}
		}, "p is a symlink; cwx never follows a symlink"},
	} {
		t.Run(c.name, func(t *testing.T) {
			base := t.TempDir()
			d := filepath.Join(base, "p")
			if err := os.Mkdir(d, 0o700); err != nil {
				t.Fatal(err)
			}
			c.setup(t, d)
			err := checkStorage(base, "p")
			if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
				t.Fatalf("checkStorage: %v, want %q", err, c.want)
			}
		})
	}
}

func writeSized(t *testing.T, path string, n int) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, make([]byte, n), 0o600); err != nil {
		t.Fatal(err)
	}
}
