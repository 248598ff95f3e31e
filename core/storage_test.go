package core

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestActivationRefusesASymlinkedDataFolder is the attack end to end: a sandboxed plugin may
// write extension-host/data, so it replaces data/plugins with a link to a folder outside.
// The next activation fails naming the link, the host is never asked to activate, and
// nothing is created at the link's target.
func TestActivationRefusesASymlinkedDataFolder(t *testing.T) {
	m, ft, e := newFake(t, twoPlugins, "tool")
	outside := t.TempDir()
	link := filepath.Join(e.home, "extension-host", "data", "plugins")
	if err := os.MkdirAll(filepath.Dir(link), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, link); err != nil {
		t.Fatal(err)
	}
	reconcile(t, m)
	o, ok := m.Owner("fixture-tool")
	if !ok || o.State != "failed" || !strings.Contains(o.Reason, link+" is a symlink") {
		t.Fatalf("owner %+v (%v); want failed naming %s", o, ok, link)
	}
	if n := ft.activations("fixture-tool"); n != 0 {
		t.Fatalf("the host was asked to activate %d times", n)
	}
	if ents, _ := os.ReadDir(outside); len(ents) != 0 {
		t.Fatalf("the activation created %s at the link's target", ents[0].Name())
	}
}
