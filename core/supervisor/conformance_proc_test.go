package supervisor

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cwx-dev/cwx/core/protocol"
	"github.com/cwx-dev/cwx/core/rpc"
	"github.com/cwx-dev/cwx/shared/frame"
	"github.com/cwx-dev/cwx/shared/testenv"
)

// conformBigFrames: a 32 MiB request reaches the host intact and a ~32 MiB answer comes back.
//
// The runtime gets a 2 GiB data limit here: this scenario is about the relay, and a
// JavaScript echo of a 32 MiB string on Bun peaks within a few MiB of the default 1 GiB
// (the memory scenario tests the limit itself).
func conformBigFrames(t *testing.T, rt testenv.Runtime) {
	tr := newTier(t, rt, "good", func(o *Options) { o.MemoryLimitBytes = 2 << 30 })
	h, err := ensure(t, tr)
	if err != nil {
		t.Fatal(err)
	}
	base := protocol.ToolCallParams{Handle: 1, CallID: "big", Input: json.RawMessage(`""`), DeadlineMS: 60000}
	empty, err := protocol.NewRequest(1, protocol.MethodToolCall, base)
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Repeat("w", frame.MaxPayload-len(empty))
	base.Input = json.RawMessage(`"` + text + `"`)
	if req, _ := protocol.NewRequest(1, protocol.MethodToolCall, base); len(req) != frame.MaxPayload {
		t.Fatalf("request frame is %d bytes, want exactly %d", len(req), frame.MaxPayload)
	}
	begin := time.Now()
	m, err := h.Call(context.Background(), protocol.MethodToolCall, base, rpc.CallOpts{Timeout: 60 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("32 MiB round trip: %v, answer payload %d bytes", time.Since(begin), len(m.Result))
	res, ok := m.Value.(*protocol.ToolResult)
	if !ok || len(res.Content) != 1 || res.Content[0].Text != text {
		t.Fatalf("echo did not come back intact (%T)", m.Value)
	}
}

// conformCoreKilled: SIGKILL of the core takes the shim and the runtime with it (lifeline).
func conformCoreKilled(t *testing.T, rt testenv.Runtime) {
	cmd, shimPID, rtPID := startHelperCore(t, rt, "good")
	begin := time.Now()
	_ = cmd.Process.Signal(syscall.SIGKILL)
	_ = cmd.Wait()
	for alive(shimPID) || alive(rtPID) {
		if time.Since(begin) > 3*time.Second {
			t.Fatalf("shim %d alive=%v, runtime %d alive=%v 3 s after the core was killed", shimPID, alive(shimPID), rtPID, alive(rtPID))
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Logf("core killed: shim and runtime gone after %v (bound 3 s)", time.Since(begin))
}

const helperCoreEnv = "CWX_SUPERVISOR_HELPER_CORE"

// helperCore is a core process for conformCoreKilled: it starts a tier, prints the pids and
// waits to be killed.
func helperCore() int {
	rt := testenv.Runtime{Name: os.Getenv("CWX_HELPER_RUNTIME"), Path: os.Getenv("CWX_HELPER_RUNTIME_PATH")}
	tb := &helperTB{}
	tr, err := NewTier(Options{
		Tier: protocol.TierPlugin, Runtime: resolved(tb, rt),
		BundlePath: os.Getenv("CWX_HELPER_HOST"), BundleSHA256: os.Getenv("CWX_HELPER_DIGEST"),
		ShimPath: os.Getenv("CWX_HELPER_SHIM"), Dir: os.TempDir(),
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if _, err := tr.Ensure(context.Background()); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	st := tr.Status()
	fmt.Printf("READY %d %d\n", st.ShimPID, st.RuntimePID)
	select {}
}

// helperTB lets resolved run outside a test.
type helperTB struct{ testing.TB }

func (helperTB) Helper() {}
func (helperTB) Fatalf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, format+"\n", args...)
	os.Exit(1)
}

// conformIgnoreTerm: a runtime that ignores host/shutdown and SIGTERM is SIGKILLed; the
// whole tree is gone within 9 s.
func conformIgnoreTerm(t *testing.T, rt testenv.Runtime) {
	tr := newTier(t, rt, "ignore-term", nil)
	if _, err := ensure(t, tr); err != nil {
		t.Fatal(err)
	}
	st := tr.Status()
	begin := time.Now()
	rep := tr.Stop()
	took := time.Since(begin)
	t.Logf("shutdown of a SIGTERM-ignoring runtime: %v (report %+v; bound 9 s)", took, rep)
	// SIGTERM went to both groups at the answer bound; the SIGKILL comes from the shim's own
	// SIGTERM handling (0.8 s later) or from the core at the kill bound, whichever is first.
	if !rep.TermSent || rep.Leaked {
		t.Errorf("report %+v, want SIGTERM and no leak", rep)
	}
	if took < DefaultShutdownAnswer {
		t.Errorf("shutdown took %v: SIGTERM was sent before the %v answer bound", took, DefaultShutdownAnswer)
	}
	if took > 9*time.Second {
		t.Errorf("shutdown took %v, bound 9 s", took)
	}
	assertGone(t, st.ShimPID, st.RuntimePID)
}

// isZombie reads /proc/<pid>/stat's state field.
func isZombie(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true
	}
	i := bytes.LastIndexByte(b, ')')
	return i >= 0 && i+2 < len(b) && b[i+2] == 'Z'
}
