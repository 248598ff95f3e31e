package cli

import (
	"context"
	"strings"
	"testing"

	"github.com/cwx-dev/cwx/core"
)

// claimingCore is a fakeCore whose claim table gives `gone_tool` to a plugin whose
// activation failed.
type claimingCore struct{ *fakeCore }

func (c claimingCore) NotLive(kind, name string) error {
	if name != "gone_tool" {
		return &core.NotLiveError{Kind: kind, Name: name}
	}
	return &core.NotLiveError{Kind: kind, Name: name, Plugin: "hello-extension", Why: "whose activation failed: \x1b[31mboom\x1b[0m", Failed: true}
}

// TestNotLiveNamesWhoseItIs: a tool that is not live but claimed says whose it is and why,
// with the plugin's text made inert, and exits 6 when that plugin's code failed (its
// activation); an unclaimed one keeps the general advice and exits 5.
func TestNotLiveNamesWhoseItIs(t *testing.T) {
	f := newFakeCore()
	f.tools = demoTools()
	useFake(t, f)
	old := openCore
	openCore = func(ctx context.Context, o core.Options) (liveCore, error) {
		lc, err := old(ctx, o)
		return claimingCore{lc.(*fakeCore)}, err
	}
	t.Cleanup(func() { openCore = old })
	r := runPluginCLI(t, "tool", "call", "gone_tool")
	want := "no live tool \"gone_tool\": it belongs to plugin `hello-extension`, whose activation failed: boom (see `cwx plugin show hello-extension`)"
	if r.code != ExitPlugin || !strings.Contains(r.stderr, want) || strings.ContainsRune(r.stderr, 0x1b) {
		t.Fatalf("exit %d, stderr %q, want %q", r.code, r.stderr, want)
	}
	r = runPluginCLI(t, "tool", "call", "nope")
	if r.code != ExitUnavailable || !strings.Contains(r.stderr, `no live tool "nope": run `) {
		t.Fatalf("unclaimed: exit %d, stderr %q", r.code, r.stderr)
	}
}
