package cli

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cwx-dev/cwx/core/bundle"
	"github.com/cwx-dev/cwx/core/config"
	jsruntime "github.com/cwx-dev/cwx/core/runtime"
	"github.com/cwx-dev/cwx/core/snapshot"
	"github.com/cwx-dev/cwx/shared/testenv"
)

// doctorSnapshotJSON runs `cwx doctor --json` and returns its snapshot part.
func doctorSnapshotJSON(t *testing.T) DoctorSnapshot {
	t.Helper()
	code, stdout, stderr := runCLI("doctor", "--json")
	if code != ExitOK {
		t.Fatalf("doctor exit %d: %s", code, stderr)
	}
	var r DoctorReport
	if err := json.Unmarshal([]byte(stdout), &r); err != nil {
		t.Fatal(err)
	}
	return r.Snapshot
}

// TestDoctorSnapshot: doctor says whether the next Node host starts from the host snapshot:
// not built yet, in use once built (with what its verification costs), and never in use
// once tampered with; snapshot = "off" says so.
func TestDoctorSnapshot(t *testing.T) {
	node := testenv.Node(t)
	fakeDoctorChecks(t)
	home := filepath.Join(t.TempDir(), "home")
	if err := os.MkdirAll(home, 0o700); err != nil {
		t.Fatal(err)
	}
	writeConfig := func(extra string) {
		t.Helper()
		text := "[extension_host]\nnode = \"" + node.Path + "\"\n" + extra
		if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	writeConfig("")
	t.Setenv("CWX_HOME", home)
	t.Chdir(t.TempDir())
	doctor := func() DoctorSnapshot { return doctorSnapshotJSON(t) }
	if s := doctor(); s.InUse || !strings.Contains(s.Why, "not built yet") || s.Mode != "auto" {
		t.Fatalf("before any build: %+v", s)
	}

	res, err := jsruntime.Resolve(context.Background(), jsruntime.Options{Kind: jsruntime.KindNode, NodePath: node.Path})
	if err != nil {
		t.Fatal(err)
	}
	o, why := snapshot.For(home, config.ExtensionHost{Snapshot: config.SnapshotAuto}, res.Chosen, bundle.EmbeddedSHA256())
	if why != "" {
		t.Fatal(why)
	}
	b, err := snapshot.Prepare(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	s := doctor()
	if !s.InUse || s.Kind != "snapshot" || s.Path != b.Path || s.Bytes != b.Size || s.VerifyMS <= 0 {
		t.Fatalf("after the build: %+v", s)
	}
	_, text, _ := runCLI("doctor")
	if !strings.Contains(text, "snapshot     in use: snapshot "+b.Path) {
		t.Errorf("doctor's text lacks the snapshot line:\n%s", text)
	}

	raw, err := os.ReadFile(b.Path)
	if err != nil {
		t.Fatal(err)
	}
	raw[100] ^= 1
	if err := os.Remove(b.Path); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(b.Path, raw, 0o444); err != nil {
		t.Fatal(err)
	}
	if s := doctor(); s.InUse || !strings.Contains(s.Why, "does not match its record") {
		t.Fatalf("tampered: %+v", s)
	}

	writeConfig("snapshot = \"off\"\n")
	if s := doctor(); s.InUse || !strings.Contains(s.Why, "off") || s.Mode != "off" {
		t.Fatalf("snapshot = off: %+v", s)
	}
}

// TestDoctorBytecode: with Bun, doctor says whether the next host runs the bytecode cache:
// not built yet, in use once built, never in use once its .jsc is tampered with.
func TestDoctorBytecode(t *testing.T) {
	bun := testenv.Bun(t)
	fakeDoctorChecks(t)
	home := filepath.Join(t.TempDir(), "home")
	if err := os.MkdirAll(home, 0o700); err != nil {
		t.Fatal(err)
	}
	text := "[extension_host]\nruntime = \"bun\"\nbun = \"" + bun.Path + "\"\n"
	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("CWX_HOME", home)
	t.Chdir(t.TempDir())
	doctor := func() DoctorSnapshot { return doctorSnapshotJSON(t) }
	if s := doctor(); s.InUse || s.Kind != "bytecode" || !strings.Contains(s.Why, "first Bun host start") {
		t.Fatalf("before any build: %+v", s)
	}
	res, err := jsruntime.Resolve(context.Background(), jsruntime.Options{Kind: jsruntime.KindBun, BunPath: bun.Path})
	if err != nil {
		t.Fatal(err)
	}
	o, why := snapshot.For(home, config.ExtensionHost{Snapshot: config.SnapshotAuto}, res.Chosen, bundle.EmbeddedSHA256())
	if why != "" {
		t.Fatal(why)
	}
	c, err := snapshot.PrepareBytecode(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if s := doctor(); !s.InUse || s.Path != c.Dir || s.Bytes != c.ScriptSize+c.CodeSize || s.VerifyMS <= 0 {
		t.Fatalf("after the build: %+v", s)
	}
	if _, out, _ := runCLI("doctor"); !strings.Contains(out, "snapshot     in use: bytecode "+c.Dir) {
		t.Errorf("doctor's text lacks the bytecode line:\n%s", out)
	}
	jsc := c.Script + ".jsc"
	raw, err := os.ReadFile(jsc)
	if err != nil {
		t.Fatal(err)
	}
	raw[100] ^= 1
	if err := os.Remove(jsc); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(jsc, raw, 0o444); err != nil {
		t.Fatal(err)
	}
	if s := doctor(); s.InUse || !strings.Contains(s.Why, "does not match its record") {
		t.Fatalf("tampered: %+v", s)
	}
}
