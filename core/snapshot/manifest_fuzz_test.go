package snapshot

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzLoadManifest: whatever bytes a snapshot's or a bytecode cache's manifest holds, loading
// it never panics, and it is accepted only when it names the key and entry asked for and the
// sizes of the files that are there.
func FuzzLoadManifest(f *testing.F) {
	key, entry := strings.Repeat("a", 64), strings.Repeat("e", 64)
	sum := strings.Repeat("0", 64)
	f.Add([]byte(`{"key":"` + key + `","sha256":"` + sum + `","size":4,"entry_sha256":"` + entry + `"}`))
	f.Add([]byte(`{"key":"` + key + `","entry_sha256":"` + entry + `","script_sha256":"` + sum + `","script_size":4,"jsc_sha256":"` + sum + `","jsc_size":4}`))
	f.Add([]byte(`{"key":"` + key + `","size":-1}`))
	f.Add([]byte(`{`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		home := t.TempDir()
		o := Options{Home: home, EntrySHA256: entry}
		dir := Dir(home)
		b := &Blob{Path: filepath.Join(dir, key+".blob"), Key: key, manifest: filepath.Join(dir, key+".json"), EntrySHA256: entry}
		c := newBytecode(o, key)
		if err := os.MkdirAll(c.Dir, 0o700); err != nil {
			t.Fatal(err)
		}
		for _, p := range []string{b.Path, c.Script, c.code()} {
			if err := os.WriteFile(p, []byte("four"), 0o444); err != nil {
				t.Fatal(err)
			}
		}
		for _, p := range []string{b.manifest, c.manifest} {
			if err := os.WriteFile(p, raw, 0o600); err != nil {
				t.Fatal(err)
			}
		}
		if b.load() == nil && (b.Size != 4 || len(b.SHA256) != 64) {
			t.Fatalf("snapshot manifest %q accepted with size %d sha256 %q", raw, b.Size, b.SHA256)
		}
		if c.load() == nil && (c.ScriptSize != 4 || c.CodeSize != 4 || len(c.ScriptSHA256) != 64 || len(c.CodeSHA256) != 64) {
			t.Fatalf("bytecode manifest %q accepted as %+v", raw, c)
		}
	})
}
