package nodeshim

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// spawnHelperEnv makes the test binary act as a shim that spawns one Bun probe: spawn lowers
// the calling process's RLIMIT_DATA for good, so it runs in a child, never in the test process.
const spawnHelperEnv = "CWX_NODESHIM_SPAWN_HELPER_BUN"

// jitProbe prints whether JavaScriptCore can JIT: numberOfDFGCompiles answers 1000000 for any
// function when the JIT is unavailable, and a small count otherwise.
const jitProbe = `const { numberOfDFGCompiles } = require('bun:jsc');
function f(n) { let s = 0; for (let i = 0; i < n; i++) s += i; return s; }
for (let i = 0; i < 2000; i++) f(10000);
console.log(numberOfDFGCompiles(f) < 1000000 ? 'jit' : 'no-jit');`

func TestMain(m *testing.M) {
	if bun := os.Getenv(spawnHelperEnv); bun != "" {
		os.Exit(spawnHelper(bun))
	}
	os.Exit(m.Run())
}

// spawnHelper runs the probe the way the shim runs a runtime (default memory limit) and copies
// its output.
func spawnHelper(bun string) int {
	p, err := spawn([]string{bun, "-e", jitProbe}, []string{"PATH=/usr/bin:/bin"}, "", 0)
	if err != nil {
		_, _ = io.WriteString(os.Stderr, err.Error()+"\n")
		return 2
	}
	_ = p.stdin.Close()
	go func() { _, _ = io.Copy(os.Stderr, p.stderr) }()
	_, _ = io.Copy(os.Stdout, p.stdout)
	<-p.waited
	code, _ := p.status()
	return code
}

// TestBunKeepsItsJITUnderTheDataLimit guards against RLIMIT_DATA silently turning Bun's JIT
// off (JSC's default JIT reservation does not fit under the default 1 GiB limit).
func TestBunKeepsItsJITUnderTheDataLimit(t *testing.T) {
	bun := testBun(t)
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), spawnHelperEnv+"="+bun)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("spawn helper: %v (output %q)", err, out)
	}
	if got := strings.TrimSpace(string(out)); got != "jit" {
		t.Errorf("Bun under the shim's RLIMIT_DATA reports %q, want \"jit\"", got)
	}
}

// testBun is core/internal/testenv's lookup, which nodeshim cannot import: CWX_TEST_BUN, a
// failure under CI=true when it is missing, a skip otherwise.
func testBun(t *testing.T) string {
	t.Helper()
	p := os.Getenv("CWX_TEST_BUN")
	if p == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("CWX_TEST_BUN is not set: CI must test with bun (run `make tools`, or `make test`)")
		}
		t.Skip("CWX_TEST_BUN is not set; run `make tools` and set it to .tools/bin/bun (make test does this)")
	}
	if !filepath.IsAbs(p) {
		t.Fatalf("CWX_TEST_BUN=%q must be an absolute path", p)
	}
	return p
}
