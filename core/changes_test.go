package core

import (
	"context"
	"testing"
	"time"
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
func recv(t *testing.T, c <-chan Change, what string) Change {
	t.Helper()
	select {
	case ch, ok := <-c:
		if !ok {
			t.Fatalf("%s: the feed closed", what)
		}
		return ch
	case <-time.After(5 * time.Second):
		t.Fatalf("%s: no Change", what)
	}
	return Change{}
}

// TestManagerChanges: activation and a host's exit each change the catalog; the feed
// closes when its context ends and when the Manager closes.
func TestManagerChanges(t *testing.T) {
	m, ft, _ := newFake(t, twoPlugins, "tool", "command")
	ctx, cancel := context.WithCancel(context.Background())
	c := m.Changes(ctx)
	reconcile(t, m)
	first := recv(t, c, "activation")
	waitFor(t, "both plugins listed", func() bool { return hasTool(m, "alpha") && hasTool(m, "beta") })
	ft.kill(nil)
	after := recv(t, c, "host exit")
	if after.Generation <= first.Generation || m.CatalogGeneration() < after.Generation {
		t.Errorf("generations %d then %d (catalog %d): want growing", first.Generation, after.Generation, m.CatalogGeneration())
	}
	cancel()
	for range c { // drained, then closed
	}

	open := m.Changes(context.Background())
	if err := m.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	for range open {
	}
	if _, ok := <-m.Changes(context.Background()); ok {
		t.Error("a feed opened after Close delivered a value")
	}
}
