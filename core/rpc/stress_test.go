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

// TestStressMixedOutcomes runs many concurrent calls that succeed, fail, time out, are
// cancelled or are answered late, and checks that every call resolves with an allowed
// outcome, no answer is taken as a violation and every slot is freed.
func TestStressMixedOutcomes(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t)
		var hostWG sync.WaitGroup
		hostDone := make(chan struct{})
		go func() { // the host: answers each request after a random delay, or never
			defer close(hostDone)
			rng := rand.New(rand.NewPCG(1, 2))
			for {
				var p []byte
				select {
				case p = <-r.conn.toHost:
				case <-r.conn.closed:
					return
				}
				id, isReq := requestID(p)
				if !isReq || rng.IntN(10) == 0 {
					continue // $/cancel, or a request the host never answers
				}
				delay := time.Duration(rng.IntN(3000)) * time.Millisecond
				errAnswer := rng.IntN(4) == 0
				hostWG.Add(1)
				go func() {
					defer hostWG.Done()
					time.Sleep(delay)
					if errAnswer {
						r.host.trySendf(`{"jsonrpc":"2.0","id":%d,"error":{"code":-32000,"message":"boom"}}`, id)
						return
					}
					r.host.trySendf(`{"jsonrpc":"2.0","id":%d,"result":{}}`, id)
				}()
			}
		}()
		var callers sync.WaitGroup
		for c := range 16 {
			callers.Add(1)
			go func() {
				defer callers.Done()
				rng := rand.New(rand.NewPCG(uint64(c), 7))
				for range 40 {
					ctx, cancel := context.WithCancel(context.Background())
					if rng.IntN(4) == 0 {
						after := time.Duration(rng.IntN(2000)) * time.Millisecond
						go func() { time.Sleep(after); cancel() }()
					}
					o := CallOpts{Timeout: time.Duration(500+rng.IntN(2500)) * time.Millisecond}
					_, err := r.peer.Call(ctx, protocol.MethodHostPing, nil, o)
					cancel()
					var re *RemoteError
					switch {
					case err == nil, errors.As(err, &re), errors.Is(err, ErrTimeout), errors.Is(err, ErrCancelled):
					default:
						t.Errorf("unexpected outcome %v", err)
					}
				}
			}()
		}
		callers.Wait()
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

// requestID extracts the id of a core request (not of a notification).
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
