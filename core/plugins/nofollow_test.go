package plugins

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cwx-dev/cwx/core/errdefs"
)

// The attack: a sandboxed plugin may write extension-host/data, so it replaces one folder of
// the path to a data directory with a symlink to a place outside. The next EnsureDataDir
// must refuse, name the link, and create nothing at the target.
func TestEnsureDataDirRefusesASymlinkOnThePath(t *testing.T) {
	const id = "@acme/victim"
	cases := []struct {
		name string
		link func(l Layout) string // the path replaced by a link
	}{
		{"data/plugins", func(l Layout) string { return filepath.Join(l.DataRoot(), "plugins") }},
		{"the plugin's own folder", func(l Layout) string { return l.DataDir(id) }},
		{"the data folder itself", func(l Layout) string { return l.DataRoot() }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			l := Layout{Home: t.TempDir()}
			if _, err := l.EnsureDataDir("@acme/other"); err != nil {
				t.Fatal(err)
			}
			outside := t.TempDir()
			at := c.link(l)
			if err := os.RemoveAll(at); err != nil {
				t.Fatal(err)
			}
			if err := os.MkdirAll(filepath.Dir(at), 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(outside, at); err != nil {
				t.Fatal(err)
			}
			_, err := l.EnsureDataDir(id)
			var se *SymlinkError
			if !errors.As(err, &se) || se.Path != at || !errors.Is(err, errdefs.ErrRefused) {
				t.Fatalf("EnsureDataDir through a link at %s: %v", at, err)
			}
			if !strings.Contains(err.Error(), at+" is a symlink") || !strings.Contains(err.Error(), "remove it") {
				t.Fatalf("the refusal does not name the link and what to do: %v", err)
			}
			ents, err := os.ReadDir(outside)
			if err != nil {
				t.Fatal(err)
			}
			if len(ents) != 0 {
				t.Fatalf("EnsureDataDir created %v at the link's target %s", ents[0].Name(), outside)
			}
		})
	}
}

func TestEnsureDataDirRefusesAFileOnThePath(t *testing.T) {
	l := Layout{Home: t.TempDir()}
	if err := os.MkdirAll(l.DataRoot(), 0o700); err != nil {
		t.Fatal(err)
	}
	at := filepath.Join(l.DataRoot(), "plugins")
	if err := os.WriteFile(at, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := l.EnsureDataDir("hello")
	var se *SymlinkError
	if !errors.As(err, &se) || !se.NotDir || se.Path != at {
		t.Fatalf("EnsureDataDir through a file: %v", err)
	}
}

// A link to another folder inside the data folder is refused too: it would point one
// plugin's data directory at another's.
func TestEnsureDataDirRefusesALinkInsideTheDataFolder(t *testing.T) {
	l := Layout{Home: t.TempDir()}
	other, err := l.EnsureDataDir("other")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(other, l.DataDir("victim")); err != nil {
		t.Fatal(err)
	}
	if _, err := l.EnsureDataDir("victim"); !errors.Is(err, ErrSymlink) {
		t.Fatalf("EnsureDataDir through a link to another plugin's folder: %v", err)
	}
}

// remove --purge-data through a planted data/plugins link deletes nothing outside.
func TestPurgeRefusesASymlinkedDataFolder(t *testing.T) {
	s := newStore(t, t.TempDir(), nil)
	installHello(t, s)
	l := s.Layout()
	outside := t.TempDir()
	victim := filepath.Join(outside, DiskName("hello"))
	if err := os.MkdirAll(victim, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(victim, "precious"), []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(l.DataRoot(), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(l.DataRoot(), "plugins")); err != nil {
		t.Fatal(err)
	}
	if err := s.Remove("hello", true); !errors.Is(err, ErrSymlink) {
		t.Fatalf("purge through a link: %v", err)
	}
	if _, err := os.Stat(filepath.Join(victim, "precious")); err != nil {
		t.Fatalf("purge removed a file outside the data folder: %v", err)
	}
}

func TestPurgeRemovesTheDataDir(t *testing.T) {
	s := newStore(t, t.TempDir(), nil)
	installHello(t, s)
	dir, err := s.Layout().EnsureDataDir("hello")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "f"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := s.Remove("hello", true); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("data directory after purge: %v", err)
	}
}
