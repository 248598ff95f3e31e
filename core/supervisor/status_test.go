package supervisor

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"testing/synctest"
	"time"

	"github.com/cwx-dev/cwx/core/protocol"
	"github.com/cwx-dev/cwx/core/runtime"
)

// TestStatusGolden pins the JSON form of TierStatus (CWX_UPDATE_GOLDEN=1 re-records). It runs
// in a synctest bubble, whose clock stands still while the test does not sleep.
func TestStatusGolden(t *testing.T) {
	synctest.Test(t, statusGolden)
}

func statusGolden(t *testing.T) {
	now := time.Now()
	tr, err := NewTier(Options{
		Tier:         protocol.TierPlugin,
		Runtime:      runtime.Runtime{Kind: runtime.KindNode, Path: "/opt/node/bin/node", Version: "v22.23.5"},
		BundlePath:   "/home/u/.cwx/extension-host/abc/cwx-extension-host.mjs",
		BundleSHA256: "abc", ShimPath: "/usr/bin/cwx",
	})
	if err != nil {
		t.Fatal(err)
	}
	idle := tr.Status()
	tr.mu.Lock()
	tr.state, tr.gen, tr.readyAt = StateReady, 3, now.Add(-1500*time.Millisecond)
	tr.cur = &incarnation{gen: 3, shimPID: 4100}
	tr.cur.rt.PID, tr.cur.rt.PGID = 4107, 4107
	tr.failure = &FailureError{Tier: protocol.TierPlugin, Generation: 2,
		Reason: "framing violation: bad magic \"GARB\", want \"CWX1\" (runtime killed by signal 9 (killed))", StderrTail: "fake host: writing bad magic\n"}
	tr.mu.Unlock()
	got, err := json.MarshalIndent([]TierStatus{idle, tr.Status()}, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	golden := filepath.Join("testdata", "status.golden.json")
	if os.Getenv("CWX_UPDATE_GOLDEN") == "1" {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(golden, append(got, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run with CWX_UPDATE_GOLDEN=1 to record)", err)
	}
	if string(want) != string(got)+"\n" {
		t.Errorf("status JSON differs from %s:\n%s", golden, got)
	}
}
