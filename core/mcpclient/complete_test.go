package mcpclient

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cwx-dev/cwx/core/errdefs"
)

// TestComplete: completion/complete reaches the server's prompt argument (the values as it
// gave them: the gateway strips them), and a server that announced no completions offers
// none without an error.
func TestComplete(t *testing.T) {
	_, srv, _ := testSet(t, "tools", nil, Options{})
	c, err := srv.Complete(context.Background(), CompleteRequest{Prompt: "greet", Argument: "who", Value: "A"})
	if err != nil || !slices.Equal(c.Values, []string{"Ada", "Alan", "Al\x1b[31mice"}) || c.Total != 3 || c.HasMore {
		t.Fatalf("complete greet's who from A: %+v, %v", c, err)
	}
	_, sample, _ := testSet(t, "sample", nil, Options{})
	if c, err := sample.Complete(context.Background(), CompleteRequest{Prompt: "greet", Argument: "who"}); err != nil || len(c.Values) != 0 {
		t.Fatalf("a server without completions: %+v, %v", c, err)
	}
}

// TestSubscribeAcrossRestarts: a subscription reaches the server, its updates reach
// Set.WatchResources, a new generation after a crash is subscribed again, and Unsubscribe
// ends it at the server.
func TestSubscribeAcrossRestarts(t *testing.T) {
	set, srv, _ := testSet(t, "tools", nil, Options{})
	updates := make(chan string, 16)
	stop := set.WatchResources(func(server, uri string) { updates <- server + " " + uri })
	defer stop()
	ctx := context.Background()
	if err := srv.Subscribe(ctx, "test://readme"); err != nil {
		t.Fatal(err)
	}
	subscribed := func(want string) {
		t.Helper()
		waitFor(t, func() bool { return text(t, srv, "subscribed", `{}`) == want }, "the server's subscriptions to be "+want)
	}
	touched := func() {
		t.Helper()
		if got := text(t, srv, "touch", `{}`); got != "touched" {
			t.Fatalf("touch: %q", got)
		}
		select {
		case u := <-updates:
			if u != "t test://readme" {
				t.Fatalf("update %q, want t test://readme", u)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("no notifications/resources/updated reached WatchResources")
		}
	}
	subscribed("test://readme")
	touched()

	if _, err := srv.Call(ctx, "crash", json.RawMessage(`{}`), nil); err == nil {
		t.Fatal("a call whose server died succeeded")
	}
	waitFor(t, func() bool { return srv.Status().State == StateCrashed }, "the crash to be seen")
	subscribed("test://readme") // the call restarts it, and the start subscribes again
	touched()

	stop() // the server still sends; nothing is passed on
	text(t, srv, "touch", `{}`)
	select {
	case u := <-updates:
		t.Fatalf("an update after stop: %s", u)
	case <-time.After(100 * time.Millisecond):
	}
	if err := srv.Unsubscribe(ctx, "test://readme"); err != nil {
		t.Fatal(err)
	}
	subscribed("")
	if got := srv.Subscriptions(); len(got) != 0 {
		t.Fatalf("subscriptions after Unsubscribe: %v", got)
	}

	_, sample, _ := testSet(t, "sample", nil, Options{})
	if err := sample.Subscribe(ctx, "test://readme"); !errors.Is(err, errdefs.ErrRefused) {
		t.Fatalf("subscribe at a server without subscriptions: %v, want refused", err)
	}
}

// TestSubscriptionsBounded: at most MaxSubscriptions resources of one server are subscribed
// to at once; one more is refused by name, one already held is not.
func TestSubscriptionsBounded(t *testing.T) {
	_, srv, _ := testSet(t, "tools", nil, Options{})
	ctx := context.Background()
	for i := range MaxSubscriptions {
		if err := srv.Subscribe(ctx, fmt.Sprintf("test://items/%d", i)); err != nil {
			t.Fatalf("subscription %d: %v", i+1, err)
		}
	}
	if err := srv.Subscribe(ctx, "test://items/more"); !errors.Is(err, errdefs.ErrRefused) || !strings.Contains(err.Error(), "the most cwx keeps") {
		t.Fatalf("subscription %d: %v; want refused", MaxSubscriptions+1, err)
	}
	if err := srv.Subscribe(ctx, "test://items/0"); err != nil {
		t.Fatalf("a subscription already held: %v", err)
	}
}
