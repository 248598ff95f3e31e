package core

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/cwx-dev/cwx/core/owners"
	"github.com/cwx-dev/cwx/core/protocol"
)

// The deadline's error is built lazily; its text and its match must stay those of the
// fmt.Errorf it replaces.
func TestDeadlineErrorText(t *testing.T) {
	for _, tc := range []struct {
		method string
		after  time.Duration
	}{
		{protocol.MethodToolCall, ToolCallDeadline},
		{protocol.MethodCommandRun, CommandRunDeadline},
		{protocol.MethodToolCall, 1500 * time.Millisecond},
	} {
		err := error(&deadlineError{method: tc.method, after: tc.after})
		want := fmt.Errorf("%w: %s after %s", ErrTimeout, tc.method, tc.after)
		if err.Error() != want.Error() {
			t.Errorf("text %q; want %q", err, want)
		}
		if !errors.Is(err, ErrTimeout) || !errors.Is(fmt.Errorf("tool %q: %w", "x", err), err) {
			t.Errorf("%v does not match ErrTimeout and itself", err)
		}
	}
}

// finish returns the receipts at once when no core/call is being served, and waits
// for one that is until it leaves.
func TestEndInvocationWaitsForServedCoreCalls(t *testing.T) {
	cancelled := make(chan error, 2)
	cancel := func(err error) { cancelled <- err }

	quiet := &invocation{idle: make(chan struct{})}
	quiet.record(CoreCallReceipt{Name: "a", Status: "ok"})
	if got := quiet.finish(cancel); len(got) != 1 || got[0].Name != "a" {
		t.Fatalf("receipts %+v; want the one recorded", got)
	}
	if err := <-cancelled; !errors.Is(err, errInvocationEnded) {
		t.Fatalf("cancelled with %v; want errInvocationEnded", err)
	}

	busy := &invocation{idle: make(chan struct{})}
	if !busy.enter() {
		t.Fatal("enter refused before the end")
	}
	done := make(chan []CoreCallReceipt)
	go func() { done <- busy.finish(cancel) }()
	<-cancelled // ended and cancelled, still waiting for the core/call being served
	busy.record(CoreCallReceipt{Name: "b", Status: "cancelled"})
	busy.leave()
	if got := <-done; len(got) != 1 || got[0].Name != "b" {
		t.Fatalf("receipts %+v; want the served call's", got)
	}
}

func TestEndsWith(t *testing.T) {
	why := errors.New("the owner ended")
	end, endCancel := context.WithCancelCause(context.Background())
	ctx, stop := owners.EndsWith(context.Background(), end)
	defer stop()
	endCancel(why)
	<-ctx.Done()
	if got := context.Cause(ctx); got != why {
		t.Fatalf("cause = %v; want the end's cause", got)
	}

	parent, parentCancel := context.WithCancel(context.Background())
	ctx2, stop2 := owners.EndsWith(parent, context.Background())
	parentCancel()
	<-ctx2.Done()
	stop2()
	if !errors.Is(context.Cause(ctx2), context.Canceled) {
		t.Fatalf("cause = %v; want the parent's", context.Cause(ctx2))
	}

	ctx3, stop3 := owners.EndsWith(context.Background(), context.Background())
	stop3()
	if ctx3.Err() == nil {
		t.Fatal("stop did not release the context")
	}
}
