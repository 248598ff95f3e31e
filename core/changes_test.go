package core

import (
	"context"
	"testing"
	"time"
)

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
