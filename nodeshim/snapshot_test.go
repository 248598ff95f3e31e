package nodeshim

import (
	"os"
	"testing"
)

// TestWithSnapshot: the snapshot descriptor lands on the runtime's fd 7 (ExtraFiles index 4),
// with the slots between closed, only when the argv names /proc/self/fd/7; otherwise the
// runtime does not hold it at all.
func TestWithSnapshot(t *testing.T) {
	in, out, snap, info, filter := pipeEnd(t), pipeEnd(t), pipeEnd(t), pipeEnd(t), pipeEnd(t)
	base := []*os.File{in, out}
	named := []string{"node", "--snapshot-blob", "/proc/self/fd/7", "bundle.mjs", "--tier=plugin"}
	got := withSnapshot(base, snap, named)
	if len(got) != 5 || got[0] != in || got[1] != out || got[2] != nil || got[3] != nil || got[4] != snap {
		t.Fatalf("withSnapshot = %v, want [in out nil nil snapshot]", got)
	}
	if got := withSnapshot(base, snap, []string{"node", "bundle.mjs", "--tier=plugin"}); len(got) != 2 {
		t.Fatalf("an argv that does not name it still got the snapshot: %v", got)
	}
	if got := withSnapshot(base, nil, named); len(got) != 2 {
		t.Fatalf("no snapshot: %v", got)
	}
	sandboxed := []*os.File{in, out, info, filter}
	if got := withSnapshot(sandboxed, snap, named); len(got) != 5 || got[2] != sandboxed[2] || got[3] != sandboxed[3] || got[4] != snap {
		t.Fatalf("sandboxed: %v, want info and filter on fds 5 and 6, the snapshot on 7", got)
	}
}

// pipeEnd is a real descriptor the test owns (one end of a pipe, both closed at cleanup).
func pipeEnd(t *testing.T) *os.File {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close(); w.Close() })
	return r
}
