package supervisor

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/cwx-dev/cwx/shared/testenv"
)

// shimBin is the shim binary, built once per run from testdata/fakehosts/cwxshim: the
// real nodeshim package behind the same cookie-guarded dispatch as main.go, without the
// CLI (so these tests do not depend on every CLI package compiling). The supervisor
// re-executes it as `<bin> nodeshim --tier=...`, exactly as it does cwx in production.
var shimBin string

func TestMain(m *testing.M) {
	if os.Getenv(helperCoreEnv) != "" {
		os.Exit(helperCore())
	}
	os.Exit(testenv.Main(mainWithShim{m}))
}

type mainWithShim struct{ m *testing.M }

func (w mainWithShim) Run() int {
	dir, err := os.MkdirTemp("", "cwx-supervisor-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	shimBin = filepath.Join(dir, "cwx")
	goBin, err := exec.LookPath("go")
	if err != nil {
		fmt.Fprintln(os.Stderr, "the supervisor tests build cwx and need `go` on PATH:", err)
		return 1
	}
	build := exec.Command(goBin, "build", "-o", shimBin, "../../testdata/fakehosts/cwxshim")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "build the shim binary:", err)
		return 1
	}
	return w.m.Run()
}

func fakeHost(t testing.TB, name string) (path, digest string) {
	t.Helper()
	path, err := filepath.Abs(filepath.Join("..", "..", "testdata", "fakehosts", name+".mjs"))
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("fake host %s: %v", name, err)
	}
	sum := sha256.Sum256(b)
	return path, hex.EncodeToString(sum[:])
}
