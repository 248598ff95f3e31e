package core

import (
	"context"
	"strings"
	"testing"

	"github.com/cwx-dev/cwx/core/gate"
)

// TestToolGrantThroughTheManager: AllowToolForSession covers the next call of the tool with
// another input, not another plugin's tool, and not a new build of the plugin (another
// closure hash, reviewed and trusted again).
func TestToolGrantThroughTheManager(t *testing.T) {
	m, _, e := newFake(t, twoPlugins, "tool", "command")
	a := &approver{d: AllowToolForSession}
	m.gate = gate.New(gate.Ask, nil)
	reconcile(t, m)
	ctx := context.Background()
	for _, in := range []string{`{"n":1}`, `{"n":2}`, `{"n":3}`} {
		if _, err := m.CallTool(ctx, "alpha", input(in), CallOptions{Approver: a}); err != nil {
			t.Fatal(err)
		}
	}
	if k := a.cards[0].ToolKey; a.asked() != 1 || !strings.HasPrefix(k, "tool:ext:fixture-tool@") || !strings.HasSuffix(k, ":alpha") {
		t.Fatalf("asked %d times (want 1), card %+v", a.asked(), a.cards[0])
	}
	if _, err := m.CallTool(ctx, "beta", input(`{"n":1}`), CallOptions{Approver: a}); err != nil {
		t.Fatal(err)
	}
	if a.asked() != 2 {
		t.Fatalf("another plugin's tool was covered: asked %d times", a.asked())
	}

	e.installNewBuild("tool")
	rev, err := e.store.Review("fixture-tool")
	if err != nil {
		t.Fatal(err)
	}
	if err := e.store.Trust("fixture-tool", rev.Token); err != nil {
		t.Fatal(err)
	}
	reconcile(t, m)
	if _, err := m.CallTool(ctx, "alpha", input(`{"n":4}`), CallOptions{Approver: a}); err != nil {
		t.Fatal(err)
	}
	if a.asked() != 3 || a.cards[2].ToolKey != gate.ToolKey("fixture-tool", rev.Closure, "alpha") || a.cards[2].ToolKey == a.cards[0].ToolKey {
		t.Fatalf("a new build of the plugin was covered: asked %d times, tool keys %q, %q", a.asked(), a.cards[0].ToolKey, a.cards[len(a.cards)-1].ToolKey)
	}
}
