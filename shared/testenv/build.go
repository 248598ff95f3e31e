package testenv

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"testing"
)

// BuildCWX builds the cwx binary into dir (a fresh t.TempDir() when dir is empty) and
// returns its path. Tests that run the real binary, or need it as the shim a Manager
// re-executes or as the privilege drop inside the sandbox, build it here.
func BuildCWX(t testing.TB, dir string) string {
	t.Helper()
	if dir == "" {
		dir = t.TempDir()
	}
	bin := filepath.Join(dir, "cwx")
	if err := BuildCWXAt(bin); err != nil {
		t.Fatal(err)
	}
	return bin
}

// BuildCWXAt is BuildCWX for a TestMain, which has no testing.TB: it builds the cwx binary
// at bin.
func BuildCWXAt(bin string) error {
	if out, err := exec.Command("go", "build", "-o", bin, "github.com/cwx-dev/cwx").CombinedOutput(); err != nil {
		return fmt.Errorf("build cwx: %w\n%s", err, out)
	}
	return nil
}
