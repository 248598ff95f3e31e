package supervisor

import (
	"context"
	"errors"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/cwx-dev/cwx/core/protocol"
	"github.com/cwx-dev/cwx/core/rpc"
	"github.com/cwx-dev/cwx/core/runtime"
	"github.com/cwx-dev/cwx/shared/testenv"
)

// resolved probes a test runtime the way production does (a configured path).
func resolved(t testing.TB, rt testenv.Runtime) runtime.Runtime {
	t.Helper()
	o := runtime.Options{Kind: runtime.Kind(rt.Name)}
	if rt.Name == "node" {
		o.NodePath = rt.Path
	} else {
		o.BunPath = rt.Path
	}
	res, err := runtime.Resolve(context.Background(), o)
	if err != nil {
		t.Fatalf("resolve %s: %v", rt.Name, err)
	}
	return res.Chosen
}

// testLogger sends hclog output to the test log.
func testLogger(t testing.TB) hclog.Logger {
	return hclog.New(&hclog.LoggerOptions{Name: "cwx", Level: hclog.Debug, Output: testWriter{t}})
}

type testWriter struct{ t testing.TB }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

// newTier returns a tier running the named fake host through the real shim, stopped at
// the end of the test.
func newTier(t testing.TB, rt testenv.Runtime, host string, mod func(*Options)) *TierRuntime {
	t.Helper()
	path, digest := fakeHost(t, host)
	o := Options{
		Tier: protocol.TierPlugin, Runtime: resolved(t, rt),
		BundlePath: path, BundleSHA256: digest,
		Dir: t.TempDir(), ShimPath: shimBin, Logger: testLogger(t),
		HandshakeTimeout: 15 * time.Second,
	}
	if mod != nil {
		mod(&o)
	}
	tr, err := NewTier(o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tr.Stop() })
	return tr
}

func ensure(t testing.TB, tr *TierRuntime) (*Host, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	return tr.Ensure(ctx)
}

// waitFor polls Status until ok (real processes; generous bound) and returns that status.
func waitFor(t testing.TB, tr *TierRuntime, what string, ok func(TierStatus) bool) TierStatus {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		st := tr.Status()
		if ok(st) {
			return st
		}
		if time.Now().After(deadline) {
			t.Fatalf("waiting until %s: status %+v", what, st)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// waitState polls Status until the tier reaches want.
func waitState(t testing.TB, tr *TierRuntime, want State) TierStatus {
	t.Helper()
	return waitFor(t, tr, "state "+string(want), func(st TierStatus) bool { return st.State == want })
}

func TestConformance(t *testing.T) {
	for _, want := range testenv.Runtimes() {
		t.Run(want.Name, func(t *testing.T) {
			rt := want.Get(t)
			t.Run("handshake", func(t *testing.T) { conformHandshake(t, rt) })
			t.Run("ready_and_stop", func(t *testing.T) { conformReadyStop(t, rt) })
			t.Run("after_ready", func(t *testing.T) { conformAfterReady(t, rt) })
			t.Run("frame_32MiB_both_ways", func(t *testing.T) { conformBigFrames(t, rt) })
			t.Run("core_killed", func(t *testing.T) { conformCoreKilled(t, rt) })
			t.Run("shutdown_ignores_sigterm", func(t *testing.T) { conformIgnoreTerm(t, rt) })
			t.Run("stop_while_starting", func(t *testing.T) { conformStopWhileStarting(t, rt) })
			t.Run("keep_alive", func(t *testing.T) { keepAlive(t, rt) })
		})
	}
}

// conformHandshake: every refused hello and every broken start, with its exact reason.
func conformHandshake(t *testing.T, rt testenv.Runtime) {
	cases := []struct {
		name, host string
		want       []string
		mod        func(*Options)
	}{
		{"wrong_tier", "hello-wrong-tier", []string{`host reports tier "builtin" but tier "plugin" was launched`}, nil},
		{"wrong_digest", "hello-wrong-digest", []string{"host reports bundle sha256 " + strings.Repeat("0", 64) + " but the core materialized "}, nil},
		{"wrong_runtime", "hello-wrong-runtime", []string{"host reports runtime ", " but \"" + rt.Name + "\" was launched"}, nil},
		{"wrong_version", "hello-wrong-version", []string{`version "0.0.1" but "`, `" was probed`}, nil},
		{"missing_builtin_modules", "hello-missing-modules", []string{"protocol violation", "builtin_modules"}, nil},
		{"extra_module", "hello-extra-module", []string{"host's builtin_modules differ from the pinned table: unexpected extra ("}, nil},
		{"unknown_field", "hello-unknown-field", []string{"protocol violation", "surprise"}, nil},
		{"legacy_node_version", "hello-legacy-node-version", []string{"protocol violation", "node_version"}, nil},
		{"protocol_range_without_1", "hello-protocol-range", []string{"host speaks protocol 2..=3, core speaks 1"}, nil},
		{"silence", "silent", []string{"handshake timed out after 1.5s: no host/hello"},
			func(o *Options) { o.HandshakeTimeout = 1500 * time.Millisecond }},
		{"exit_mid_handshake", "exit-mid-handshake", []string{"ended during the handshake", "exited with code 3", "stderr: fake host: leaving mid-handshake"}, nil},
		{"bad_magic", "bad-magic", []string{"framing violation: bad magic", "stderr: fake host: writing bad magic"}, nil},
		{"length_over_32MiB", "oversized", []string{"framing violation: frame too large: payload of 33554433 bytes exceeds the 33554432 byte limit"}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			tr := newTier(t, rt, c.host, func(o *Options) {
				o.CrashLimit = 1 // the first refusal is the answer; budgets are tested apart
				if c.mod != nil {
					c.mod(o)
				}
			})
			_, err := ensure(t, tr)
			if err == nil {
				t.Fatal("the tier became ready; want a refusal")
			}
			if !errors.Is(err, ErrNotAvailable) {
				t.Errorf("error %v is not ErrNotAvailable", err)
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q\nlacks %q", err, w)
				}
			}
			st := tr.Status()
			if st.State != StateFailed || st.LastFailure == "" {
				t.Errorf("status %+v, want failed with a reason", st)
			}
			t.Logf("refused: %v", err)
		})
	}
}

// conformReadyStop: a good host becomes Ready, answers, and stops within the bound.
func conformReadyStop(t *testing.T, rt testenv.Runtime) {
	tr := newTier(t, rt, "good", nil)
	h, err := ensure(t, tr)
	if err != nil {
		t.Fatal(err)
	}
	st := tr.Status()
	if st.State != StateReady || st.ShimPID == 0 || st.RuntimePID == 0 || st.RuntimePGID != st.RuntimePID || st.Generation != 1 {
		t.Fatalf("status %+v", st)
	}
	m, err := h.Call(context.Background(), protocol.MethodHostPing, protocol.Empty{}, rpc.CallOpts{Timeout: 5 * time.Second})
	if err != nil || string(m.Result) != "{}" {
		t.Fatalf("ping: %v %s", err, m.Result)
	}
	begin := time.Now()
	rep := tr.Stop()
	t.Logf("stop took %v (report %+v)", time.Since(begin), rep)
	if rep.TermSent || rep.KillSent || rep.Leaked {
		t.Errorf("a cooperative host needed signals: %+v", rep)
	}
	assertGone(t, st.ShimPID, st.RuntimePID)
}

// conformAfterReady: violations after the handshake end the incarnation with the reason.
func conformAfterReady(t *testing.T, rt testenv.Runtime) {
	cases := []struct {
		name, host string
		want       string
		call       bool
	}{
		{"garbage_on_stdout", "garbage-after-ready", "framing violation: bad magic", true},
		{"inbound_id_reused", "reused-id", "protocol violation: request id 7 reused while in flight", false},
		{"257_inbound_requests", "flood", "protocol violation: more than 256 host requests in flight", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			owners := &blockingOwners{}
			tr := newTier(t, rt, c.host, func(o *Options) { o.Owners = owners })
			h, err := ensure(t, tr)
			if err != nil {
				t.Fatal(err)
			}
			pids := tr.Status()
			if c.call {
				_, err := h.Call(context.Background(), protocol.MethodToolCall,
					protocol.ToolCallParams{Handle: 1, CallID: "c1", Input: []byte(`"x"`), DeadlineMS: 5000}, rpc.CallOpts{Timeout: 10 * time.Second})
				if !errors.Is(err, rpc.ErrNotAvailable) {
					t.Errorf("call error %v, want NotAvailable", err)
				}
			}
			waitFor(t, tr, "the failure is recorded", func(st TierStatus) bool { return strings.Contains(st.LastFailure, c.want) })
			assertGone(t, pids.ShimPID, pids.RuntimePID)
			if got := owners.exits(); len(got) < 1 || got[0] != 1 {
				t.Errorf("owner layer told of exits %v, want generation 1 first", got)
			}
		})
	}
}

// blockingOwners holds host requests until cancelled, so they stay in flight.
type blockingOwners struct {
	mu     sync.Mutex
	exited []uint64
}

func (b *blockingOwners) HostReady(context.Context, protocol.HostKey, uint64, *Host) error {
	return nil
}
func (b *blockingOwners) HostExited(_ protocol.HostKey, gen uint64, _ ExitInfo) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.exited = append(b.exited, gen)
}
func (b *blockingOwners) HandleRequest(ctx context.Context, _ protocol.HostKey, _ uint64, _ *protocol.Message) (any, error) {
	<-ctx.Done()
	return nil, ctx.Err()
}
func (b *blockingOwners) HandleNotification(protocol.HostKey, uint64, *protocol.Message) {}
func (b *blockingOwners) exits() []uint64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]uint64(nil), b.exited...)
}

// assertGone fails unless every pid is gone (or a zombie) within 5 s.
func assertGone(t testing.TB, pids ...int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for _, pid := range pids {
		for alive(pid) {
			if time.Now().After(deadline) {
				t.Errorf("pid %d still alive", pid)
				break
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
}

// alive reports whether pid exists and is not a zombie.
func alive(pid int) bool {
	if pid <= 0 || syscall.Kill(pid, 0) != nil {
		return false
	}
	return !isZombie(pid)
}
