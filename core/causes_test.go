package core

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/cwx-dev/cwx/core/protocol"
	"github.com/cwx-dev/cwx/core/rpc"
	"github.com/cwx-dev/cwx/core/supervisor"
	"github.com/cwx-dev/cwx/shared"
)

// exitWith ends the fake tier's incarnation the way the supervisor reports an unplanned
// end: a *supervisor.FailureError whose Err is the cause.
func exitWith(f *fakeTier, cause error) {
	f.mu.Lock()
	h := f.h
	h.dead, f.h = true, nil
	f.mu.Unlock()
	fe := &supervisor.FailureError{Tier: f.t.Tier, Group: f.t.Group, Generation: h.gen, Reason: cause.Error(), Err: cause}
	f.m.own.HostExited(f.t, h.gen, supervisor.ExitInfo{Reason: fe})
}

// TestCallErrorKeepsTheHostsEnd: a call cut short by the host's end matches ErrHostExited
// and still carries why the host ended: a protocol violation matches ErrViolation, a
// runtime exit hands its exit report on through errors.As.
func TestCallErrorKeepsTheHostsEnd(t *testing.T) {
	violation := fmt.Errorf("%w: answer to request id 9, which the core never sent", rpc.ErrViolation)
	exit := &shared.ExitError{Exit: shared.Exit{Code: 3}}
	testCases := []struct {
		name  string
		cause error
		is    []error
		isNot []error
		text  string
	}{
		{"protocol violation", violation, []error{ErrHostExited, ErrNotAvailable, ErrViolation}, []error{shared.ErrRuntimeExited, ErrCancelled}, "which the core never sent"},
		{"runtime exit", exit, []error{ErrHostExited, ErrNotAvailable, shared.ErrRuntimeExited}, []error{ErrViolation, ErrCancelled}, "exited with code 3"},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			m, ft, _ := newFake(t, twoPlugins, "tool", "command")
			reconcile(t, m)
			ft.mu.Lock()
			ft.block = true
			ft.mu.Unlock()
			done := make(chan error, 1)
			go func() {
				_, err := m.CallTool(context.Background(), "alpha", input(`{"n":1}`), CallOptions{})
				done <- err
			}()
			waitFor(t, "call in flight", func() bool { return inflight(m, "fixture-tool") == 1 })
			exitWith(ft, tc.cause)
			err := <-done
			for _, k := range tc.is {
				if !errors.Is(err, k) {
					t.Errorf("errors.Is(%v, %v) = false; want true", err, k)
				}
			}
			for _, k := range tc.isNot {
				if errors.Is(err, k) {
					t.Errorf("errors.Is(%v, %v) = true; want false", err, k)
				}
			}
			if !strings.Contains(err.Error(), tc.text) {
				t.Errorf("error %q lacks %q", err, tc.text)
			}
			var fe *supervisor.FailureError
			if !errors.As(err, &fe) || fe.Tier != protocol.TierPlugin {
				t.Errorf("errors.As(%v, *supervisor.FailureError) = %v; want the supervisor's report", err, fe)
			}
		})
	}
}

// TestRuntimeExitReachable: the exit status of the runtime is reachable with errors.As
// through the Manager's call error.
func TestRuntimeExitReachable(t *testing.T) {
	m, ft, _ := newFake(t, twoPlugins, "tool", "command")
	reconcile(t, m)
	ft.mu.Lock()
	ft.block = true
	ft.mu.Unlock()
	done := make(chan error, 1)
	go func() {
		_, err := m.CallTool(context.Background(), "alpha", input(`{"n":1}`), CallOptions{})
		done <- err
	}()
	waitFor(t, "call in flight", func() bool { return inflight(m, "fixture-tool") == 1 })
	exitWith(ft, &shared.ExitError{Exit: shared.Exit{Code: -1, Signal: 9}})
	err := <-done
	var ee *shared.ExitError
	if !errors.As(err, &ee) || ee.Exit.Signal != 9 || ee.Exit.Code != -1 {
		t.Fatalf("errors.As(%v, *shared.ExitError) = %+v; want signal 9", err, ee)
	}
}

// TestNotLive: an unknown name is a *NotLiveError, a case of ErrNotAvailable, and its text
// names no CLI command.
func TestNotLive(t *testing.T) {
	m, _, _ := newFake(t, twoPlugins, "tool", "command")
	reconcile(t, m)
	testCases := []struct {
		name string
		call func() error
		kind string
	}{
		{"tool", func() error { _, err := m.CallTool(context.Background(), "nope", nil, CallOptions{}); return err }, "tool"},
		{"command", func() error { _, err := m.RunCommand(context.Background(), "nope", "", CallOptions{}); return err }, "command"},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.call()
			var nl *NotLiveError
			if !errors.As(err, &nl) || nl.Kind != tc.kind || nl.Name != "nope" || !errors.Is(err, ErrNotAvailable) {
				t.Fatalf("error %v; want a *NotLiveError for %s nope", err, tc.kind)
			}
			want := fmt.Sprintf("extension host not available: no live extension %s named \"nope\"", tc.kind)
			if err.Error() != want {
				t.Errorf("error %q; want %q", err, want)
			}
		})
	}
}
