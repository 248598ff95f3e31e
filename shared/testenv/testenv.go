package testenv

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"go.uber.org/goleak"
)

// MarkerEnv is the environment variable that marks every process a test run starts.
const MarkerEnv = "CWX_TEST_RUN_MARKER"

// Runtime is a JavaScript runtime a test can launch.
type Runtime struct {
	Name string // "node" or "bun"
	Path string // absolute path to the binary
}

// Lookup names a runtime a test wants and the variable that locates it. [Lookup.Get]
// resolves it inside the (sub)test that needs it, so an absent runtime skips only that test.
type Lookup struct {
	Name string // "node" or "bun"
	Env  string // the variable holding its absolute path
}

var (
	nodeLookup = Lookup{Name: "node", Env: "CWX_TEST_NODE"}
	bunLookup  = Lookup{Name: "bun", Env: "CWX_TEST_BUN"}
)

// Node returns the Node.js binary named by CWX_TEST_NODE.
func Node(t testing.TB) Runtime { t.Helper(); return nodeLookup.Get(t) }

// Bun returns the Bun binary named by CWX_TEST_BUN.
func Bun(t testing.TB) Runtime { t.Helper(); return bunLookup.Get(t) }

// Runtimes lists Node and Bun for table tests that run once per runtime. Call Get inside
// each subtest: a runtime that is present runs whether or not the other one is.
func Runtimes() []Lookup { return []Lookup{nodeLookup, bunLookup} }

// Get returns the runtime, skipping t when its variable is unset (failing it under CI) and
// failing t when the variable names no usable absolute path.
func (l Lookup) Get(t testing.TB) Runtime {
	t.Helper()
	p := os.Getenv(l.Env)
	if p == "" {
		if InCI() {
			t.Fatalf("%s is not set: CI must test with %s (run `make tools`, or `make test`)", l.Env, l.Name)
		}
		t.Skipf("%s is not set; run `make tools` and set it to .tools/bin/%s (make test does this)", l.Env, l.Name)
	}
	if !filepath.IsAbs(p) {
		t.Fatalf("%s=%q must be an absolute path", l.Env, p)
	}
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("%s=%q: %v (run `make tools`)", l.Env, p, err)
	}
	return Runtime{Name: l.Name, Path: p}
}

// InCI reports whether the CI variable is set to anything but "", "0" or "false": there a
// missing runtime fails instead of skipping.
func InCI() bool {
	v := os.Getenv("CI")
	return v != "" && v != "0" && v != "false"
}

// Marker returns this run's marker value, creating it on first use.
func Marker() string {
	if v := os.Getenv(MarkerEnv); v != "" {
		return v
	}
	var b [8]byte
	_, _ = rand.Read(b[:])
	v := hex.EncodeToString(b[:])
	_ = os.Setenv(MarkerEnv, v)
	return v
}

// Main runs the tests and then fails the run if a marked process or a goroutine outlived
// them. Processes get up to 5 seconds to exit after the last test before they count as
// leaked; goroutines get goleak's own retry window. opts are goleak options, for a package
// whose tests knowingly leave a goroutine running (none does today: no test of the module
// needs an ignore, not even for gRPC or go-plugin).
func Main(m interface{ Run() int }, opts ...goleak.Option) int {
	marker := Marker()
	code := m.Run()
	if !noProcessLeft(marker) && code == 0 {
		code = 1
	}
	if err := goleak.Find(opts...); err != nil {
		fmt.Fprintf(os.Stderr, "testenv: goroutines outlived the tests: %v\n", err)
		if code == 0 {
			code = 1
		}
	}
	return code
}

// noProcessLeft waits for the marked processes to exit and kills the ones still alive
// after the grace period, reporting whether none was left.
func noProcessLeft(marker string) bool {
	deadline := time.Now().Add(5 * time.Second)
	for {
		left := MarkedProcesses(marker)
		if len(left) == 0 {
			return true
		}
		if time.Now().After(deadline) {
			fmt.Fprintf(os.Stderr, "testenv: %d process(es) outlived the tests: %s\n", len(left), strings.Join(left, "; "))
			for _, p := range left {
				if pid, err := strconv.Atoi(strings.Fields(p)[0]); err == nil {
					_ = syscall.Kill(pid, syscall.SIGKILL)
				}
			}
			return false
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// MarkedProcesses lists "pid cmdline" of every live process (other than this one) whose
// environment carries MarkerEnv=marker. Zombies are skipped: they hold no resources and
// their parent reaps them.
func MarkedProcesses(marker string) []string {
	want := []byte(MarkerEnv + "=" + marker)
	self := os.Getpid()
	entries, _ := os.ReadDir("/proc")
	var out []string
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == self {
			continue
		}
		env, err := os.ReadFile(filepath.Join("/proc", e.Name(), "environ"))
		if err != nil || !containsEntry(env, want) {
			continue
		}
		if stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat")); err == nil && isZombie(stat) {
			continue
		}
		cmd, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		out = append(out, fmt.Sprintf("%d %s", pid, strings.ReplaceAll(strings.TrimRight(string(cmd), "\x00"), "\x00", " ")))
	}
	return out
}

func containsEntry(environ, want []byte) bool {
	for _, kv := range bytes.Split(environ, []byte{0}) {
		if bytes.Equal(kv, want) {
			return true
		}
	}
	return false
}

func isZombie(stat []byte) bool {
	i := bytes.LastIndexByte(stat, ')')
	return i >= 0 && i+2 < len(stat) && stat[i+2] == 'Z'
}
