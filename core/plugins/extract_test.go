package plugins

import (
	"archive/tar"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cwx-dev/cwx/core/plugins/plugintest"
)

// chainedEscape is the chained-symlink attack: package/d0/…/d24/y points 25 levels up (to
// package/ itself, so it looks local), and x points to y and then 25 levels further up (to
// the file system root, although "y/.." reads as local too). Anything under x/<outside>
// names the folder outside.
func chainedEscape(outside string, last plugintest.TarEntry) []plugintest.TarEntry {
	var dirs []string
	for i := 0; i < 25; i++ {
		dirs = append(dirs, fmt.Sprintf("d%d", i))
	}
	deep := "package/" + strings.Join(dirs, "/")
	up := strings.Repeat("../", 25)
	entries := append(npmPackage("chained", ""),
		plugintest.TarEntry{Name: deep + "/y", Type: tar.TypeSymlink, Linkname: strings.TrimSuffix(up, "/")},
		plugintest.TarEntry{Name: deep + "/x", Type: tar.TypeSymlink, Linkname: "y/" + strings.TrimSuffix(up, "/")},
	)
	last.Name = deep + "/x" + outside + "/" + last.Name
	return append(entries, last)
}

// TestExtractionStaysInside installs the chained-symlink attack ending in a folder, a file
// and a symlink entry under the escaping link: each is refused, nothing exists outside the
// staging folder afterwards, and the staging folder is gone.
func TestExtractionStaysInside(t *testing.T) {
	tests := []struct {
		name string
		last plugintest.TarEntry
	}{
		{"folder entry", plugintest.TarEntry{Name: "planted", Type: tar.TypeDir}},
		{"file entry", plugintest.TarEntry{Name: "planted/evil.sh", Body: "echo owned\n"}},
		{"symlink entry", plugintest.TarEntry{Name: "planted/l", Type: tar.TypeSymlink, Linkname: "z"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			outside := t.TempDir()
			home := t.TempDir()
			s := newStore(t, home, nil)
			tgz := plugintest.Tarball(t, t.TempDir(), "p.tgz", chainedEscape(outside, tc.last))
			res, err := s.Install(tgz)
			if err == nil {
				t.Fatalf("installed: %+v", res)
			}
			if _, err := os.Lstat(filepath.Join(outside, "planted")); !errors.Is(err, os.ErrNotExist) {
				t.Fatalf("%s/planted exists after the refusal (lstat: %v)", outside, err)
			}
			if left, _ := os.ReadDir(filepath.Join(home, "plugins", ".tmp")); len(left) != 0 {
				t.Fatalf("the staging folder is left behind: %v", left)
			}
			if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), "symlink that leaves the package") {
				t.Fatalf("got %v, want a refusal for the symlink that leaves the package", err)
			}
		})
	}
}

// TestFoldersCountAsEntries refuses a tarball of many empty folders by the entry limit.
func TestFoldersCountAsEntries(t *testing.T) {
	lim := Limits{Files: 50, Bytes: MaxBytes}
	entries := npmPackage("folders", "")
	for i := 0; i < 2*lim.Files; i++ {
		entries = append(entries, plugintest.TarEntry{Name: fmt.Sprintf("package/e/%04d/", i), Type: tar.TypeDir})
	}
	home := t.TempDir()
	s := newStore(t, home, func(o *Options) { o.Limits = lim })
	res, err := s.Install(plugintest.Tarball(t, t.TempDir(), "p.tgz", entries))
	if err == nil {
		t.Fatalf("installed %d empty folders under a limit of %d entries: %+v", 2*lim.Files, lim.Files, res)
	}
	if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), "more than 50 files (folders and symlinks included)") {
		t.Fatalf("got %v, want the entry-limit refusal", err)
	}
	if left, _ := os.ReadDir(filepath.Join(home, "plugins", ".tmp")); len(left) != 0 {
		t.Fatalf("the staging folder is left behind: %v", left)
	}
}
