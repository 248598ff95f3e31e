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

// TestSandboxSnapshot: under sandbox = "required" (as root, with the drop to the sandbox uid)
// the Node plugin tier starts from the host snapshot, whose lockdown self-check passes
// (`__proto__` throws ERR_PROTO_ACCESS, process.dlopen throws: a failed check would end the
// host before its hello), and a plugin sees every native-code entry point refused. A blob
// tampered with afterwards is never used: the next start comes from the bundle, works the
// same, and the next Manager builds the snapshot again.
func TestSandboxSnapshot(t *testing.T) {
	needBwrap(t)
	rt := testenv.Node(t)
	e := newEnv(t, rt)
	e.writeConfig("sandbox = \"required\"\nmemory_limit_mib = 512\n")
	e.install("native-probe")
	m := e.open(nil)
	reconcile(t, m)
	nativeProbe(t, m)
	if !pluginTierSnapshot(t, m) {
		t.Fatal("the plugin tier did not start from the snapshot")
	}
	if !m.SandboxStatus().Active {
		t.Fatal("the plugin tier is not sandboxed")
	}
	closeManager(t, m)

	blobs, err := filepath.Glob(filepath.Join(snapshot.Dir(e.home), "*.blob"))
	if err != nil || len(blobs) != 1 {
		t.Fatalf("snapshots in the home: %v (%v), want one", blobs, err)
	}
	raw, err := os.ReadFile(blobs[0])
	if err != nil {
		t.Fatal(err)
	}
	raw[len(raw)/3] ^= 0x5a
	evil := blobs[0] + ".evil"
	if err := os.WriteFile(evil, raw, 0o444); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(evil, blobs[0]); err != nil { // a new file: the seed's link is untouched
		t.Fatal(err)
	}
	m2 := e.open(nil)
	reconcile(t, m2)
	nativeProbe(t, m2)
	if pluginTierSnapshot(t, m2) {
		t.Fatal("the plugin tier started from a tampered snapshot")
	}
	if _, err := os.Stat(blobs[0]); !os.IsNotExist(err) {
		t.Fatalf("the tampered snapshot was kept: %v", err)
	}
	closeManager(t, m2)

	m3 := e.open(nil)
	reconcile(t, m3)
	nativeProbe(t, m3)
	if !pluginTierSnapshot(t, m3) {
		t.Fatal("the next Manager did not build and use the snapshot again")
	}
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

// TestSandboxBytecode: under sandbox = "required" the Bun plugin tier runs the host's
// bytecode cache (its folder bound read-only), the lockdown holds under it, and a plugin sees
// every native-code entry point refused. A .jsc tampered with afterwards is never used: the
// next start runs the bundle, works the same, and the next Manager builds the cache again.
func TestSandboxBytecode(t *testing.T) {
	needBwrap(t)
	rt := testenv.Bun(t)
	e := newEnv(t, rt)
	e.writeConfig("sandbox = \"required\"\nmemory_limit_mib = 512\n")
	e.install("native-probe")
	m := e.open(nil)
	reconcile(t, m)
	nativeProbe(t, m)
	if !pluginTierSnapshot(t, m) {
		t.Fatal("the plugin tier did not run the bytecode cache")
	}
	if !m.SandboxStatus().Active {
		t.Fatal("the plugin tier is not sandboxed")
	}
	closeManager(t, m)

	codes, err := filepath.Glob(filepath.Join(snapshot.Dir(e.home), "*.bun", "*.jsc"))
	if err != nil || len(codes) != 1 {
		t.Fatalf("bytecode caches in the home: %v (%v), want one", codes, err)
	}
	raw, err := os.ReadFile(codes[0])
	if err != nil {
		t.Fatal(err)
	}
	raw[len(raw)/3] ^= 0x5a
	dir := filepath.Dir(codes[0])
	if err := os.Remove(codes[0]); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(codes[0], raw, 0o444); err != nil {
		t.Fatal(err)
	}
	m2 := e.open(nil)
	reconcile(t, m2)
	nativeProbe(t, m2)
	if pluginTierSnapshot(t, m2) {
		t.Fatal("the plugin tier ran a tampered bytecode cache")
	}
	if _, err := os.Stat(dir + ".json"); !os.IsNotExist(err) {
		t.Fatalf("the tampered cache's manifest was kept: %v", err)
	}
	closeManager(t, m2)

	m3 := e.open(nil)
	reconcile(t, m3)
	nativeProbe(t, m3)
	if !pluginTierSnapshot(t, m3) {
		t.Fatal("the next Manager did not build and run the bytecode cache again")
	}
}
