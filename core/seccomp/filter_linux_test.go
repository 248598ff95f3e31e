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
	CheckReport(t, f, with, without)
}

// CheckReport asserts a probe report taken under the filter (with), against one taken
// without it (without; nil skips the comparison).
func CheckReport(t *testing.T, f *seccomp.Filter, with, without seccomptest.Report) {
	t.Helper()
	for _, r := range f.Rules {
		if got := with.Results[r.Call]; got != int(r.Errno) {
			t.Errorf("%s under the filter: %v, want %s", r.Call, syscall.Errno(got), r.Errno)
		}
	}
	expect := map[string]int{
		"ioctl:TIOCLINUX": int(seccomp.EPERM),
		"abi:foreign":     int(seccomp.ENOSYS), "abi:x32": int(seccomp.ENOSYS),
		"allow:getpid": 0, "allow:socketpair": 0, "allow:socket-inet": 0, "allow:ioctl-fionread": 0,
		"allow:personality-query": 0, "allow:unshare-files": 0, "allow:thread": 0,
	}
	for label, want := range expect {
		if slicesContains(with.Skipped, label) {
			continue
		}
		if got, ok := with.Results[label]; !ok || got != want {
			t.Errorf("%s under the filter: %v (reported %v), want %v", label, syscall.Errno(got), ok, syscall.Errno(want))
		}
	}
	if without.Results == nil {
		return
	}
	// Without the filter these behave otherwise whatever the caller's privileges.
	for _, c := range []string{"socket", "ioctl", "ioctl:TIOCLINUX", "clone", "unshare", "clone3", "personality"} {
		if without.Results[c] == with.Results[c] {
			t.Errorf("%s gives %v with and without the filter: the probe does not tell them apart", c, syscall.Errno(with.Results[c]))
		}
	}
	n := 0
	for _, r := range f.Rules {
		if without.Results[r.Call] != with.Results[r.Call] {
			n++
		}
	}
	t.Logf("%d of %d refused calls behave otherwise without the filter (as uid %d)", n, len(f.Rules), without.UID)
}

func slicesContains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}
