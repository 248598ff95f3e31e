package core

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/cwx-dev/cwx/core/owners"
	"github.com/cwx-dev/cwx/core/protocol"
	"github.com/cwx-dev/cwx/core/rpc"
)

// TestCallErrorMapping: every peer outcome becomes one of the Manager's typed errors.
func TestCallErrorMapping(t *testing.T) {
	live := context.Background()
	revoked, cancel := context.WithCancelCause(context.Background())
	cancel(&owners.EndCause{Kind: ErrCancelled, Msg: "extension was revoked"})
	faulted, cancel2 := context.WithCancelCause(context.Background())
	cancel2(&owners.EndCause{Kind: ErrNotAvailable, Msg: "extension faulted: boom"})
	for _, c := range []struct {
		name string
		err  error
		ctx  context.Context
		want []error
		not  []error
	}{
		{"timeout", fmt.Errorf("%w: tool/call after 120s", rpc.ErrTimeout), live, []error{ErrTimeout}, []error{ErrCancelled}},
		{"busy", rpc.ErrBusy, live, []error{ErrNotAvailable, ErrBusy}, []error{ErrHostExited}},
		{"host exited", fmt.Errorf("%w: killed", rpc.ErrHostExited), live, []error{ErrNotAvailable, ErrHostExited}, nil},
		{"caller cancelled", fmt.Errorf("%w: %w", rpc.ErrCancelled, context.Canceled), live, []error{ErrCancelled}, nil},
		{"revoked", fmt.Errorf("%w: x", rpc.ErrCancelled), revoked, []error{ErrCancelled}, []error{ErrNotAvailable}},
		{"faulted", fmt.Errorf("%w: x", rpc.ErrCancelled), faulted, []error{ErrNotAvailable}, []error{ErrCancelled}},
		{"plugin threw", &rpc.RemoteError{Method: "tool/call", Code: protocol.CodeExecutionFailed, Message: "TypeError: x"}, live, []error{ErrExecutionFailed}, nil},
		{"host not available", &rpc.RemoteError{Code: protocol.CodeNotAvailable, Message: "handle 3 is not live"}, live, []error{ErrNotAvailable}, nil},
		{"host cancelled", &rpc.RemoteError{Code: protocol.CodeCancelled, Message: "cancelled"}, live, []error{ErrCancelled}, nil},
		{"host invalid params", &rpc.RemoteError{Code: protocol.CodeInvalidParams, Message: "bad"}, live, []error{ErrInvalidInput}, nil},
		{"host internal", &rpc.RemoteError{Code: protocol.CodeInternal, Message: "oops"}, live, []error{ErrExecutionFailed}, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := callError("tool", "x", c.err, c.ctx)
			for _, w := range c.want {
				if !errors.Is(got, w) {
					t.Errorf("%v does not match %v", got, w)
				}
			}
			for _, w := range c.not {
				if errors.Is(got, w) {
					t.Errorf("%v matches %v", got, w)
				}
			}
		})
	}
	var ee *ExecutionError
	if err := callError("tool", "x", &rpc.RemoteError{Code: protocol.CodeExecutionFailed, Message: "TypeError: x"}, live); !errors.As(err, &ee) || ee.Message != "TypeError: x" {
		t.Fatalf("plugin message lost: %v", err)
	}
}
