package catalog

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/hashicorp/go-hclog"

	"github.com/cwx-dev/cwx/core/registry"
)

func sample() Entry {
	return Entry{
		Key:      Key{PluginID: "fixture-tool", Closure: "c1", Config: "d1", Bundle: "b1"},
		Tools:    []Tool{{Name: "echo_text", Description: "Echo it.", InputSchema: json.RawMessage(`{"type":"object"}`)}},
		Commands: []Command{{Name: "greet", Description: "Say hello.", ArgumentHint: "[name]"}},
		Hooks:    []Hook{{Event: registry.HookEvent}},
		Sections: []Section{{ID: "style", Text: "Be brief.\nAlways."}},
	}
}

func logged() (hclog.Logger, *bytes.Buffer) {
	var buf bytes.Buffer
	return hclog.New(&hclog.LoggerOptions{Output: &buf, Level: hclog.Debug}), &buf
}

func TestPutLookup(t *testing.T) {
	s := Open(filepath.Join(t.TempDir(), "catalog"), nil)
	e := sample()
	if _, ok := s.Lookup(e.Key); ok {
		t.Fatal("an empty catalog found an entry")
	}
	if err := s.Put(e); err != nil {
		t.Fatal(err)
	}
	got, ok := s.Lookup(e.Key)
	if !ok || !got.Equal(e) {
		t.Fatalf("Lookup = %+v, %v; want %+v", got, ok, e)
	}
	if !got.HasHooks() || !got.HasTool("echo_text") || got.HasTool("Echo_Text") || !got.HasCommand("greet") {
		t.Errorf("HasHooks/HasTool/HasCommand wrong on %+v", got)
	}
	fi, err := os.Stat(s.Path(e.Key.PluginID))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("entry file mode %v, %v; want 0600", fi.Mode(), err)
	}
	if di, err := os.Stat(s.Dir()); err != nil || di.Mode().Perm() != 0o700 {
		t.Errorf("catalog folder mode %v, %v; want 0700", di.Mode(), err)
	}
	// replacing it leaves no temporary behind
	e.Tools = nil
	if err := s.Put(e); err != nil {
		t.Fatal(err)
	}
	names, _ := filepath.Glob(filepath.Join(s.Dir(), "*"))
	if len(names) != 1 {
		t.Errorf("catalog folder holds %v, want the one entry", names)
	}
	if got, ok := s.Lookup(e.Key); !ok || got.HasTool("echo_text") {
		t.Errorf("the replaced entry still lists the old tool: %+v", got)
	}
}

// TestStaleKeyNotUsed: an entry is found only under exactly the key it was written with:
// other bytes, another config or another host bundle find nothing.
func TestStaleKeyNotUsed(t *testing.T) {
	s := Open(t.TempDir(), nil)
	e := sample()
	if err := s.Put(e); err != nil {
		t.Fatal(err)
	}
	for name, k := range map[string]Key{
		"bytes":  {PluginID: "fixture-tool", Closure: "c2", Config: "d1", Bundle: "b1"},
		"config": {PluginID: "fixture-tool", Closure: "c1", Config: "d2", Bundle: "b1"},
		"bundle": {PluginID: "fixture-tool", Closure: "c1", Config: "d1", Bundle: "b2"},
		"plugin": {PluginID: "other", Closure: "c1", Config: "d1", Bundle: "b1"},
	} {
		if got, ok := s.Lookup(k); ok {
			t.Errorf("%s changed: Lookup found %+v", name, got)
		}
	}
	if _, ok := s.Lookup(e.Key); !ok {
		t.Error("a stale look-up removed the entry")
	}
}

// TestCorruptRebuilt: a file that does not parse or holds what no activation registers is
// logged, removed and never used; the next Put writes it afresh.
func TestCorruptRebuilt(t *testing.T) {
	good := sample()
	valid, err := json.Marshal(file{Version: Version, Entry: good})
	if err != nil {
		t.Fatal(err)
	}
	mutate := func(f func(*Entry)) []byte {
		e := sample()
		f(&e)
		b, _ := json.Marshal(file{Version: Version, Entry: e})
		return b
	}
	for name, data := range map[string][]byte{
		"garbage":        []byte("{not json"),
		"truncated":      valid[:len(valid)/2],
		"trailing":       append(append([]byte{}, valid...), []byte(` {}`)...),
		"unknown field":  bytes.Replace(valid, []byte(`"tools"`), []byte(`"extra":1,"tools"`), 1),
		"bad tool name":  mutate(func(e *Entry) { e.Tools[0].Name = "no spaces allowed" }),
		"bidi text":      mutate(func(e *Entry) { e.Tools[0].Description = "evil\u202etxt" }),
		"schema":         mutate(func(e *Entry) { e.Tools[0].InputSchema = json.RawMessage(`[1]`) }),
		"command name":   mutate(func(e *Entry) { e.Commands[0].Name = "Greet" }),
		"hook event":     mutate(func(e *Entry) { e.Hooks[0].Event = "tools/post-execute" }),
		"section escape": mutate(func(e *Entry) { e.Sections[0].Text = "\x1b[2J" }),
		"other plugin":   mutate(func(e *Entry) { e.Key.PluginID = "someone-else" }),
		"no key":         mutate(func(e *Entry) { e.Key.Closure = "" }),
	} {
		t.Run(name, func(t *testing.T) {
			log, out := logged()
			s := Open(t.TempDir(), log)
			if err := os.MkdirAll(s.Dir(), 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(s.Path(good.Key.PluginID), data, 0o600); err != nil {
				t.Fatal(err)
			}
			if got, ok := s.Lookup(good.Key); ok {
				t.Fatalf("a corrupt entry was used: %+v", got)
			}
			if !strings.Contains(out.String(), "catalog entry is corrupt") {
				t.Errorf("not logged: %q", out.String())
			}
			if _, err := os.Stat(s.Path(good.Key.PluginID)); !os.IsNotExist(err) {
				t.Errorf("the corrupt file is still there: %v", err)
			}
			if err := s.Put(good); err != nil {
				t.Fatal(err)
			}
			if _, ok := s.Lookup(good.Key); !ok {
				t.Error("the rebuilt entry is not found")
			}
		})
	}
}

// TestOtherVersionNotUsed: a file of another format version is left alone and not used.
func TestOtherVersionNotUsed(t *testing.T) {
	s := Open(t.TempDir(), nil)
	e := sample()
	b, _ := json.Marshal(file{Version: Version + 1, Entry: e})
	if err := os.MkdirAll(s.Dir(), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(s.Path(e.Key.PluginID), b, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, ok := s.Lookup(e.Key); ok {
		t.Fatal("an entry of another version was used")
	}
}

func TestPutRefusesInvalid(t *testing.T) {
	s := Open(t.TempDir(), nil)
	e := sample()
	e.Tools[0].Name = "1bad"
	if err := s.Put(e); err == nil {
		t.Fatal("Put wrote an entry no activation could register")
	}
}

func TestSymlinkNotFollowed(t *testing.T) {
	dir := t.TempDir()
	s := Open(filepath.Join(dir, "catalog"), nil)
	e := sample()
	if err := s.Put(e); err != nil {
		t.Fatal(err)
	}
	elsewhere := filepath.Join(dir, "elsewhere.json")
	if err := os.Rename(s.Path(e.Key.PluginID), elsewhere); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(elsewhere, s.Path(e.Key.PluginID)); err != nil {
		t.Fatal(err)
	}
	if _, ok := s.Lookup(e.Key); ok {
		t.Fatal("an entry was read through a symlink")
	}
}

// TestHostileFileRebuilt: what another process may put at an entry's path instead of a file
// (a FIFO, which would block the open forever; a link to a device that never ends; a sparse
// file of 1 GiB) is corrupt: not used, removed at once without reading it, and written again
// at the next Put.
func TestHostileFileRebuilt(t *testing.T) {
	good := sample()
	for _, c := range []struct {
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
		{"a folder", func(t *testing.T, p string) {
			if err := os.Mkdir(p, 0o700); err != nil {
				t.Fatal(err)
			}
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			log, out := logged()
			s := Open(t.TempDir(), log)
			if err := os.MkdirAll(s.Dir(), 0o700); err != nil {
				t.Fatal(err)
			}
			c.plant(t, s.Path(good.Key.PluginID))
			if got, ok := s.Lookup(good.Key); ok {
				t.Fatalf("a hostile entry was used: %+v", got)
			}
			if !strings.Contains(out.String(), "catalog entry is corrupt") {
				t.Errorf("not logged as corrupt: %q", out.String())
			}
			if _, err := os.Lstat(s.Path(good.Key.PluginID)); !os.IsNotExist(err) {
				t.Errorf("the hostile file is still there: %v", err)
			}
			if err := s.Put(good); err != nil {
				t.Fatal(err)
			}
			if _, ok := s.Lookup(good.Key); !ok {
				t.Error("the rebuilt entry is not found")
			}
		})
	}
}

// FuzzReadEntry: whatever bytes an entry file holds, Lookup never panics; it uses an entry
// only when the bytes decode to one Put would write (check passes, the key is the file's
// own), and a file it refuses is removed so the next activation writes it again.
func FuzzReadEntry(f *testing.F) {
	valid, err := json.Marshal(file{Version: Version, Entry: sample()})
	if err != nil {
		f.Fatal(err)
	}
	f.Add(valid)
	f.Add(valid[:len(valid)/2])
	f.Add([]byte(`{"version":1}`))
	f.Add([]byte(`{"version":2}`))
	f.Add([]byte(`null`))
	f.Add(bytes.Replace(valid, []byte(`"echo_text"`), []byte(`"echo text"`), 1))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		s := Open(dir, hclog.NewNullLogger())
		if err := os.MkdirAll(s.Dir(), 0o700); err != nil {
			t.Fatal(err)
		}
		k := sample().Key
		if err := os.WriteFile(s.Path(k.PluginID), data, 0o600); err != nil {
			t.Fatal(err)
		}
		e, err := s.read(k.PluginID)
		got, ok := s.Lookup(k)
		if err == nil {
			if cerr := check(e); cerr != nil {
				t.Fatalf("read accepted an entry check refuses: %v", cerr)
			}
			if ok != (e.Key == k) || ok && !got.Equal(e) {
				t.Fatalf("Lookup %v for an entry keyed %+v", ok, e.Key)
			}
			return
		}
		if ok {
			t.Fatalf("Lookup used an entry read refused (%v)", err)
		}
		if _, serr := os.Lstat(s.Path(k.PluginID)); !errors.Is(err, errStale) && !os.IsNotExist(serr) {
			t.Fatalf("a refused entry (%v) was left in place", err)
		}
	})
}
