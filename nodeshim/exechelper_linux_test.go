package nodeshim

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// TestExecHelperDropsTerminal: started in a session whose controlling terminal is a pty, the
// exec helper of a sandboxed plan execs its command without that terminal (/dev/tty cannot be
// opened), since the profile starts no new session; an unsandboxed plan keeps it.
func TestExecHelperDropsTerminal(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	probe := helperArgv(exe, 1<<30, []string{"/bin/sh", "-c", "if (exec 3<>/dev/tty) 2>/dev/null; then echo tty; else echo notty; fi"})
	quoted := make([]string, len(probe))
	for i, a := range probe {
		quoted[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
	}
	underLeader := []string{"/bin/sh", "-c", strings.Join(quoted, " ")} // as under the shim: the helper does not lead its session
	for _, tc := range []struct {
		argv []string
		env  []string
		want string
	}{
		{underLeader, []string{"PATH=/usr/bin:/bin", sandboxEnv + "=bwrap"}, "notty"},
		{probe, []string{"PATH=/usr/bin:/bin", sandboxEnv + "=bwrap"}, "notty"}, // the helper leads the session
		{underLeader, []string{"PATH=/usr/bin:/bin"}, "tty"},
	} {
		ptmx, pts := openPTY(t)
		var out bytes.Buffer
		cmd := &exec.Cmd{Path: tc.argv[0], Args: tc.argv, Env: helperEnv(tc.env), Stdin: pts, Stdout: &out, Stderr: &out,
			SysProcAttr: &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}}
		err = cmd.Run()
		pts.Close()
		ptmx.Close()
		if err != nil || strings.TrimSpace(out.String()) != tc.want {
			t.Errorf("%q with %q: %v, printed %q, want %q", tc.argv[0], tc.env, err, out.String(), tc.want)
		}
	}
}

// openPTY returns a new pty's master and slave.
func openPTY(t *testing.T) (*os.File, *os.File) {
	t.Helper()
	ptmx, err := os.OpenFile("/dev/ptmx", os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Fatalf("open /dev/ptmx: %v", err)
	}
	if err := unix.IoctlSetPointerInt(int(ptmx.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		t.Fatal(err)
	}
	n, err := unix.IoctlGetInt(int(ptmx.Fd()), unix.TIOCGPTN)
	if err != nil {
		t.Fatal(err)
	}
	pts, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	return ptmx, pts
}
