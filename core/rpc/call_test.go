package rpc

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/cwx-dev/cwx/core/protocol"
)

func TestCallRoundTripAndIDsFromOne(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t)
		for want := uint64(1); want <= 3; want++ {
			out := r.callAsync(t.Context(), protocol.MethodHostPing, pingParams, CallOpts{})
			w := r.host.read()
			if w.ID == nil || *w.ID != want || w.Method != protocol.MethodHostPing {
				t.Fatalf("request %d: got id %v method %q", want, w.ID, w.Method)
			}
			r.host.answer(want, `{}`)
			o := <-out
			if o.err != nil || o.msg.Kind != protocol.KindResponse || o.msg.Method != protocol.MethodHostPing || string(o.msg.Result) != "{}" {
				t.Fatalf("call %d: %+v, %v", want, o.msg, o.err)
			}
		}
		if n := r.pendingCount(); n != 0 {
			t.Fatalf("pending after answers = %d", n)
		}
		r.stop()
	})
}

func TestIDsRestartPerIncarnation(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		for range 2 {
			r := newRig(t)
			out := r.callAsync(t.Context(), protocol.MethodHostPing, nil, CallOpts{})
			if w := r.host.read(); *w.ID != 1 {
				t.Fatalf("first id of a new incarnation = %d, want 1", *w.ID)
			}
			r.host.answer(1, `{}`)
			<-out
			r.stop()
		}
	})
}

func TestRemoteErrorAnswer(t *testing.T) {
	cases := []struct {
		code                 int
		cancelled, available bool
	}{
		{protocol.CodeExecutionFailed, false, false},
		{protocol.CodeCancelled, true, false},
		{protocol.CodeNotAvailable, false, true},
	}
	for _, tc := range cases {
		synctest.Test(t, func(t *testing.T) {
			r := newRig(t)
			out := r.callAsync(t.Context(), protocol.MethodHostPing, nil, CallOpts{})
			w := r.host.read()
			r.host.send(`{"jsonrpc":"2.0","id":%d,"error":{"code":%d,"message":"boom"}}`, *w.ID, tc.code)
			o := <-out
			var re *RemoteError
			if !errors.As(o.err, &re) || re.Code != tc.code || re.Message != "boom" || re.Method != protocol.MethodHostPing {
				t.Fatalf("code %d: err = %v", tc.code, o.err)
			}
			if errors.Is(o.err, ErrCancelled) != tc.cancelled || errors.Is(o.err, ErrNotAvailable) != tc.available {
				t.Fatalf("code %d: Is(ErrCancelled)=%v Is(ErrNotAvailable)=%v", tc.code, errors.Is(o.err, ErrCancelled), errors.Is(o.err, ErrNotAvailable))
			}
			r.stop()
		})
	}
}

func TestNotAllowedMethodsAreNotSent(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t)
		calls := []string{
			protocol.MethodHarnessRun, // builtin tier only
			protocol.MethodHostHello,  // host→core
			protocol.MethodCancel,     // a notification
			"approval/respond",        // not in the table
		}
		for _, m := range calls {
			if _, err := r.peer.Call(t.Context(), m, nil, CallOpts{}); !errors.Is(err, ErrNotAllowed) {
				t.Errorf("Call(%s) = %v, want ErrNotAllowed", m, err)
			}
		}
		if err := r.peer.Notify(protocol.MethodToolCall, nil); !errors.Is(err, ErrNotAllowed) {
			t.Errorf("Notify(tool/call) = %v, want ErrNotAllowed", err)
		}
		if err := r.peer.Notify(protocol.MethodLog, nil); !errors.Is(err, ErrNotAllowed) {
			t.Errorf("Notify(log) = %v, want ErrNotAllowed", err)
		}
		synctest.Wait()
		select {
		case p := <-r.conn.toHost:
			t.Fatalf("a refused method reached the host: %s", p)
		default:
		}
		if got := r.peer.nextID.Load(); got != 0 {
			t.Fatalf("refused calls consumed ids: next id counter = %d", got)
		}
		r.stop()
	})
}

func TestPendingLimitWithHeartbeatSlot(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t)
		ctx, cancel := context.WithCancel(t.Context())
		outs := make([]<-chan outcome, 0, MaxPending)
		for range MaxPending {
			outs = append(outs, r.callAsync(ctx, protocol.MethodHostPing, nil, CallOpts{}))
			r.host.read()
		}
		if _, err := r.peer.Call(t.Context(), protocol.MethodHostPing, nil, CallOpts{}); !errors.Is(err, ErrBusy) || !errors.Is(err, ErrNotAvailable) {
			t.Fatalf("call %d = %v, want ErrBusy (a case of ErrNotAvailable)", MaxPending+1, err)
		}
		hb := r.callAsync(t.Context(), protocol.MethodHostPing, nil, CallOpts{Heartbeat: true})
		w := r.host.read()
		if st := r.peer.Stats(); st.Pending != MaxPending || !st.Heartbeat || st.Queued != 0 {
			t.Fatalf("stats %+v", st)
		}
		if _, err := r.peer.Call(t.Context(), protocol.MethodHostPing, nil, CallOpts{Heartbeat: true}); !errors.Is(err, ErrBusy) {
			t.Fatalf("second heartbeat = %v, want ErrBusy", err)
		}
		r.host.answer(*w.ID, `{}`)
		if o := <-hb; o.err != nil {
			t.Fatalf("heartbeat: %v", o.err)
		}
		// Answering one ordinary call frees one slot.
		r.host.answer(1, `{}`)
		if o := <-outs[0]; o.err != nil {
			t.Fatal(o.err)
		}
		next := r.callAsync(t.Context(), protocol.MethodHostPing, nil, CallOpts{})
		w = r.host.read()
		r.host.answer(*w.ID, `{}`)
		if o := <-next; o.err != nil {
			t.Fatalf("call after a slot was freed: %v", o.err)
		}
		cancel()
		for range MaxPending - 1 {
			r.host.read() // the $/cancel of each
		}
		r.stop()
		for _, out := range outs[1:] {
			<-out
		}
	})
}

func TestFullQueueAnswersBusy(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t)
		// The host reads nothing: the writer holds one frame in Send, the queue holds 128.
		if err := r.peer.Notify(protocol.MethodCancel, &protocol.CancelParams{ID: 9}); err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		for i := range QueueSize {
			if err := r.peer.Notify(protocol.MethodCancel, &protocol.CancelParams{ID: 9}); err != nil {
				t.Fatalf("notify %d: %v", i, err)
			}
		}
		if err := r.peer.Notify(protocol.MethodCancel, &protocol.CancelParams{ID: 9}); !errors.Is(err, ErrBusy) || !errors.Is(err, ErrNotAvailable) {
			t.Fatalf("notify into a full queue = %v, want ErrBusy", err)
		}
		start := time.Now()
		_, err := r.peer.Call(t.Context(), protocol.MethodHostPing, nil, CallOpts{})
		if !errors.Is(err, ErrBusy) || time.Since(start) != 0 {
			t.Fatalf("call into a full queue = %v after %v, want ErrBusy at once", err, time.Since(start))
		}
		if n := r.pendingCount(); n != 0 {
			t.Fatalf("a refused call kept its slot: pending = %d", n)
		}
		r.stop()
	})
}

func TestDeadlineSendsCancelAndTimesOut(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t)
		start := time.Now()
		out := r.callAsync(t.Context(), protocol.MethodToolCall, toolCall(), CallOpts{Timeout: 2 * time.Second})
		w := r.host.read()
		cancelFrame := r.host.read() // blocks until the deadline
		o := <-out
		if !errors.Is(o.err, ErrTimeout) || !strings.Contains(o.err.Error(), "tool/call") {
			t.Fatalf("err = %v, want ErrTimeout", o.err)
		}
		if d := o.at.Sub(start); d != 2*time.Second {
			t.Fatalf("resolved after %v, want exactly 2s", d)
		}
		if cancelFrame.Method != protocol.MethodCancel || string(cancelFrame.Params) != `{"id":`+itoa(*w.ID)+`}` {
			t.Fatalf("after the deadline the host got %s %s, want $/cancel of %d", cancelFrame.Method, cancelFrame.Params, *w.ID)
		}
		// The slot is kept for the grace, then freed.
		time.Sleep(CancelGrace - time.Millisecond)
		if n := r.pendingCount(); n != 1 {
			t.Fatalf("pending during the grace = %d, want 1", n)
		}
		time.Sleep(time.Millisecond)
		synctest.Wait()
		if n := r.pendingCount(); n != 0 {
			t.Fatalf("pending after the grace = %d, want 0", n)
		}
		// A late answer is dropped and logged, not a violation.
		r.host.send(`{"jsonrpc":"2.0","id":%d,"result":{"content":[],"is_error":false}}`, *w.ID)
		synctest.Wait()
		if r.peer.Err() != nil {
			t.Fatalf("a late answer ended the incarnation: %v", r.peer.Err())
		}
		if r.logs.count("late answer dropped") != 1 {
			t.Fatalf("late answer not logged:\n%s", r.logs)
		}
		r.stop()
	})
}

func TestLateAnswerWithinGraceIsDropped(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t)
		out := r.callAsync(t.Context(), protocol.MethodHostPing, nil, CallOpts{Timeout: time.Second})
		w := r.host.read()
		r.host.read() // $/cancel
		if o := <-out; !errors.Is(o.err, ErrTimeout) {
			t.Fatalf("err = %v", o.err)
		}
		time.Sleep(100 * time.Millisecond)
		r.host.answer(*w.ID, `{}`)
		synctest.Wait()
		if n := r.pendingCount(); n != 0 {
			t.Fatalf("the answer did not free the slot: pending = %d", n)
		}
		if r.logs.count("late answer dropped") != 1 || r.peer.Err() != nil {
			t.Fatalf("err %v, logs:\n%s", r.peer.Err(), r.logs)
		}
		r.stop()
	})
}

func TestCallerCancelWaitsForAnswerWithinGrace(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t)
		revoked := errors.New("extension was revoked")
		ctx, cancel := context.WithCancelCause(t.Context())
		out := r.callAsync(ctx, protocol.MethodToolCall, toolCall(), CallOpts{Timeout: time.Minute})
		w := r.host.read()
		cancel(revoked)
		c := r.host.read()
		if c.Method != protocol.MethodCancel || string(c.Params) != `{"id":`+itoa(*w.ID)+`}` {
			t.Fatalf("host got %s %s, want $/cancel", c.Method, c.Params)
		}
		time.Sleep(200 * time.Millisecond)
		synctest.Wait()
		select {
		case o := <-out:
			t.Fatalf("resolved before the host answered or the grace ended: %v", o.err)
		default:
		}
		start := time.Now()
		r.host.send(`{"jsonrpc":"2.0","id":%d,"error":{"code":-32800,"message":"cancelled"}}`, *w.ID)
		o := <-out
		if !errors.Is(o.err, ErrCancelled) || !errors.Is(o.err, revoked) {
			t.Fatalf("err = %v, want ErrCancelled carrying the cause", o.err)
		}
		if o.at.Sub(start) != 0 {
			t.Fatalf("resolved %v after the answer", o.at.Sub(start))
		}
		r.stop()
	})
}

func TestCallerCancelResolvesAtGraceWithoutAnswer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t)
		ctx, cancel := context.WithCancel(t.Context())
		out := r.callAsync(ctx, protocol.MethodToolCall, toolCall(), CallOpts{})
		r.host.read()
		start := time.Now()
		cancel()
		r.host.read() // $/cancel
		o := <-out
		if !errors.Is(o.err, ErrCancelled) || !errors.Is(o.err, context.Canceled) {
			t.Fatalf("err = %v", o.err)
		}
		if d := o.at.Sub(start); d != CancelGrace {
			t.Fatalf("resolved after %v, want exactly %v", d, CancelGrace)
		}
		if n := r.pendingCount(); n != 0 {
			t.Fatalf("pending after the grace = %d", n)
		}
		r.stop()
	})
}

func TestRequestCancelledBeforeSendIsNeverSent(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t)
		first := r.callAsync(t.Context(), protocol.MethodHostPing, nil, CallOpts{})
		synctest.Wait() // the writer is blocked handing the first request to the host
		ctx, cancel := context.WithCancel(t.Context())
		second := r.callAsync(ctx, protocol.MethodHostPing, nil, CallOpts{})
		synctest.Wait()
		cancel()
		o := <-second
		if !errors.Is(o.err, ErrCancelled) {
			t.Fatalf("err = %v", o.err)
		}
		w := r.host.read()
		if *w.ID != 1 {
			t.Fatalf("first frame id = %d", *w.ID)
		}
		r.host.answer(1, `{}`)
		<-first
		synctest.Wait()
		select {
		case p := <-r.conn.toHost:
			t.Fatalf("the cancelled request (or its $/cancel) reached the host: %s", p)
		default:
		}
		if n := r.pendingCount(); n != 0 {
			t.Fatalf("pending = %d", n)
		}
		r.stop()
	})
}

func TestTimeoutBeforeSendIsNeverSent(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t)
		first := r.callAsync(t.Context(), protocol.MethodHostPing, nil, CallOpts{})
		synctest.Wait()
		second := r.callAsync(t.Context(), protocol.MethodHostPing, nil, CallOpts{Timeout: time.Second})
		if o := <-second; !errors.Is(o.err, ErrTimeout) {
			t.Fatalf("err = %v", o.err)
		}
		r.host.read()
		r.host.answer(1, `{}`)
		<-first
		synctest.Wait()
		select {
		case p := <-r.conn.toHost:
			t.Fatalf("the timed-out request reached the host: %s", p)
		default:
		}
		r.stop()
	})
}

func TestAnswerToUnsentIDIsViolation(t *testing.T) {
	for _, id := range []string{"0", "7"} {
		synctest.Test(t, func(t *testing.T) {
			r := newRig(t)
			r.host.send(`{"jsonrpc":"2.0","id":%s,"result":{}}`, id)
			err := r.wait()
			if !errors.Is(err, ErrViolation) || !strings.Contains(err.Error(), "never sent") {
				t.Fatalf("id %s: Run = %v", id, err)
			}
		})
	}
}

func TestDuplicateAnswerIsDroppedAndLogged(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t)
		out := r.callAsync(t.Context(), protocol.MethodHostPing, nil, CallOpts{})
		r.host.read()
		r.host.answer(1, `{}`)
		<-out
		r.host.answer(1, `{}`)
		synctest.Wait()
		if r.peer.Err() != nil || r.logs.count("no longer in flight") != 1 {
			t.Fatalf("err %v logs:\n%s", r.peer.Err(), r.logs)
		}
		r.stop()
	})
}

func TestCallsAfterEndFailHostExited(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t)
		out := r.callAsync(t.Context(), protocol.MethodHostPing, nil, CallOpts{})
		r.host.read()
		r.conn.Close() // the stream ends
		o := <-out
		if !errors.Is(o.err, ErrHostExited) || !errors.Is(o.err, ErrNotAvailable) {
			t.Fatalf("pending call = %v, want ErrHostExited", o.err)
		}
		err := r.wait()
		if !errors.Is(err, ErrHostExited) {
			t.Fatalf("Run = %v", err)
		}
		if _, err := r.peer.Call(t.Context(), protocol.MethodHostPing, nil, CallOpts{}); !errors.Is(err, ErrHostExited) {
			t.Fatalf("call after the end = %v", err)
		}
		if err := r.peer.Notify(protocol.MethodCancel, &protocol.CancelParams{ID: 1}); !errors.Is(err, ErrHostExited) {
			t.Fatalf("notify after the end = %v", err)
		}
	})
}

func TestCallWithCancelledContextSendsNothing(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t)
		ctx, cancel := context.WithCancel(t.Context())
		cancel()
		if _, err := r.peer.Call(ctx, protocol.MethodHostPing, nil, CallOpts{}); !errors.Is(err, ErrCancelled) {
			t.Fatalf("err = %v", err)
		}
		synctest.Wait()
		select {
		case p := <-r.conn.toHost:
			t.Fatalf("sent %s", p)
		default:
		}
		r.stop()
	})
}

func toolCall() *protocol.ToolCallParams {
	return &protocol.ToolCallParams{Handle: 1, CallID: "c1", Input: []byte(`{}`), DeadlineMS: 120000}
}

func itoa(n uint64) string { return strconv.FormatUint(n, 10) }

func TestOversizeMessagesAreRefusedNotSent(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t, func(_ *Options, h *fakeHandler) {
			h.serveF = func(context.Context, *protocol.Message) (any, error) {
				return map[string]string{"big": strings.Repeat("x", protocol.MaxFrame)}, nil
			}
		})
		p := toolCall()
		p.Input = []byte(`"` + strings.Repeat("x", protocol.MaxFrame) + `"`)
		if _, err := r.peer.Call(t.Context(), protocol.MethodToolCall, p, CallOpts{}); !errors.Is(err, ErrTooLarge) {
			t.Fatalf("call = %v", err)
		}
		r.host.request(4, protocol.MethodRegistryUnregister, unregister)
		w := r.host.read()
		if w.Error == nil || w.Error.Code != protocol.CodeInvalidParams || !strings.Contains(w.Error.Message, "frame limit") {
			t.Fatalf("answer %+v", w.Error)
		}
		if r.peer.Err() != nil {
			t.Fatalf("the incarnation ended: %v", r.peer.Err())
		}
		r.stop()
	})
}
