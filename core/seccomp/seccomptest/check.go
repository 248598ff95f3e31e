package seccomptest

import (
	"slices"
	"syscall"
	"testing"

	"github.com/cwx-dev/cwx/core/seccomp"
)

// NoCaps is capLines of a process that holds no capability.
const NoCaps = "CapInh: 0000000000000000\nCapPrm: 0000000000000000\nCapEff: 0000000000000000\nCapAmb: 0000000000000000"

// CheckNoCaps asserts that the probe of rep held no capability in any set but the bounding
// one (a runtime in the sandbox).
func CheckNoCaps(t testing.TB, rep Report) {
	t.Helper()
	if rep.Caps != NoCaps {
		t.Errorf("capabilities held inside the sandbox:\n%s", rep.Caps)
	}
}

// Check asserts a probe report taken under the filter (with), against one taken without
// it (without; a zero Report skips the comparison).
func Check(t testing.TB, f *seccomp.Filter, with, without Report) {
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
		if slices.Contains(with.Skipped, label) {
			continue
		}
		if got, ok := with.Results[label]; !ok || got != want {
			t.Errorf("%s under the filter: %v (reported %v), want %v", label, syscall.Errno(got), ok, syscall.Errno(want))
		}
	}
	for _, s := range with.Skipped {
		t.Logf("%s not probed: this kernel or architecture has no such ABI", s)
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
