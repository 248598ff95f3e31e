package probecache

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"
)

// clock is an injected clock a test moves by hand.
type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

func newCache(t *testing.T) (*Cache, *clock, string) {
	t.Helper()
	home := t.TempDir()
	clk := &clock{t: time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)}
	return Open(home, Options{Now: clk.now, TTL: time.Hour}), clk, home
}

func TestGetPut(t *testing.T) {
	c, _, home := newCache(t)
	if _, ok := c.Get("k"); ok {
		t.Fatal("an empty cache found k")
	}
	c.Put("k", "v1")
	c.Put("other", "v2")
	if v, ok := c.Get("k"); !ok || v != "v1" {
		t.Fatalf("Get(k) = %q, %v; want v1", v, ok)
	}
	// Another process: a fresh Cache over the same home sees both.
	c2 := Open(home, Options{Now: c.now})
	if v, ok := c2.Get("other"); !ok || v != "v2" {
		t.Fatalf("a second Cache: Get(other) = %q, %v; want v2", v, ok)
	}
	fi, err := os.Stat(Path(home))
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("probes.json mode %v, want 0600", fi.Mode().Perm())
	}
	di, err := os.Stat(filepath.Dir(Path(home)))
	if err != nil {
		t.Fatal(err)
	}
	if di.Mode().Perm() != 0o700 {
		t.Errorf("cache folder mode %v, want 0700", di.Mode().Perm())
	}
	left, _ := filepath.Glob(filepath.Join(filepath.Dir(Path(home)), ".probes-*"))
	if len(left) != 0 {
		t.Errorf("temporary files left: %v", left)
	}
}

func TestNilCacheStoresNothing(t *testing.T) {
	var c *Cache
	c.Put("k", "v")
	if _, ok := c.Get("k"); ok {
		t.Fatal("a nil Cache found an entry")
	}
}

func TestExpiry(t *testing.T) {
	for _, tc := range []struct {
		name  string
		after time.Duration
		found bool
	}{
		{"just stored", 0, true},
		{"within the TTL", 59 * time.Minute, true},
		{"at the TTL", time.Hour, false},
		{"past the TTL", 25 * time.Hour, false},
		{"clock went back", -time.Minute, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, clk, _ := newCache(t)
			c.Put("k", "v")
			clk.t = clk.t.Add(tc.after)
			if _, ok := c.Get("k"); ok != tc.found {
				t.Errorf("Get after %s: found %v, want %v", tc.after, ok, tc.found)
			}
		})
	}
}

func TestExpiredEntriesDroppedOnPut(t *testing.T) {
	c, clk, home := newCache(t)
	c.Put("old", "v")
	clk.t = clk.t.Add(2 * time.Hour)
	c.Put("new", "v")
	b, err := os.ReadFile(Path(home))
	if err != nil {
		t.Fatal(err)
	}
	var f file
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatal(err)
	}
	if _, ok := f.Entries["old"]; ok || len(f.Entries) != 1 {
		t.Errorf("entries after a Put past the TTL: %v, want only new", f.Entries)
	}
}

func TestCorruptIgnoredAndRewritten(t *testing.T) {
	valid := `{"version":1,"entries":{"k":{"value":"v","at":"2026-12-01T12:00:00Z"}}}`
	for _, tc := range []struct {
		name, body string
	}{
		{"not JSON", "{{{"},
		{"truncated", valid[:len(valid)-5]},
		{"trailing data", valid + `{}`},
		{"unknown field", `{"version":1,"entries":{"k":{"value":"v","at":"2026-12-01T12:00:00Z"}},"trust":true}`},
		{"unknown entry field", `{"version":1,"entries":{"k":{"value":"v","at":"2026-12-01T12:00:00Z","pinned":true}}}`},
		{"other version", `{"version":2,"entries":{"k":{"value":"v","at":"2026-12-01T12:00:00Z"}}}`},
		{"no entries", `{"version":1}`},
		{"empty", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, _, home := newCache(t)
			if err := os.MkdirAll(filepath.Dir(Path(home)), 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(Path(home), []byte(tc.body), 0o600); err != nil {
				t.Fatal(err)
			}
			if _, ok := c.Get("k"); ok {
				t.Fatal("an entry of a corrupt file was used")
			}
			c.Put("fresh", "v")
			if v, ok := Open(home, Options{Now: c.now}).Get("fresh"); !ok || v != "v" {
				t.Fatalf("after a Put over the corrupt file: Get(fresh) = %q, %v", v, ok)
			}
		})
	}
	t.Run("valid control", func(t *testing.T) {
		c, _, home := newCache(t)
		_ = os.MkdirAll(filepath.Dir(Path(home)), 0o700)
		if err := os.WriteFile(Path(home), []byte(valid), 0o600); err != nil {
			t.Fatal(err)
		}
		if _, ok := c.Get("k"); !ok {
			t.Fatal("the valid file's entry was not found: the corrupt cases prove nothing")
		}
	})
	t.Run("a symlink", func(t *testing.T) {
		c, _, home := newCache(t)
		_ = os.MkdirAll(filepath.Dir(Path(home)), 0o700)
		elsewhere := filepath.Join(t.TempDir(), "planted.json")
		if err := os.WriteFile(elsewhere, []byte(valid), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(elsewhere, Path(home)); err != nil {
			t.Fatal(err)
		}
		if _, ok := c.Get("k"); ok {
			t.Fatal("an entry read through a symlink was used")
		}
	})
}

func TestIdentityChanges(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "bin")
	write := func(body string) {
		t.Helper()
		if err := os.WriteFile(bin, []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write("one")
	id := func() string {
		t.Helper()
		s, err := Identity(bin)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	first := id()
	if again := id(); again != first {
		t.Fatalf("identity of an unchanged file changed: %q then %q", first, again)
	}
	for _, tc := range []struct {
		name   string
		change func()
	}{
		{"touched", func() {
			later := time.Now().Add(time.Hour)
			if err := os.Chtimes(bin, later, later); err != nil {
				t.Fatal(err)
			}
		}},
		{"rewritten in place, same size", func() { write("two") }},
		{"replaced by rename", func() {
			tmp := filepath.Join(dir, "new")
			if err := os.WriteFile(tmp, []byte("two"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Rename(tmp, bin); err != nil {
				t.Fatal(err)
			}
		}},
		{"chmod (ctime)", func() {
			if err := os.Chmod(bin, 0o700); err != nil {
				t.Fatal(err)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := id()
			time.Sleep(10 * time.Millisecond) // a distinct change time on coarse clocks
			tc.change()
			if after := id(); after == before {
				t.Errorf("identity unchanged after the file was %s: %q", tc.name, after)
			}
		})
	}
	t.Run("through a symlink", func(t *testing.T) {
		link := filepath.Join(dir, "link")
		if err := os.Symlink(bin, link); err != nil {
			t.Fatal(err)
		}
		a, err := Identity(link)
		if err != nil {
			t.Fatal(err)
		}
		if a != id() {
			t.Errorf("a symlink's identity %q is not its target's %q", a, id())
		}
		other := filepath.Join(dir, "other")
		if err := os.WriteFile(other, []byte("x"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Remove(link); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(other, link); err != nil {
			t.Fatal(err)
		}
		b, _ := Identity(link)
		if b == a {
			t.Error("the symlink now leads elsewhere but the identity did not change")
		}
	})
	if _, err := Identity(filepath.Join(dir, "missing")); err == nil {
		t.Error("a missing file has an identity")
	}
}

func TestKeyed(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	for _, p := range []string{a, b} {
		if err := os.WriteFile(p, []byte(p), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	k1, ok := Keyed("sandbox", []string{a, b}, "args", "settings")
	if !ok {
		t.Fatal("Keyed failed on existing files")
	}
	for _, tc := range []struct {
		name string
		kind string
		bins []string
		more []string
	}{
		{"another kind", "shim", []string{a, b}, []string{"args", "settings"}},
		{"binaries swapped", "sandbox", []string{b, a}, []string{"args", "settings"}},
		{"other args", "sandbox", []string{a, b}, []string{"args2", "settings"}},
		{"other settings", "sandbox", []string{a, b}, []string{"args", "settings2"}},
		{"parts merged", "sandbox", []string{a, b}, []string{"argssettings"}},
	} {
		if k, _ := Keyed(tc.kind, tc.bins, tc.more...); k == k1 {
			t.Errorf("%s: same key %s", tc.name, k)
		}
	}
	if _, ok := Keyed("x", []string{filepath.Join(dir, "missing")}); ok {
		t.Error("Keyed over a missing binary is cacheable")
	}
}

func TestForget(t *testing.T) {
	c, _, home := newCache(t)
	c.Put(Key("sandbox", "a"), "works")
	c.Put(Key("sandbox", "b"), "works")
	c.Put(Key("shim", "a"), "shim")
	c.Forget("sandbox")
	for _, k := range []string{Key("sandbox", "a"), Key("sandbox", "b")} {
		if _, ok := c.Get(k); ok {
			t.Errorf("%s survived Forget(sandbox)", k)
		}
	}
	if _, ok := Open(home, Options{Now: c.now}).Get(Key("shim", "a")); !ok {
		t.Error("Forget(sandbox) removed the shim entry")
	}
}

// TestConcurrentPutsKeepEveryEntry: writers at once (here goroutines, each with its own
// Cache and so its own lock descriptor, as separate processes have) lose no entry.
func TestConcurrentPutsKeepEveryEntry(t *testing.T) {
	_, clk, home := newCache(t)
	const writers = 16
	var wg sync.WaitGroup
	for i := 0; i < writers; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			Open(home, Options{Now: clk.now, TTL: time.Hour}).Put(Key("w", strconv.Itoa(i)), "v")
		}()
	}
	wg.Wait()
	c := Open(home, Options{Now: clk.now, TTL: time.Hour})
	for i := 0; i < writers; i++ {
		if _, ok := c.Get(Key("w", strconv.Itoa(i))); !ok {
			t.Errorf("writer %d's entry was lost", i)
		}
	}
}

// TestHostileFileIgnoredAndRewritten: what another process may put at probes.json (a FIFO,
// which would block an open, a link to a device that never ends, a 1 GiB sparse file, more
// entries than cwx keeps) is ignored without reading it whole, and the next Put replaces it.
func TestHostileFileIgnoredAndRewritten(t *testing.T) {
	many := `{"version":1,"entries":{`
	for i := range maxEntries + 1 {
		if i > 0 {
			many += ","
		}
		many += `"k` + strconv.Itoa(i) + `":{"value":"v","at":"2026-12-01T12:00:00Z"}`
	}
	many += `}}`
	for _, tc := range []struct {
		name  string
		plant func(t *testing.T, p string)
	}{
		{"a FIFO", func(t *testing.T, p string) {
			if err := syscall.Mkfifo(p, 0o600); err != nil {
				t.Fatal(err)
			}
		}},
		{"a link to /dev/zero", func(t *testing.T, p string) {
			if err := os.Symlink("/dev/zero", p); err != nil {
				t.Fatal(err)
			}
		}},
		{"a 1 GiB sparse file", func(t *testing.T, p string) {
			if err := os.WriteFile(p, nil, 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.Truncate(p, 1<<30); err != nil {
				t.Fatal(err)
			}
		}},
		{"more entries than cwx keeps", func(t *testing.T, p string) {
			if err := os.WriteFile(p, []byte(many), 0o600); err != nil {
				t.Fatal(err)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, _, home := newCache(t)
			if err := os.MkdirAll(filepath.Dir(Path(home)), 0o700); err != nil {
				t.Fatal(err)
			}
			tc.plant(t, Path(home))
			if _, ok := c.Get("k1"); ok {
				t.Fatal("an entry of a hostile file was used")
			}
			c.Put("fresh", "v")
			if v, ok := Open(home, Options{Now: c.now}).Get("fresh"); !ok || v != "v" {
				t.Fatalf("after a Put over the hostile file: Get(fresh) = %q, %v", v, ok)
			}
		})
	}
}

// FuzzLoad: whatever probes.json holds, Get never panics and uses an entry only from a file
// that decodes; a Put over it always leaves a file a fresh Cache reads back.
func FuzzLoad(f *testing.F) {
	f.Add([]byte(`{"version":1,"entries":{"k":{"value":"v","at":"2026-12-01T12:00:00Z"}}}`))
	f.Add([]byte(`{"version":1,"entries":{"k":{"value":"v","at":"2026-12-01T12:00:00Z"}},"x":1}`))
	f.Add([]byte(`{"version":1,"entries":null}`))
	f.Add([]byte(`{"version":1,"entries":{"k":{"value":"v","at":"not a time"}}}`))
	f.Add([]byte(``))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, _, home := newCache(t)
		if err := os.MkdirAll(filepath.Dir(Path(home)), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(Path(home), data, 0o600); err != nil {
			t.Fatal(err)
		}
		if v, ok := c.Get("k"); ok {
			var fl file
			if err := json.Unmarshal(data, &fl); err != nil || fl.Entries["k"].Value != v {
				t.Fatalf("Get(k) = %q from a file that does not hold it (%v)", v, err)
			}
		}
		c.Put("fresh", "v")
		if v, ok := Open(home, Options{Now: c.now}).Get("fresh"); !ok || v != "v" {
			t.Fatalf("after a Put: Get(fresh) = %q, %v", v, ok)
		}
	})
}
