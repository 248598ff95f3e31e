package owners

import (
	"testing"
)

// TestChangeFeedCoalesces: a subscriber that does not read keeps one Change, the newest.
func TestChangeFeedCoalesces(t *testing.T) {
	f := &changeFeed{}
	c := f.subscribe()
	for range 5 {
		f.notify()
	}
	if got := <-c; got.Generation != 5 || f.generation() != 5 {
		t.Fatalf("got %+v (generation %d), want the newest, 5", got, f.generation())
	}
	select {
	case extra := <-c:
		t.Fatalf("a second value %+v for coalesced changes", extra)
	default:
	}
	f.unsubscribe(c)
	f.notify() // nothing to send to, nothing blocks
	if _, ok := <-c; ok {
		t.Fatal("the channel stayed open after unsubscribe")
	}
}

// recv waits for the next Change.
