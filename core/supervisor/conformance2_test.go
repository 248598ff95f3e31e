package supervisor

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/cwx-dev/cwx/core/protocol"
	"github.com/cwx-dev/cwx/core/rpc"
	"github.com/cwx-dev/cwx/shared/testenv"
)

// keepAlive runs the issue-4 scenarios (TestConformance part 2) for one runtime.
func keepAlive(t *testing.T, rt testenv.Runtime) {
	t.Run("ping_answer_not_empty", func(t *testing.T) { t.Parallel(); conformPingBad(t, rt) })
	t.Run("pings_unanswered", func(t *testing.T) { t.Parallel(); conformPingSilent(t, rt) })
	t.Run("block_shorter_than_kill", func(t *testing.T) { t.Parallel(); conformBlock(t, rt) })
	t.Run("crash_budget_and_retry", func(t *testing.T) { t.Parallel(); conformBudget(t, rt) })
	t.Run("kill9_runtime", func(t *testing.T) { t.Parallel(); conformKill9(t, rt, false) })
	t.Run("kill9_shim", func(t *testing.T) { t.Parallel(); conformKill9(t, rt, true) })
	t.Run("crash_during_activation", func(t *testing.T) { t.Parallel(); conformActivationCrash(t, rt) })
	t.Run("dirty_teardowns_planned_restart", func(t *testing.T) { t.Parallel(); conformPlanned(t, rt) })
	t.Run("memory_hog", func(t *testing.T) { t.Parallel(); conformMemoryHog(t, rt) })
	t.Run("tier_isolation", func(t *testing.T) { conformIsolation(t, rt) })
}

// fast shortens heartbeat and restart timings for real-process tests.
func fast(o *Options) {
	o.HeartbeatInterval = 100 * time.Millisecond
	o.UnresponsiveAfter = 300 * time.Millisecond
	o.HangKillAfter = 1500 * time.Millisecond
	o.RestartBackoff = 50 * time.Millisecond
}

// fastRestart shortens only the restart backoff. Scenarios that are not about the heartbeat
// use it, so that a loaded machine answering a ping late cannot turn them into heartbeat kills.
func fastRestart(o *Options) {
	o.RestartBackoff = 50 * time.Millisecond
}

func conformPingBad(t *testing.T, rt testenv.Runtime) {
	tr := newTier(t, rt, "ping-bad", fast)
	if _, err := ensure(t, tr); err != nil {
		t.Fatal(err)
	}
	st := waitFor(t, tr, "the bad pong ends generation 1", func(s TierStatus) bool { return s.Generation >= 2 })
	if !strings.Contains(st.LastFailure, "protocol violation") || !strings.Contains(st.LastFailure, "host/ping") {
		t.Errorf("last failure %q, want a host/ping violation", st.LastFailure)
	}
}

func conformPingSilent(t *testing.T, rt testenv.Runtime) {
	tr := newTier(t, rt, "ping-silent", fast)
	h, err := ensure(t, tr)
	if err != nil {
		t.Fatal(err)
	}
	begin := time.Now()
	waitState(t, tr, StateUnresponsive)
	if _, err := h.Call(context.Background(), protocol.MethodToolCall, toolCall("x"), rpc.CallOpts{}); !errors.Is(err, ErrNotAvailable) {
		t.Errorf("call while unresponsive: %v, want NotAvailable", err)
	}
	st := waitFor(t, tr, "generation 2 is ready", func(s TierStatus) bool { return s.Generation == 2 && s.State == StateReady })
	t.Logf("unresponsive, killed and restarted after %v", time.Since(begin))
	if !strings.Contains(st.LastFailure, "heartbeat timed out") || st.Crashes != 1 {
		t.Errorf("status %+v, want a heartbeat kill counted as one crash", st)
	}
}

func conformBlock(t *testing.T, rt testenv.Runtime) {
	tr := newTier(t, rt, "good", func(o *Options) { fast(o); o.HangKillAfter = 10 * time.Second })
	h, err := ensure(t, tr)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := h.Call(context.Background(), protocol.MethodToolCall, toolCall(map[string]int{"block": 1200}), rpc.CallOpts{Timeout: 20 * time.Second})
		done <- err
	}()
	waitState(t, tr, StateUnresponsive)
	if err := <-done; err != nil {
		t.Fatalf("blocking call: %v", err)
	}
	st := waitState(t, tr, StateReady)
	if st.Generation != 1 || st.Crashes != 0 {
		t.Errorf("status %+v, want generation 1 back to ready without a restart", st)
	}
}

func conformBudget(t *testing.T, rt testenv.Runtime) {
	tr := newTier(t, rt, "exit-after-ready", func(o *Options) { fastRestart(o); o.HeartbeatInterval = 20 * time.Millisecond })
	_, _ = ensure(t, tr)
	st := waitState(t, tr, StateFailed)
	if st.Generation != 3 || !strings.Contains(st.LastFailure, "crash budget exhausted: exited with code 1") ||
		!strings.Contains(st.StderrTail, "crashing after ready") {
		t.Fatalf("status %+v, want Failed after generation 3 with the reason and stderr", st)
	}
	time.Sleep(300 * time.Millisecond) // six backoffs: nothing may spawn
	if st := tr.Status(); st.Generation != 3 || st.State != StateFailed {
		t.Fatalf("a Failed tier spawned again: %+v", st)
	}
	tr.Retry()
	waitFor(t, tr, "Retry spawns generation 4", func(s TierStatus) bool { return s.Generation >= 4 })
}

func conformKill9(t *testing.T, rt testenv.Runtime, shim bool) {
	owners := &recordingOwners{}
	tr := newTier(t, rt, "good", func(o *Options) { fastRestart(o); o.Owners = owners })
	if _, err := ensure(t, tr); err != nil {
		t.Fatal(err)
	}
	before := tr.Status()
	victim := before.RuntimePID
	if shim {
		victim = before.ShimPID
	}
	begin := time.Now()
	if err := syscall.Kill(victim, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	after := waitFor(t, tr, "generation 2 is ready", func(s TierStatus) bool { return s.Generation == 2 && s.State == StateReady })
	t.Logf("kill -9 of pid %d -> ready again in %v", victim, time.Since(begin))
	if after.RuntimePID == before.RuntimePID || after.ShimPID == before.ShimPID || after.Crashes != 1 {
		t.Errorf("after %+v\nbefore %+v", after, before)
	}
	assertGone(t, before.ShimPID, before.RuntimePID)
	if r, e := owners.snapshot(); !slices.Equal(r, []uint64{1, 2}) || !slices.Equal(e, []uint64{1}) {
		t.Errorf("owner hook: ready %v exited %v, want [1 2] and [1]", r, e)
	}
}

func conformActivationCrash(t *testing.T, rt testenv.Runtime) {
	owners := &recordingOwners{plugins: []string{"a", "crashy", "b"}}
	tr := newTier(t, rt, "crash-on-activate", func(o *Options) { fastRestart(o); o.Owners = owners })
	_, _ = ensure(t, tr)
	waitFor(t, tr, "generation 2 is ready", func(s TierStatus) bool { return s.Generation == 2 && s.State == StateReady })
	owners.mu.Lock()
	defer owners.mu.Unlock()
	if owners.blamed == nil || owners.blamed.PluginID != "crashy" {
		t.Errorf("blamed owner %+v, want crashy", owners.blamed)
	}
	if got := owners.activated[2]; !slices.Equal(got, []string{"a", "b"}) {
		t.Errorf("generation 2 activated %v, want [a b] (crashy failed, not replayed)", got)
	}
}

func conformPlanned(t *testing.T, rt testenv.Runtime) {
	tr := newTier(t, rt, "good", fastRestart)
	h, err := ensure(t, tr)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := h.Call(context.Background(), protocol.MethodToolCall, toolCall(map[string]int{"sleep": 600}), rpc.CallOpts{Timeout: 20 * time.Second})
		done <- err
	}()
	waitForInflight(t, h)
	tr.ReportDirtyTeardown()
	tr.ReportDirtyTeardown()
	if _, err := h.Call(context.Background(), protocol.MethodToolCall, toolCall("late"), rpc.CallOpts{}); !errors.Is(err, ErrNotAvailable) {
		t.Errorf("a call after admission closed: %v, want NotAvailable", err)
	}
	if st := tr.Status(); st.Generation != 1 {
		t.Errorf("restarted before the in-flight call finished: %+v", st)
	}
	if err := <-done; err != nil {
		t.Fatalf("the in-flight call failed: %v", err)
	}
	st := waitFor(t, tr, "generation 2 is ready", func(s TierStatus) bool { return s.Generation == 2 && s.State == StateReady })
	if st.Crashes != 0 {
		t.Errorf("a planned restart counted as a crash: %+v", st)
	}
	time.Sleep(300 * time.Millisecond)
	if st := tr.Status(); st.Generation != 2 {
		t.Errorf("more than one planned restart: %+v", st)
	}
}

func waitForInflight(t *testing.T, h *Host) {
	deadline := time.Now().Add(5 * time.Second)
	for {
		if n := h.inc.peer.Stats().Pending; n > 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("the call never went in flight")
		}
		time.Sleep(time.Millisecond)
	}
}

func conformMemoryHog(t *testing.T, rt testenv.Runtime) {
	tr := newTier(t, rt, "memory-hog", func(o *Options) { fastRestart(o); o.MemoryLimitBytes = 400 << 20; o.CrashLimit = 1 })
	_, _ = ensure(t, tr)
	st := waitState(t, tr, StateFailed)
	if !strings.Contains(st.LastFailure, "RLIMIT_DATA 400 MiB") {
		t.Errorf("last failure %q does not name the limit", st.LastFailure)
	}
	t.Logf("memory hog: %s", st.LastFailure)
}

func conformIsolation(t *testing.T, rt testenv.Runtime) {
	for _, victim := range []protocol.Tier{protocol.TierPlugin, protocol.TierBuiltin} {
		t.Run("crash_"+string(victim), func(t *testing.T) {
			tiers := map[protocol.Tier]*TierRuntime{}
			for _, tier := range []protocol.Tier{protocol.TierPlugin, protocol.TierBuiltin} {
				tiers[tier] = newTier(t, rt, "good", func(o *Options) { fastRestart(o); o.Tier = tier })
			}
			other := protocol.TierBuiltin
			if victim == protocol.TierBuiltin {
				other = protocol.TierPlugin
			}
			oh, err := ensure(t, tiers[other])
			if err != nil {
				t.Fatal(err)
			}
			if _, err := ensure(t, tiers[victim]); err != nil {
				t.Fatal(err)
			}
			otherBefore := tiers[other].Status()
			done := make(chan error, 1)
			go func() {
				_, err := oh.Call(context.Background(), protocol.MethodToolCall, toolCall(map[string]int{"sleep": 500}), rpc.CallOpts{Timeout: 20 * time.Second})
				done <- err
			}()
			waitForInflight(t, oh)
			_ = syscall.Kill(tiers[victim].Status().RuntimePID, syscall.SIGKILL)
			waitFor(t, tiers[victim], "the victim restarts", func(s TierStatus) bool { return s.Generation == 2 && s.State == StateReady })
			if err := <-done; err != nil {
				t.Errorf("the other tier's call failed: %v", err)
			}
			after := tiers[other].Status()
			if after.ShimPID != otherBefore.ShimPID || after.RuntimePID != otherBefore.RuntimePID || after.Generation != 1 || after.State != StateReady {
				t.Errorf("the other tier changed: before %+v after %+v", otherBefore, after)
			}
		})
	}
}

func toolCall(input any) protocol.ToolCallParams {
	b, _ := json.Marshal(input)
	return protocol.ToolCallParams{Handle: 1, CallID: "c", Input: b, DeadlineMS: 20000}
}

// recordingOwners records the owner hook's calls and replays activations like the
// Manager: every plugin, except one blamed for a crash during its activation.
type recordingOwners struct {
	plugins []string

	mu        sync.Mutex
	ready     []uint64
	exited    []uint64
	blamed    *protocol.OwnerRef
	activated map[uint64][]string
}

func (r *recordingOwners) HostReady(ctx context.Context, _ protocol.HostKey, gen uint64, h *Host) error {
	r.mu.Lock()
	r.ready = append(r.ready, gen)
	plugins := slices.Clone(r.plugins)
	blamed := r.blamed
	r.mu.Unlock()
	for _, p := range plugins {
		if blamed != nil && blamed.PluginID == p {
			continue
		}
		owner := protocol.OwnerRef{PluginID: p, Generation: gen, OwnerToken: strings.Repeat("ab", 32)}
		_, err := h.Activate(ctx, protocol.ActivateParams{
			Owner: owner, PluginName: p, Entry: protocol.EntryRef{Path: "/x/" + p + ".mjs", SHA256: strings.Repeat("0", 64)},
		}, rpc.CallOpts{Timeout: 6 * time.Second})
		if err != nil {
			return err
		}
		r.mu.Lock()
		if r.activated == nil {
			r.activated = map[uint64][]string{}
		}
		r.activated[gen] = append(r.activated[gen], p)
		r.mu.Unlock()
	}
	return nil
}

func (r *recordingOwners) HostExited(_ protocol.HostKey, gen uint64, info ExitInfo) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if info.Planned {
		return
	}
	r.exited = append(r.exited, gen)
	if info.Activating != nil {
		r.blamed = info.Activating
	}
}

func (r *recordingOwners) HandleRequest(context.Context, protocol.HostKey, uint64, *protocol.Message) (any, error) {
	return nil, &protocol.RPCError{Code: protocol.CodeRefused, Message: "not in this test"}
}

func (r *recordingOwners) HandleNotification(protocol.HostKey, uint64, *protocol.Message) {}

func (r *recordingOwners) snapshot() (ready, exited []uint64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.ready), slices.Clone(r.exited)
}
