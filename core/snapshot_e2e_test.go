package core

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/cwx-dev/cwx/core/protocol"
	"github.com/cwx-dev/cwx/core/snapshot"
	"github.com/cwx-dev/cwx/shared/testenv"
)

// pluginTierSnapshot reports whether the plugin tier's current incarnation started from the
// host snapshot.
func pluginTierSnapshot(t *testing.T, m *Manager) bool {
	t.Helper()
	for _, s := range m.Status() {
		if s.Tier == protocol.TierPlugin && s.Group == "" {
			return s.Snapshot
		}
	}
	t.Fatal("no plugin tier in the status")
	return false
}

// nativeProbe calls native_probe and fails t for every entry point it reached; process.dlopen
// is among them, and on Node Object.prototype.__proto__ (Bun's lockdown has no such switch).
func nativeProbe(t *testing.T, m *Manager) {
	t.Helper()
	res, err := m.CallTool(t.Context(), "native_probe", []byte(`{}`), CallOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]string
	if err := json.Unmarshal([]byte(res.Text()), &got); err != nil {
		t.Fatalf("native_probe answered %q: %v", res.Text(), err)
	}
	if _, bun := got["Bun.FFI"]; (!bun && got["Object.prototype.__proto__"] != "refused") || got["process.dlopen"] != "refused" {
		t.Errorf("native_probe = %v: want process.dlopen refused, and on Node __proto__", got)
	}
	for k, v := range got {
		if v != "refused" && v != "absent" {
			t.Errorf("%s: %s", k, v)
		}
	}
}

// sandboxedStartupCache runs native-probe on rt's plugin tier under sandbox = "required" (as
// root, with the drop to the sandbox uid) three times: from the startup cache, whose lockdown
// self-check passes (a failed check would end the host before its hello) while a plugin sees
// every native-code entry point refused; then, after tamper changed a file of the cache, from the
// bundle, working the same, with the record tamper names (gone) removed; then from the cache the
// next Manager built again.
func sandboxedStartupCache(t *testing.T, rt testenv.Runtime, tamper func(t *testing.T, home string) (gone string)) {
	needBwrap(t)
	e := newEnv(t, rt)
	e.writeConfig("sandbox = \"required\"\nmemory_limit_mib = 512\n")
	e.install("native-probe")
	m := e.open(nil)
	reconcile(t, m)
	nativeProbe(t, m)
	if !pluginTierSnapshot(t, m) {
		t.Fatal("the plugin tier did not start from the startup cache")
	}
	if !m.SandboxStatus().Active {
		t.Fatal("the plugin tier is not sandboxed")
	}
	closeManager(t, m)

	gone := tamper(t, e.home)
	m2 := e.open(nil)
	reconcile(t, m2)
	nativeProbe(t, m2)
	if pluginTierSnapshot(t, m2) {
		t.Fatal("the plugin tier started from a tampered startup cache")
	}
	if _, err := os.Stat(gone); !os.IsNotExist(err) {
		t.Fatalf("the tampered cache's %s was kept: %v", gone, err)
	}
	closeManager(t, m2)

	m3 := e.open(nil)
	reconcile(t, m3)
	nativeProbe(t, m3)
	if !pluginTierSnapshot(t, m3) {
		t.Fatal("the next Manager did not build and use the startup cache again")
	}
}

// flipByte rewrites path (a new file, so that a seed's hard link is untouched) with one byte
// changed.
func flipByte(t *testing.T, path string) {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	raw[len(raw)/3] ^= 0x5a
	evil := path + ".evil"
	if err := os.WriteFile(evil, raw, 0o444); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(evil, path); err != nil {
		t.Fatal(err)
	}
}

// TestSandboxSnapshot: the Node plugin tier starts from the host snapshot (`__proto__` throws
// ERR_PROTO_ACCESS, process.dlopen throws); a blob tampered with is never used, and removed.
func TestSandboxSnapshot(t *testing.T) {
	sandboxedStartupCache(t, testenv.Node(t), func(t *testing.T, home string) string {
		blobs, err := filepath.Glob(filepath.Join(snapshot.Dir(home), "*.blob"))
		if err != nil || len(blobs) != 1 {
			t.Fatalf("snapshots in the home: %v (%v), want one", blobs, err)
		}
		flipByte(t, blobs[0])
		return blobs[0]
	})
}

// TestSandboxBytecode: the Bun plugin tier runs the host's bytecode cache (its folder bound
// read-only); a .jsc tampered with is never run, and its manifest is removed.
func TestSandboxBytecode(t *testing.T) {
	sandboxedStartupCache(t, testenv.Bun(t), func(t *testing.T, home string) string {
		codes, err := filepath.Glob(filepath.Join(snapshot.Dir(home), "*.bun", "*.jsc"))
		if err != nil || len(codes) != 1 {
			t.Fatalf("bytecode caches in the home: %v (%v), want one", codes, err)
		}
		flipByte(t, codes[0])
		return filepath.Dir(codes[0]) + ".json"
	})
}

// TestSnapshotOffStartsFromBundle: snapshot = "off" starts every host from the bundle.
func TestSnapshotOffStartsFromBundle(t *testing.T) {
	rt := testenv.Node(t)
	e := newEnv(t, rt)
	e.writeConfig("snapshot = \"off\"\n")
	e.install("native-probe")
	m := e.open(nil)
	reconcile(t, m)
	nativeProbe(t, m)
	if pluginTierSnapshot(t, m) {
		t.Fatal(`snapshot = "off" started from the snapshot`)
	}
}

// closeManager closes m now (its cleanup's second Close changes nothing).
func closeManager(t *testing.T, m *Manager) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	if err := m.Close(ctx); err != nil {
		t.Fatal(err)
	}
}
