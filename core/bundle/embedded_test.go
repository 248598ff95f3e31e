package bundle

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cwx-dev/cwx/nodeshim/jshost"
)

func TestEmbeddedBundle(t *testing.T) {
	b := Embedded()
	if len(b.Bytes) == 0 || len(b.Licenses) == 0 || b.Name != "cwx-extension-host.mjs" {
		t.Fatalf("Embedded() = %q, %d bytes, %d bytes of licences", b.Name, len(b.Bytes), len(b.Licenses))
	}
	if b.SHA256() != EmbeddedSHA256() {
		t.Errorf("EmbeddedSHA256() = %s, the bytes hash to %s", EmbeddedSHA256(), b.SHA256())
	}
	home := t.TempDir()
	m, err := Materialize(home, b)
	if err != nil {
		t.Fatal(err)
	}
	checkFile(t, m.Path, b.Bytes)
	if v, err := Verify(home, b); err != nil || v != m {
		t.Errorf("Verify = %+v, %v; want %+v", v, err, m)
	}
}

// TestPinnedTableMatchesTheHost keeps the Go literal and the host's builtin-modules.json in
// step: a module added to the host must be pinned here in the same change.
func TestPinnedTableMatchesTheHost(t *testing.T) {
	host, err := jshost.BuiltinModules()
	if err != nil {
		t.Fatal(err)
	}
	var got []ModuleDigest
	for _, m := range host {
		got = append(got, ModuleDigest{ID: m.ID, SHA256: m.SHA256})
	}
	if err := CheckBuiltinModules(got); err != nil {
		t.Error(err)
	}
	if !slices.Equal(BuiltinModules(), pinnedBuiltinModules) {
		t.Error("BuiltinModules() is not the pinned table")
	}
}

func TestVerify(t *testing.T) {
	home := t.TempDir()
	if _, err := Verify(home, testBundle); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Verify before Materialize: %v, want not-exist", err)
	}
	m, err := Materialize(home, testBundle)
	if err != nil {
		t.Fatal(err)
	}
	must(t, os.Chmod(m.Path, 0o600))
	must(t, os.WriteFile(m.Path, []byte("tampered"), 0o600))
	must(t, os.Chmod(m.Path, 0o400))
	_, err = Verify(home, testBundle)
	if err == nil || !strings.Contains(err.Error(), "is not a read-only copy") {
		t.Errorf("Verify after tampering: %v", err)
	}
	if b, _ := os.ReadFile(m.Path); string(b) != "tampered" {
		t.Error("Verify wrote")
	}
	if _, err := Verify(filepath.Join(home, "x"), Bundle{Name: "a/b"}); err == nil {
		t.Error("Verify accepted a bad name")
	}
}
