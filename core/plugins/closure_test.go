package plugins

import (
	"os"
	"path"
	"strings"
	"testing"
)

// FuzzEntryNames checks that no tar name or symlink target accepted by install can point
// outside the package.
func FuzzEntryNames(f *testing.F) {
	for _, s := range []string{"package/index.js", "../x", "/abs", "a/../../b", "a/./b", "a\\..\\b", "./", ""} {
		f.Add(s, "target/../x")
	}
	f.Fuzz(func(t *testing.T, name, target string) {
		clean, reason := cleanTarName(name)
		if reason == "" && clean != "" {
			if path.IsAbs(clean) || clean == ".." || strings.HasPrefix(clean, "../") {
				t.Fatalf("tar name %q accepted as %q", name, clean)
			}
			if symlinkEscapes(clean, target) == "" {
				j := path.Clean(path.Join(path.Dir(clean), target))
				if path.IsAbs(target) || j == ".." || strings.HasPrefix(j, "../") {
					t.Fatalf("symlink %q → %q accepted", clean, target)
				}
			}
		}
	})
}

func TestHashTreeOrderAndFraming(t *testing.T) {
	a := t.TempDir()
	b := t.TempDir()
	// Moving a byte between a name and content must change the hash (length framing).
	must(t, writeFile(a+"/ab", "c"))
	must(t, writeFile(b+"/a", "bc"))
	ha, err := HashTree(a, DefaultLimits)
	must(t, err)
	hb, err := HashTree(b, DefaultLimits)
	must(t, err)
	if ha.SHA256 == hb.SHA256 {
		t.Fatal("framing collision")
	}
	if ha.Files != 1 || ha.Bytes != 1 {
		t.Fatalf("%+v", ha)
	}
}

func writeFile(p, s string) error { return os.WriteFile(p, []byte(s), 0o644) }
