package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cwx-dev/cwx/core/plugins"
	"github.com/cwx-dev/cwx/core/plugins/plugintest"
)

func readLockFile(t *testing.T, home string) *plugins.Lock {
	t.Helper()
	lk, err := plugins.ReadLock(filepath.Join(home, "plugins.lock"))
	if err != nil {
		t.Fatal(err)
	}
	return lk
}

func TestLockReinstallsTheSameClosure(t *testing.T) {
	homeA := pluginHome(t)
	reg := newTestRegistry(t)
	useRegistry(t, homeA, reg)
	reg.publish("@acme/hello", "1.0.0", "one", nil)
	reg.publish("@acme/hello", "1.1.0", "one-one", nil)
	reg.tag("@acme/hello", "latest", "1.1.0")
	tgz := plugintest.Tarball(t, t.TempDir(), "local.tgz", []plugintest.TarEntry{
		{Name: "package/package.json", Body: `{"name":"local-tgz","version":"0.1.0","main":"index.mjs"}`},
		{Name: "package/index.mjs", Body: "export function apply(ctx) {}\n"},
	})
	folder := basicFixture(t)

	installJSON(t, "npm:@acme/hello@~1.0")
	installJSON(t, tgz)
	installJSON(t, folder)
	lockA := readLockFile(t, homeA)
	if got := strings.Join(lockA.IDs(), ","); got != "@acme/hello,hello,local-tgz" {
		t.Fatalf("lock ids %s", got)
	}
	npmE := lockA.Plugins["@acme/hello"]
	if o := npmE.Origin; o.Type != plugins.OriginNpm || o.Name != "@acme/hello" || o.Version != "1.0.0" || o.Query != "~1.0" || !strings.HasPrefix(o.Integrity, "sha512-") {
		t.Fatalf("npm origin %+v", o)
	}
	if o := lockA.Plugins["local-tgz"].Origin; o.Type != plugins.OriginTarball || o.Path != tgz || !strings.HasPrefix(o.Integrity, "sha512-") {
		t.Fatalf("tarball origin %+v", o)
	}
	if o := lockA.Plugins["hello"].Origin; o.Type != plugins.OriginFolder || o.Path != folder {
		t.Fatalf("folder origin %+v", o)
	}
	lockFile := filepath.Join(t.TempDir(), "plugins.lock")
	data, _ := os.ReadFile(filepath.Join(homeA, "plugins.lock"))
	os.WriteFile(lockFile, data, 0o600)

	// A fresh home: the same bytes, whatever the registry's latest is now.
	reg.publish("@acme/hello", "1.0.1", "newer", nil)
	reg.tag("@acme/hello", "latest", "1.0.1")
	homeB := filepath.Join(t.TempDir(), "home-b")
	t.Setenv("CWX_HOME", homeB)
	useRegistry(t, homeB, reg)
	out := mustCLI(t, "plugin", "install", "--from-lock", lockFile, "--json")
	var res []PluginInstallResult
	if err := json.Unmarshal([]byte(out), &res); err != nil || len(res) != 3 {
		t.Fatalf("%s: %v", out, err)
	}
	lockB := readLockFile(t, homeB)
	for id, a := range lockA.Plugins {
		b := lockB.Plugins[id]
		if b.Closure != a.Closure || b.Version != a.Version || *b.Origin != *a.Origin {
			t.Errorf("%s: fresh home has %+v %+v, want %+v %+v", id, b, b.Origin, a, a.Origin)
		}
	}
	list := mustCLI(t, "plugin", "list")
	if !strings.Contains(list, "npm:@acme/hello@1.0.0") || !strings.Contains(list, tgz) {
		t.Fatalf("list:\n%s", list)
	}
}

func TestLockRefusesOtherBytes(t *testing.T) {
	home := pluginHome(t)
	reg := newTestRegistry(t)
	useRegistry(t, home, reg)
	reg.publish("pinned", "1.0.0", "original", nil)
	installJSON(t, "npm:pinned@1.0.0")
	data, _ := os.ReadFile(filepath.Join(home, "plugins.lock"))
	lockFile := filepath.Join(t.TempDir(), "plugins.lock")
	os.WriteFile(lockFile, data, 0o600)

	fresh := func(t *testing.T) string {
		h := filepath.Join(t.TempDir(), "fresh")
		t.Setenv("CWX_HOME", h)
		useRegistry(t, h, reg)
		return h
	}
	t.Run("the registry republished the version", func(t *testing.T) {
		h := fresh(t)
		reg.publish("pinned", "1.0.0", "tampered", nil) // new bytes, the document's integrity follows them
		defer reg.publish("pinned", "1.0.0", "original", nil)
		r := runPluginCLI(t, "plugin", "install", "--from-lock", lockFile)
		if r.code != ExitDenied || !strings.Contains(r.stderr, "the lock or --integrity pins") {
			t.Fatalf("exit %d:\n%s", r.code, r.stderr)
		}
		assertNothingUnpacked(t, h, "pinned")
	})
	t.Run("a closure that is not these bytes", func(t *testing.T) {
		h := fresh(t)
		var lk map[string]any
		json.Unmarshal(data, &lk)
		lk["plugins"].(map[string]any)["pinned"].(map[string]any)["closure_sha256"] = strings.Repeat("0", 64)
		b, _ := json.Marshal(lk)
		bad := filepath.Join(t.TempDir(), "bad.lock")
		os.WriteFile(bad, b, 0o600)
		r := runPluginCLI(t, "plugin", "install", "--from-lock", bad)
		if r.code != ExitInvalid || !strings.Contains(r.stderr, "not the same bytes") {
			t.Fatalf("exit %d:\n%s", r.code, r.stderr)
		}
		assertNothingUnpacked(t, h, "pinned")
	})
}
