package nodeshim

import (
	"os"
	"os/exec"
	"slices"
	"syscall"
	"testing"
	"time"
)

// TestDescendantsFindsGrandchildren checks the /proc walk the sweep relies on: a child of
// this process and that child's own child are both found, breadth first.
func TestDescendantsFindsGrandchildren(t *testing.T) {
	cmd := exec.Command("/bin/sh", "-c", "sleep 30 & wait")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	deadline := time.Now().Add(5 * time.Second)
	for {
		tree := processTree()
		got := descendants(tree, os.Getpid())
		if i := slices.Index(got, cmd.Process.Pid); i >= 0 && len(tree[cmd.Process.Pid]) == 1 {
			if grand := tree[cmd.Process.Pid][0]; !slices.Contains(got[i+1:], grand) {
				t.Fatalf("descendants %v miss the grandchild %d after its parent %d", got, grand, cmd.Process.Pid)
			}
			_ = syscall.Kill(tree[cmd.Process.Pid][0], syscall.SIGKILL) // the sleep; the shell then ends
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the shell %d and its sleep never showed up: %v", cmd.Process.Pid, got)
		}
		time.Sleep(5 * time.Millisecond)
	}
}
