package supervisor

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/cwx-dev/cwx/shared"
	"github.com/cwx-dev/cwx/shared/testenv"
)

// TestRuntimeProcessProperties checks what the shim promises about the runtime it spawns:
// its own process group, the shim in a session of its own, RLIMIT_DATA on the runtime and
// not on the shim, the scrubbed environment with CWX_HOST_PARENT_PID, and the descriptors of
// ARCHITECTURE.md, “Processes”: stdin /dev/null, fd 1 and fd 2 one capture pipe, the channel
// on fd 3 and fd 4, none of them the shim's own.
func TestRuntimeProcessProperties(t *testing.T) {
	rt := testenv.Node(t)
	tr := newTier(t, rt, "good", func(o *Options) { o.MemoryLimitBytes = 768 << 20 })
	if _, err := ensure(t, tr); err != nil {
		t.Fatal(err)
	}
	st := tr.Status()
	shim, run := st.ShimPID, st.RuntimePID

	if pgid, sid := statField(t, run, 5), statField(t, shim, 6); pgid != run || sid != shim {
		t.Errorf("runtime pgid %d (want its pid %d), shim session %d (want its pid %d)", pgid, run, sid, shim)
	}
	if got := dataLimit(t, run); got != strconv.Itoa(768<<20) {
		t.Errorf("runtime RLIMIT_DATA %q, want %d", got, 768<<20)
	}
	if got := dataLimit(t, shim); got == strconv.Itoa(768<<20) {
		t.Errorf("the shim's own RLIMIT_DATA is the runtime's %q, want it left alone", got)
	}
	env := environ(t, run)
	if env[shared.ParentPIDEnv] != strconv.Itoa(shim) {
		t.Errorf("%s=%q, want the shim's pid %d", shared.ParentPIDEnv, env[shared.ParentPIDEnv], shim)
	}
	for k := range env {
		if k == shared.CookieKey || strings.HasPrefix(k, "PLUGIN_") {
			t.Errorf("runtime environment carries %s", k)
		}
	}
	if env[testenv.MarkerEnv] == "" {
		t.Errorf("runtime environment lost %s", testenv.MarkerEnv)
	}
	if r := fdTarget(t, run, 0); r != "/dev/null" {
		t.Errorf("runtime fd 0 is %q, want /dev/null", r)
	}
	if out, errOut := fdTarget(t, run, 1), fdTarget(t, run, 2); out != errOut {
		t.Errorf("runtime fd 1 is %q and fd 2 %q, want the same capture pipe", out, errOut)
	}
	seen := map[string]int{}
	for _, fd := range []int{1, 3, 4} {
		r := fdTarget(t, run, fd)
		if !strings.HasPrefix(r, "pipe:") || seen[r] != 0 {
			t.Errorf("runtime fd %d is %q, want a pipe of its own", fd, r)
		}
		seen[r] = fd
		for sfd := 0; sfd <= shared.LifelineFD; sfd++ {
			if s := fdTarget(t, shim, sfd); s == r {
				t.Errorf("runtime fd %d is the shim's fd %d (%q)", fd, sfd, s)
			}
		}
	}
	lifeline := fdTarget(t, shim, shared.LifelineFD)
	fds, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", run))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range fds {
		if target, _ := os.Readlink(fmt.Sprintf("/proc/%d/fd/%s", run, e.Name())); target == lifeline {
			t.Errorf("the runtime holds the shim's lifeline (%s) as fd %s", lifeline, e.Name())
		}
	}
}

// statField returns field n (1-based, as in proc(5)) of /proc/pid/stat.
func statField(t *testing.T, pid, n int) int {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		t.Fatal(err)
	}
	rest := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+2:]))
	v, _ := strconv.Atoi(rest[n-3])
	return v
}

func dataLimit(t *testing.T, pid int) string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/limits", pid))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "Max data size") {
			return strings.Fields(line[len("Max data size"):])[0]
		}
	}
	return ""
}

func environ(t *testing.T, pid int) map[string]string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/environ", pid))
	if err != nil {
		t.Fatal(err)
	}
	env := map[string]string{}
	for _, kv := range strings.Split(string(b), "\x00") {
		if k, v, ok := strings.Cut(kv, "="); ok {
			env[k] = v
		}
	}
	return env
}

func fdTarget(t *testing.T, pid, fd int) string {
	s, err := os.Readlink(fmt.Sprintf("/proc/%d/fd/%d", pid, fd))
	if err != nil {
		t.Fatal(err)
	}
	return s
}
