package cli

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/cwx-dev/cwx/core"
	jsruntime "github.com/cwx-dev/cwx/core/runtime"
)

// failingCore is a fake whose Reconcile reports two enabled plugins that are not active,
// the way core.Manager joins them, and whose owners say the same.
func failingCore() *failingFake {
	f := &failingFake{fakeCore: newFakeCore()}
	f.tools = append(demoTools(), core.ToolInfo{Name: "cached_tool", PluginID: "slow", Origin: "extension:slow", Description: "From the catalog.", Cached: true})
	f.commands = demoCommands()
	f.reconcile = func(context.Context, *fakeCore) error {
		return errors.Join(
			&core.PluginError{Plugin: "bad-syntax", State: "failed", Reason: "index.mjs:7:13: SyntaxError: Unexpected token ';'\n  const x = ;\n            ^", Kind: core.ErrExecutionFailed},
			&core.PluginError{Plugin: "fixture-config", State: "failed", Reason: "config refused: unknown key `greting` (did you mean `greeting`?)\x1b[31m", Kind: core.ErrInvalidInput})
	}
	return f
}

type failingFake struct{ *fakeCore }

func (f *failingFake) Owners() []core.OwnerInfo {
	return []core.OwnerInfo{
		{PluginID: "bad-syntax", State: "failed", Reason: "index.mjs:7:13: SyntaxError: Unexpected token ';'"},
		{PluginID: "hello", State: "active", Activation: 42e6},
	}
}

func useFailing(t *testing.T) *failingFake {
	t.Helper()
	f := failingCore()
	useFake(t, f.fakeCore)
	old := openCore
	openCore = func(ctx context.Context, o core.Options) (liveCore, error) {
		if _, err := old(ctx, o); err != nil { // marks the fake opened
			return nil, err
		}
		return f, nil
	}
	t.Cleanup(func() { openCore = old })
	return f
}

// TestListsShowFailedPlugins: `tool list` and `command list` print the plugins that failed
// after their table, one line each (a multi-line diagnostic cut to its first line, escapes
// stripped), mark cached entries, and exit 6; --json keeps the array on stdout and puts the
// failures on stderr.
func TestListsShowFailedPlugins(t *testing.T) {
	for _, c := range []struct {
		golden string
		args   []string
	}{
		{"tool-list-failed.golden", []string{"tool", "list"}},
		{"tool-list-failed-json.golden", []string{"tool", "list", "--json"}},
		{"command-list-failed.golden", []string{"command", "list"}},
	} {
		t.Run(c.golden, func(t *testing.T) {
			useFailing(t)
			r := runPluginCLI(t, c.args...)
			if r.code != ExitPlugin {
				t.Fatalf("exit %d, want %d\n%s%s", r.code, ExitPlugin, r.stdout, r.stderr)
			}
			checkGolden(t, c.golden, []byte(r.stdout+"--- stderr\n"+r.stderr))
		})
	}
}

// TestListsWithoutFailures: with no failed plugin the listings exit 0, and a failure that is
// not a plugin's (no runtime) keeps its own exit status.
func TestListsWithoutFailures(t *testing.T) {
	f := newFakeCore()
	f.tools = demoTools()
	useFake(t, f)
	if r := runPluginCLI(t, "tool", "list"); r.code != ExitOK {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	f.reconcile = func(context.Context, *fakeCore) error {
		return errors.Join(&jsruntime.NoRuntimeError{}, &core.PluginError{Plugin: "x", State: "failed", Reason: "r", Kind: core.ErrExecutionFailed})
	}
	if r := runPluginCLI(t, "command", "list"); r.code != ExitUnavailable {
		t.Fatalf("exit %d, want %d: %s", r.code, ExitUnavailable, r.stderr)
	}
}

// TestNativeCallIgnoresPluginFailures: a native tool waits for every plugin's activation; a
// plugin that failed there does not fail the native call.
func TestNativeCallIgnoresPluginFailures(t *testing.T) {
	f := useFailing(t)
	f.tools = append(f.tools, builtinNatives()...)
	f.call = func(context.Context, string, json.RawMessage, core.CallOptions) (core.ToolResult, error) {
		return core.ToolResult{Content: []core.ContentBlock{{Type: "text", Text: "listed"}}}, nil
	}
	if r := runPluginCLI(t, "tool", "call", "list_dir", "--approve", "auto"); r.code != ExitOK || r.stdout != "listed\n" {
		t.Fatalf("native call with a failed plugin: %+v", r)
	}
}

// TestPluginListShowsFailed: `cwx plugin list` activates the enabled plugins and shows a
// failed one as failed, with its reason after the table; --json carries state and reason.
func TestPluginListShowsFailed(t *testing.T) {
	home := pluginHome(t)
	src := basicFixture(t)
	mustCLI(t, "plugin", "install", src)
	mustCLI(t, "plugin", "trust", "hello", "--token", reviewToken(t, "hello"))
	mustCLI(t, "plugin", "enable", "hello")
	f := &failingFake{fakeCore: newFakeCore()}
	f.reconcile = func(context.Context, *fakeCore) error {
		return &core.PluginError{Plugin: "hello", State: "failed", Reason: "apply threw: Error: no\x1b[2J (at index.mjs:3:9)", Kind: core.ErrExecutionFailed}
	}
	useFake(t, f.fakeCore)
	old := openCore
	openCore = func(ctx context.Context, o core.Options) (liveCore, error) { _, _ = old(ctx, o); return f, nil }
	t.Cleanup(func() { openCore = old })
	norm := func(s string) []byte { return []byte(normalize(s, home, "$CWX_HOME", src, "$SRC")) }
	checkGolden(t, "plugin-list-failed.golden", norm(mustCLI(t, "plugin", "list")))
	checkGolden(t, "plugin-list-failed-json.golden", norm(mustCLI(t, "plugin", "list", "--json")))
}
