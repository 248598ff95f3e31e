package errdefs_test

import (
	"errors"
	"testing"

	"github.com/cwx-dev/cwx/core"
	"github.com/cwx-dev/cwx/core/errdefs"
	"github.com/cwx-dev/cwx/core/gate"
	"github.com/cwx-dev/cwx/core/plugins"
	"github.com/cwx-dev/cwx/core/protocol"
	"github.com/cwx-dev/cwx/core/registry"
	"github.com/cwx-dev/cwx/core/rpc"
	"github.com/cwx-dev/cwx/core/supervisor"
	"github.com/cwx-dev/cwx/shared/frame"
)

// TestOneDefinition: every exported name of a kind is the errdefs value itself, so the
// name a caller matches never depends on which layer returned the error.
func TestOneDefinition(t *testing.T) {
	testCases := []struct {
		name      string
		got, kind error
	}{
		{"core.ErrNotAvailable", core.ErrNotAvailable, errdefs.ErrNotAvailable},
		{"rpc.ErrNotAvailable", rpc.ErrNotAvailable, errdefs.ErrNotAvailable},
		{"supervisor.ErrNotAvailable", supervisor.ErrNotAvailable, errdefs.ErrNotAvailable},
		{"core.ErrBusy", core.ErrBusy, errdefs.ErrBusy},
		{"rpc.ErrBusy", rpc.ErrBusy, errdefs.ErrBusy},
		{"core.ErrHostExited", core.ErrHostExited, errdefs.ErrHostExited},
		{"rpc.ErrHostExited", rpc.ErrHostExited, errdefs.ErrHostExited},
		{"core.ErrTimeout", core.ErrTimeout, errdefs.ErrTimeout},
		{"rpc.ErrTimeout", rpc.ErrTimeout, errdefs.ErrTimeout},
		{"core.ErrCancelled", core.ErrCancelled, errdefs.ErrCancelled},
		{"rpc.ErrCancelled", rpc.ErrCancelled, errdefs.ErrCancelled},
		{"core.ErrInvalidInput", core.ErrInvalidInput, errdefs.ErrInvalidInput},
		{"registry.ErrInvalidInput", registry.ErrInvalidInput, errdefs.ErrInvalidInput},
		{"core.ErrDenied", core.ErrDenied, errdefs.ErrDenied},
		{"gate.ErrDenied", gate.ErrDenied, errdefs.ErrDenied},
		{"core.ErrExecutionFailed", core.ErrExecutionFailed, errdefs.ErrExecutionFailed},
		{"core.ErrViolation", core.ErrViolation, errdefs.ErrViolation},
		{"rpc.ErrViolation", rpc.ErrViolation, errdefs.ErrViolation},
		{"rpc.ErrNotAllowed", rpc.ErrNotAllowed, errdefs.ErrNotAllowed},
		{"protocol.ErrUnknownMethod", protocol.ErrUnknownMethod, errdefs.ErrNotAllowed},
		{"rpc.ErrTooLarge", rpc.ErrTooLarge, errdefs.ErrTooLarge},
		{"frame.ErrTooLarge", frame.ErrTooLarge, errdefs.ErrTooLarge},
		{"registry.ErrRefused", registry.ErrRefused, errdefs.ErrRefused},
		{"plugins.ErrRefused", plugins.ErrRefused, errdefs.ErrRefused},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			if tc.got != tc.kind {
				t.Errorf("%s = %p (%v); want the errdefs value %p (%v)", tc.name, tc.got, tc.got, tc.kind, tc.kind)
			}
		})
	}
}

// TestRefinementsStayCases: a package's refinement of a kind matches the kind.
func TestRefinementsStayCases(t *testing.T) {
	_, err := protocol.ParseHostMessage([]byte(`{"jsonrpc":"2.0","method":"tool/list"}`), protocol.TierPlugin, nil)
	testCases := []struct {
		name string
		err  error
		kind error
	}{
		{"protocol.ErrInvalidMessage", protocol.ErrInvalidMessage, errdefs.ErrViolation},
		{"an unknown method", err, errdefs.ErrViolation},
		{"an unknown method is not allowed", err, errdefs.ErrNotAllowed},
		{"a refused registration", &registry.Refusal{Cause: registry.ErrNameTaken}, errdefs.ErrRefused},
		{"a refused package", &plugins.RefusalError{Source: "x", Reason: "y"}, errdefs.ErrRefused},
		{"a supervisor failure", &supervisor.FailureError{Err: errdefs.ErrViolation}, errdefs.ErrNotAvailable},
		{"a supervisor failure keeps its cause", &supervisor.FailureError{Err: errdefs.ErrViolation}, errdefs.ErrViolation},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			if !errors.Is(tc.err, tc.kind) {
				t.Errorf("errors.Is(%v, %v) = false; want true", tc.err, tc.kind)
			}
		})
	}
}
