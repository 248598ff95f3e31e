package seccomp_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/cwx-dev/cwx/core/seccomp"
	"github.com/cwx-dev/cwx/core/seccomp/seccomptest"
)

// probe runs this test binary as the seccomp probe in mode, in a new session (so vhangup
// has no terminal to hang up).
func probe(t *testing.T, mode string) seccomptest.Report {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), seccomptest.Env+"="+mode)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	rep, err := seccomptest.Decode(cmd)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// TestFilterRefusesEachCallForReal calls every refused system call with the filter this
// package builds installed on the calling process, and again without it: with it, each
// fails with the rule's errno (clone3 with ENOSYS, so libc falls back; socket(AF_UNIX)
// with EACCES); the calls that must keep working (threads, socketpair, inet sockets, a
// personality query) still do; and the calls whose 32-bit argument carries a high bit are
// still caught. Without the filter the argument-filtered calls and clone3 behave otherwise,
// so the test fails if the filter is not applied.
func TestFilterRefusesEachCallForReal(t *testing.T) {
	f, err := seccomp.Build()
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "filter.bpf")
	if err := os.WriteFile(file, f.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	without := probe(t, "plain")
	with := probe(t, "self:"+file)
	seccomptest.Check(t, f, with, without)
}
