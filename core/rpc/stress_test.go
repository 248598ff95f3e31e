package rpc

import (
	"context"
	"errors"
	"math/rand/v2"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/cwx-dev/cwx/core/protocol"
)

// stressPlan is what happens to one call of TestStressMixedOutcomes. The three times are
// apart from each other by construction (3, 6 and 9 ms past a multiple of 10 ms), so the
// first of them decides the outcome.
type stressPlan struct {
	answerAfter time.Duration // 0: the host never answers
	errAnswer   bool          // the answer is an error
	cancelAfter time.Duration // 0: the caller never cancels
	timeout     time.Duration
}

// want is the outcome the plan must give: "result", "error" (a RemoteError), "timeout" or
// "cancelled".
func (p stressPlan) want() string {
	never := time.Duration(1<<63 - 1)
	answer, cancel := never, never
	if p.answerAfter > 0 {
		answer = p.answerAfter
	}
	if p.cancelAfter > 0 {
		cancel = p.cancelAfter
	}
	switch {
	case answer < p.timeout && answer < cancel && p.errAnswer:
		return "error"
	case answer < p.timeout && answer < cancel:
		return "result"
	case p.timeout < cancel:
		return "timeout"
	}
	return "cancelled"
}

func outcomeOf(err error) string {
	var re *RemoteError
	switch {
	case err == nil:
		return "result"
	case errors.As(err, &re):
		return "error"
	case errors.Is(err, ErrTimeout):
		return "timeout"
	case errors.Is(err, ErrCancelled):
		return "cancelled"
	}
	return "unexpected: " + err.Error()
}

// stressPlans draws n plans from a fixed seed.
func stressPlans(n int) []stressPlan {
	rng := rand.New(rand.NewPCG(1, 2))
	ms := func(n int, past time.Duration) time.Duration { return time.Duration(n)*10*time.Millisecond + past }
	plans := make([]stressPlan, n)
	for i := range plans {
		p := stressPlan{timeout: 500*time.Millisecond + ms(rng.IntN(250), 9*time.Millisecond)}
		if rng.IntN(10) != 0 {
			p.answerAfter, p.errAnswer = ms(rng.IntN(300), 3*time.Millisecond), rng.IntN(4) == 0
		}
		if rng.IntN(4) == 0 {
			p.cancelAfter = ms(rng.IntN(200), 6*time.Millisecond)
		}
		plans[i] = p
	}
	return plans
}

// TestStressMixedOutcomes runs many concurrent calls that succeed, fail, time out, are
// cancelled or are answered late, each by a plan the host reads from the request, and
// checks that every call resolves with the outcome its plan gives, no answer is taken as a
// violation and every slot is freed.
func TestStressMixedOutcomes(t *testing.T) {
	const callers, perCaller = 16, 40
	plans := stressPlans(callers * perCaller)
	seen := map[string]int{}
	for _, p := range plans {
		seen[p.want()]++
	}
	for _, o := range []string{"result", "error", "timeout", "cancelled"} {
		if seen[o] == 0 {
			t.Fatalf("the plans give no %q outcome: %v", o, seen)
		}
	}
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t)
		var hostWG sync.WaitGroup
		hostDone := make(chan struct{})
		go func() { // the host: does what each request's plan says
			defer close(hostDone)
			for {
				var raw []byte
				select {
				case raw = <-r.conn.toHost:
				case <-r.conn.closed:
					return
				}
				id, isReq := requestID(raw)
				if !isReq {
					continue // $/cancel
				}
				var req struct {
					Params struct{ Plan int } `json:"params"`
				}
				if err := jsonUnmarshal(raw, &req); err != nil {
					t.Errorf("request %s: %v", raw, err)
					continue
				}
				p := plans[req.Params.Plan]
				if p.answerAfter == 0 {
					continue // a request the host never answers
				}
				hostWG.Add(1)
				go func() {
					defer hostWG.Done()
					time.Sleep(p.answerAfter)
					if p.errAnswer {
						r.host.trySendf(`{"jsonrpc":"2.0","id":%d,"error":{"code":-32000,"message":"boom"}}`, id)
						return
					}
					r.host.trySendf(`{"jsonrpc":"2.0","id":%d,"result":{}}`, id)
				}()
			}
		}()
		var wg sync.WaitGroup
		for c := range callers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for k := c * perCaller; k < (c+1)*perCaller; k++ {
					p := plans[k]
					ctx, cancel := context.WithCancel(context.Background())
					if p.cancelAfter > 0 {
						go func() { time.Sleep(p.cancelAfter); cancel() }()
					}
					_, err := r.peer.Call(ctx, protocol.MethodHostPing, map[string]int{"plan": k}, CallOpts{Timeout: p.timeout})
					cancel()
					if got, want := outcomeOf(err), p.want(); got != want {
						t.Errorf("call %d (%+v): %s, want %s", k, p, got, want)
					}
				}
			}()
		}
		wg.Wait()
		time.Sleep(5 * time.Second) // every grace and every late answer is over
		synctest.Wait()
		if err := r.peer.Err(); err != nil {
			t.Fatalf("the incarnation ended: %v", err)
		}
		if n := r.pendingCount(); n != 0 {
			t.Fatalf("%d slots still taken", n)
		}
		r.stop()
		hostWG.Wait()
		<-hostDone
	})
}

func requestID(p []byte) (uint64, bool) {
	var w struct {
		ID     *uint64 `json:"id"`
		Method string  `json:"method"`
	}
	if err := jsonUnmarshal(p, &w); err != nil || w.ID == nil || w.Method == "" {
		return 0, false
	}
	return *w.ID, true
}
