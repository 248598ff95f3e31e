package testenv

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// recorder is a testing.TB that records how Get ended the test instead of ending it.
type recorder struct {
	testing.TB
	outcome string // "skip", "fatal" or "" (returned)
	msg     string
}

func (r *recorder) Helper() {}

func (r *recorder) Skipf(format string, args ...any) {
	r.outcome, r.msg = "skip", fmt.Sprintf(format, args...)
	runtime.Goexit()
}

func (r *recorder) Fatalf(format string, args ...any) {
	r.outcome, r.msg = "fatal", fmt.Sprintf(format, args...)
	runtime.Goexit()
}

// get runs l.Get on a recorder in its own goroutine, since skipping and failing end it.
func get(l Lookup) (*recorder, Runtime) {
	r := &recorder{}
	var rt Runtime
	done := make(chan struct{})
	go func() {
		defer close(done)
		rt = l.Get(r)
	}()
	<-done
	return r, rt
}

func TestLookupGet(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "node")
	if err := os.WriteFile(bin, nil, 0o755); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, path, ci string
		want           string
	}{
		{"present", bin, "", ""},
		{"present under CI", bin, "true", ""},
		{"absent skips", "", "", "skip"},
		{"absent with CI=false skips", "", "false", "skip"},
		{"absent with CI=0 skips", "", "0", "skip"},
		{"absent under CI fails", "", "true", "fatal"},
		{"absent under CI=1 fails", "", "1", "fatal"},
		{"relative path fails", "node", "", "fatal"},
		{"missing file fails", bin + ".gone", "", "fatal"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("CWX_TEST_FAKE", tt.path)
			t.Setenv("CI", tt.ci)
			r, rt := get(Lookup{Name: "node", Env: "CWX_TEST_FAKE"})
			if r.outcome != tt.want {
				t.Fatalf("outcome %q (%s), want %q", r.outcome, r.msg, tt.want)
			}
			if tt.want == "" && rt != (Runtime{Name: "node", Path: bin}) {
				t.Fatalf("runtime %+v, want node at %s", rt, bin)
			}
		})
	}
}

func TestRuntimesListsBoth(t *testing.T) {
	got := Runtimes()
	want := []Lookup{{"node", "CWX_TEST_NODE"}, {"bun", "CWX_TEST_BUN"}}
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] {
		t.Fatalf("Runtimes() = %+v, want %+v", got, want)
	}
}

// runner is a TestMain's m whose Run is a function.
type runner func() int

func (f runner) Run() int { return f() }

func TestMainFailsOnALeakedGoroutine(t *testing.T) {
	stop := make(chan struct{})
	defer close(stop)
	tests := []struct {
		name string
		run  runner
		want int
	}{
		{"clean", func() int { return 0 }, 0},
		{"failed tests stay failed", func() int { return 3 }, 3},
		{"leaked goroutine", func() int { go func() { <-stop }(); return 0 }, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Main(tt.run); got != tt.want {
				t.Fatalf("Main = %d, want %d", got, tt.want)
			}
		})
	}
}
