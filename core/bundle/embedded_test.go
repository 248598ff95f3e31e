package bundle

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
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

// TestEmbeddedModulesArePinned: every module file the binary carries hashes to its pinned
// digest, is materialized beside the bundle and passes VerifyModule; a changed copy fails it.
func TestEmbeddedModulesArePinned(t *testing.T) {
	b := Embedded()
	if len(b.Modules) != len(BuiltinModules()) {
		t.Fatalf("%d embedded modules, %d pinned", len(b.Modules), len(BuiltinModules()))
	}
	home := t.TempDir()
	m, err := Materialize(home, b)
	if err != nil {
		t.Fatal(err)
	}
	for _, mod := range b.Modules {
		pin, ok := PinnedModule(mod.ID)
		if !ok || pin.SHA256 != mod.SHA256() {
			t.Errorf("module %s: pinned %+v, embedded bytes hash to %s", mod.ID, pin, mod.SHA256())
		}
		path := ModulePath(m.Dir, mod.ID)
		checkFile(t, path, mod.Bytes)
		if err := VerifyModule(path, pin.SHA256); err != nil {
			t.Error(err)
		}
		must(t, os.Chmod(path, 0o600))
		must(t, os.WriteFile(path, append(slices.Clone(mod.Bytes), '\n'), 0o600))
		must(t, os.Chmod(path, 0o444))
		if err := VerifyModule(path, pin.SHA256); !errors.Is(err, ErrModuleDigest) {
			t.Errorf("VerifyModule of a changed copy: %v", err)
		}
		if _, err := Verify(home, b); err == nil {
			t.Error("Verify accepted a changed module file")
		}
		if _, err := Materialize(home, b); err != nil {
			t.Fatal(err)
		}
		if err := VerifyModule(path, pin.SHA256); err != nil {
			t.Errorf("after Materialize repaired it: %v", err)
		}
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
	must(t, os.Chmod(m.Path, 0o444))
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
