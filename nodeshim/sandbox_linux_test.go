package nodeshim

import (
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"
)

// TestFirstChild: a child is found from the pids just above its parent without a scan of
// /proc, and with one when the window does not reach it.
func TestFirstChild(t *testing.T) {
	sh := exec.Command("/bin/sh", "-c", "sleep 30 & wait")
	sh.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := sh.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = syscall.Kill(-sh.Process.Pid, syscall.SIGKILL); _ = sh.Wait() }()
	var got int
	for range 2000 {
		if got = firstChild(sh.Process.Pid, false); got > 0 {
			break
		}
		if c := firstChild(sh.Process.Pid, true); c > 0 {
			got = c
			break
		}
	}
	if got == 0 {
		t.Fatal("the shell's child was never found")
	}
	if ppid, ok := parentPID(got); !ok || ppid != sh.Process.Pid {
		t.Fatalf("firstChild = %d, whose parent is %d, want %d", got, ppid, sh.Process.Pid)
	}
	if c := firstChild(os.Getpid()+1<<20, true); c != 0 {
		t.Fatalf("a pid that does not exist has child %d", c)
	}
}

// TestChildNearAndScan: the two fallbacks of firstChild for a kernel without the children
// file, each run on its own (the kernel here may have the file): the window above the
// parent finds a child within childWindow pids, and a scan of /proc finds it anywhere.
func TestChildNearAndScan(t *testing.T) {
	sh := exec.Command("/bin/sh", "-c", "sleep 30 & wait")
	sh.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := sh.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = syscall.Kill(-sh.Process.Pid, syscall.SIGKILL); _ = sh.Wait() }()
	pid := sh.Process.Pid
	kid := 0
	for range 2000 {
		if kids := processTree()[pid]; len(kids) > 0 {
			kid = kids[0]
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	if ppid, ok := parentPID(kid); kid == 0 || !ok || ppid != pid {
		t.Fatalf("the scan of /proc found child %d of %d (its parent %d)", kid, pid, ppid)
	}
	want := 0
	if kid > pid && kid <= pid+childWindow {
		want = kid
	}
	if got := childNear(pid); got != want {
		t.Fatalf("childNear(%d) = %d, want %d (the child is %d)", pid, got, want, kid)
	}
	if got := childNear(os.Getpid() + 1<<20); got != 0 {
		t.Fatalf("a pid that does not exist has child %d", got)
	}
}
