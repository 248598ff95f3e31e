package seccomp_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/cwx-dev/cwx/core/seccomp"
)

// TestBuilds: the filter assembles for this architecture, fits the kernel's 4096
// instructions, serializes as 8 bytes per instruction, and lists the calls the sandbox
// promises to refuse.
func TestBuilds(t *testing.T) {
	promised := []string{
		"mount", "umount2", "pivot_root", "ptrace", "process_vm_readv", "process_vm_writev",
		"kexec_load", "kexec_file_load", "init_module", "finit_module", "delete_module", "bpf",
		"perf_event_open", "keyctl", "add_key", "request_key", "userfaultfd", "io_uring_setup",
		"io_uring_enter", "io_uring_register", "unshare", "clone", "clone3", "setns", "personality",
		"acct", "swapon", "swapoff", "reboot", "settimeofday", "clock_settime", "clock_adjtime",
		"ioctl", "socket", "open_by_handle_at",
	}
	f, err := seccomp.Build()
	if err != nil {
		t.Fatal(err)
	}
	if f.Len() == 0 || f.Len() > 4096 {
		t.Fatalf("%d instructions", f.Len())
	}
	if got := len(f.Bytes()); got != 8*f.Len() {
		t.Fatalf("%d bytes for %d instructions", got, f.Len())
	}
	for _, c := range promised {
		if !slices.ContainsFunc(f.Rules, func(r seccomp.Rule) bool { return r.Call == c }) {
			t.Errorf("%s is not refused", c)
		}
	}
	for _, r := range f.Rules {
		want := seccomp.EPERM
		switch r.Call {
		case "clone3":
			want = seccomp.ENOSYS
		case "socket":
			want = seccomp.EACCES
		}
		if r.Errno != want {
			t.Errorf("%s gives %s, want %s", r.Call, r.Errno, want)
		}
	}
	if s := f.Summary(); !strings.Contains(s, "default allow") || !strings.Contains(s, "ENOSYS") {
		t.Errorf("summary %q", s)
	}
}
