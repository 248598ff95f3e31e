package nodeshim

import (
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/cwx-dev/cwx/shared"
	"github.com/cwx-dev/cwx/shared/testenv"
)

// spawnHelperEnv makes the test binary act as a shim that spawns one Bun probe, through the
// exec helper as the shim does (TestMain dispatches the helper as main.go does).
const spawnHelperEnv = "CWX_NODESHIM_SPAWN_HELPER_BUN"

// jitProbe prints whether JavaScriptCore can JIT: numberOfDFGCompiles answers 1000000 for any
// function when the JIT is unavailable, and a small count otherwise.
const jitProbe = `const { numberOfDFGCompiles } = require('bun:jsc');
function f(n) { let s = 0; for (let i = 0; i < n; i++) s += i; return s; }
for (let i = 0; i < 2000; i++) f(10000);
console.log(numberOfDFGCompiles(f) < 1000000 ? 'jit' : 'no-jit');`

func TestMain(m *testing.M) {
	if IsExecHelper(os.Args) {
		os.Exit(RunExecHelper(os.Args[3:]))
	}
	if bun := os.Getenv(spawnHelperEnv); bun != "" {
		os.Exit(spawnHelper(bun))
	}
	os.Exit(testenv.Main(m))
}

// spawnHelper runs the probe the way the shim runs a runtime (default memory limit) and copies
// its output.
func spawnHelper(bun string) int {
	p, err := spawn([]string{bun, "-e", jitProbe}, []string{"PATH=/usr/bin:/bin"}, "", 0, nil, nil)
	if err != nil {
		_, _ = io.WriteString(os.Stderr, err.Error()+"\n")
		return 2
	}
	_ = p.chanW.Close()
	_ = p.chanR.Close()
	_, _ = io.Copy(os.Stdout, p.output) // the probe prints on fd 1, which the shim captures
	<-p.waited
	code, _ := p.status()
	return code
}

// TestBunKeepsItsJITUnderTheDataLimit guards against RLIMIT_DATA silently turning Bun's JIT
// off (JSC's default JIT reservation does not fit under the default 1 GiB limit).
func TestBunKeepsItsJITUnderTheDataLimit(t *testing.T) {
	bun := testenv.Bun(t).Path
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

// IsExecHelper reports whether args (a whole os.Args) start the exec helper; main.go's
// dispatch reaches it through Main, and a test binary that spawns runtimes calls
// RunExecHelper itself.
func IsExecHelper(args []string) bool {
	return len(args) > 2 && args[1] == shared.Subcommand && args[2] == execHelperMode
}
