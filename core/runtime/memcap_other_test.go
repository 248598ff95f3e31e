//go:build !linux

package runtime

import (
	"os/exec"
	"strings"
	"testing"
)

// TestUlimitArgvCapsTheExecedProcess checks the probe's mechanism outside Linux (on Linux the
// probe uses prlimit(2)): the process execed through ulimitArgv is born with RLIMIT_DATA set.
func TestUlimitArgvCapsTheExecedProcess(t *testing.T) {
	tests := []struct {
		name  string
		limit uint64
		want  string // soft and hard limit in KiB, as the shell reports them
	}{
		{"the default cap", 1 << 30, "1048576 1048576"},
		{"rounded down to KiB", 64<<20 + 1000, "65536 65536"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			argv := ulimitArgv(tc.limit, []string{"/bin/sh", "-c", `echo "$(ulimit -S -d) $(ulimit -H -d)"`})
			out, err := exec.Command(argv[0], argv[1:]...).Output()
			if err != nil {
				t.Fatalf("%q: %v", argv, err)
			}
			if got := strings.TrimSpace(string(out)); got != tc.want {
				t.Errorf("limits = %q, want %q", got, tc.want)
			}
		})
	}
}
