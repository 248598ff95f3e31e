package core

import (
	"context"
	"encoding/json"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/cwx-dev/cwx/core/gate"
	"github.com/cwx-dev/cwx/core/natives"
)

func newTestInvocation(ctx context.Context, d *pauseDeadline) *invocation {
	return &invocation{caller: gate.Caller{PluginID: "p", ClosureSHA256: "c", Tool: "t"}, deadline: d, ctx: ctx,
		slots: make(chan struct{}, MaxConcurrentCoreCalls), card: make(chan struct{}, 1), idle: make(chan struct{})}
}

// TestOneCardAtATimePerInvocation: a second call needing approval waits behind the first
// card, and the invocation's deadline stands still while either waits.
func TestOneCardAtATimePerInvocation(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var shown atomic.Int32
		release := make(chan struct{})
		ap := gate.ApproverFunc(func(ctx context.Context, _ gate.Card) (gate.Decision, error) {
			shown.Add(1)
			<-release
			return gate.AllowOnce, nil
		})
		m := &Manager{cc: coreCalls{gate: gate.New(gate.Ask, ap)}}
		expired := make(chan struct{})
		inv := newTestInvocation(t.Context(), startDeadline(nil, time.Second, func() { close(expired) }))
		defer inv.deadline.stop()
		spec := natives.Spec{Name: "shell", Forced: true}
		done := make(chan string, 2)
		for range 2 {
			go func() {
				d, _ := m.cc.approve(t.Context(), inv, coreCallRequest(inv, spec, json.RawMessage(`{"command":"ls"}`)))
				done <- d
			}()
		}
		synctest.Wait()
		if n := shown.Load(); n != 1 {
			t.Fatalf("%d cards shown at once; want 1", n)
		}
		time.Sleep(time.Hour) // the bubble's clock: a person takes an hour
		select {
		case <-expired:
			t.Fatal("the deadline ran while a card waited")
		default:
		}
		release <- struct{}{}
		synctest.Wait()
		if n := shown.Load(); n != 2 {
			t.Fatalf("after the first decision %d cards shown; want 2", n)
		}
		release <- struct{}{}
		for range 2 {
			if d := <-done; d != string(gate.ByApprover) {
				t.Fatalf("decision %q", d)
			}
		}
		time.Sleep(time.Second) // no card: the deadline runs again
		synctest.Wait()
		select {
		case <-expired:
		default:
			t.Fatal("the deadline did not expire once no card waited")
		}
	})
}

func TestPauseDeadline(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		fired := make(chan struct{}, 1)
		d := startDeadline(nil, 10*time.Second, func() { fired <- struct{}{} })
		time.Sleep(4 * time.Second)
		resume := d.pause()
		inner := d.pause() // pauses nest
		time.Sleep(time.Hour)
		resume()
		resume() // idempotent
		time.Sleep(time.Hour)
		inner()
		time.Sleep(6*time.Second - time.Nanosecond)
		synctest.Wait()
		if len(fired) != 0 {
			t.Fatal("expired before 10 s of running time")
		}
		time.Sleep(time.Nanosecond)
		synctest.Wait()
		if len(fired) != 1 {
			t.Fatal("not expired after 10 s of running time")
		}
		d.stop()
	})
}
