package plugins

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/cwx-dev/cwx/core/plugins/plugintest"
)

// TestVerifyClosureCache: a folder whose files keep their stamps is hashed once; a change
// of content that keeps size and modification time, a new file, a changed symlink and a
// file changed just before the hash are all hashed again, and a changed one fails closed.
func TestVerifyClosureCache(t *testing.T) {
	later := func() time.Time { return time.Now().Add(time.Minute) } // every file is well before a hash
	type step struct {
		name   string
		change func(t *testing.T, dir string) (undo func())
		fails  bool
	}
	rewrite := func(rel string) func(t *testing.T, dir string) func() {
		return func(t *testing.T, dir string) func() {
			p := filepath.Join(dir, filepath.FromSlash(rel))
			fi, err := os.Stat(p)
			must(t, err)
			orig, err := os.ReadFile(p)
			must(t, err)
			must(t, os.Chmod(filepath.Dir(p), 0o755))
			must(t, os.Chmod(p, 0o644))
			changed := append([]byte(nil), orig...)
			changed[0] ^= 1
			must(t, os.WriteFile(p, changed, 0o644))
			must(t, os.Chtimes(p, fi.ModTime(), fi.ModTime())) // same size, same mtime
			return func() { must(t, os.WriteFile(p, orig, 0o644)) }
		}
	}
	steps := []step{
		{"unchanged", func(*testing.T, string) func() { return func() {} }, false},
		{"non-entry module rewritten in place", rewrite("more/b.js"), true},
		{"asset rewritten in place", rewrite("assets/readme.txt"), true},
		{"file added", func(t *testing.T, dir string) func() {
			p := filepath.Join(dir, "more", "new.js")
			must(t, os.Chmod(filepath.Dir(p), 0o755))
			must(t, os.WriteFile(p, []byte("export {}\n"), 0o644))
			return func() { must(t, os.Remove(p)) }
		}, true},
		{"symlink retargeted", func(t *testing.T, dir string) func() {
			p := filepath.Join(dir, "link.txt")
			must(t, os.Chmod(dir, 0o755))
			must(t, os.Remove(p))
			must(t, os.Symlink("index.mjs", p))
			return func() { must(t, os.Remove(p)); must(t, os.Symlink("assets/readme.txt", p)) }
		}, true},
	}
	s := newStore(t, t.TempDir(), func(o *Options) { o.Now = later })
	res := installHello(t, s)
	trustEnable(t, s, "hello")
	r, err := s.Get("hello")
	must(t, err)
	must(t, s.VerifyClosure(r))
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			before := s.verified.hashes.Load()
			undo := st.change(t, res.StageDir)
			err := s.VerifyClosure(r)
			hashed := s.verified.hashes.Load() - before
			switch {
			case st.fails && !errors.Is(err, ErrContentChanged):
				t.Fatalf("changed folder verified: %v (hashes %d)", err, hashed)
			case !st.fails && err != nil:
				t.Fatalf("unchanged folder: %v", err)
			case !st.fails && hashed != 0:
				t.Fatalf("unchanged folder hashed %d times, want 0 (a cache hit)", hashed)
			}
			undo()
			must(t, s.VerifyClosure(r)) // restored: hashed again and valid
			must(t, s.VerifyClosure(r)) // and now a hit
			if after := s.verified.hashes.Load() - before; st.fails && after != 2 {
				t.Fatalf("hashes after change and restore = %d, want 2", after)
			}
		})
	}
}

// TestVerifyClosureRacy: files changed within racyWindow of the hash (here: the store's
// clock is before every file's times) are never answered from the cache.
func TestVerifyClosureRacy(t *testing.T) {
	s := newStore(t, t.TempDir(), nil) // fixedNow lies before the files' real times
	installHello(t, s)
	r, err := s.Get("hello")
	must(t, err)
	for i := 1; i <= 3; i++ {
		must(t, s.VerifyClosure(r))
		if got := s.verified.hashes.Load(); got != int64(i) {
			t.Fatalf("verification %d: %d hashes, want %d", i, got, i)
		}
	}
}

// BenchmarkVerifyClosure measures the check before an activation on a package of 1,000
// files of 4 KiB: answered from the cache (every stamp unchanged) and hashed in full (the
// store's clock makes every file racy).
func BenchmarkVerifyClosure(b *testing.B) {
	tree := map[string]string{"plugin.json": `{"name":"big","version":"1","native":"index.mjs"}`, "index.mjs": entryJS}
	body := string(make([]byte, 4096))
	for i := range 1000 {
		tree[fmt.Sprintf("lib/m%04d.js", i)] = body
	}
	for _, bc := range []struct {
		name string
		now  func() time.Time
	}{
		{"cached", func() time.Time { return time.Now().Add(time.Minute) }},
		{"full", func() time.Time { return time.Now().Add(-time.Hour) }},
	} {
		b.Run(bc.name, func(b *testing.B) {
			src := filepath.Join(b.TempDir(), "big")
			plugintest.WriteTree(b, src, tree)
			s, err := Open(Options{Home: b.TempDir(), Now: bc.now})
			if err != nil {
				b.Fatal(err)
			}
			if _, err := s.Install(src); err != nil {
				b.Fatal(err)
			}
			r, err := s.Get("big")
			if err != nil {
				b.Fatal(err)
			}
			if err := s.VerifyClosure(r); err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			for b.Loop() {
				if err := s.VerifyClosure(r); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
