package cli

import (
	"strings"
	"testing"

	"github.com/cwx-dev/cwx/core"
	"github.com/cwx-dev/cwx/core/bundle"
)

// pinnedDigests are replacements of the pinned module digests by stable names, so that the
// goldens do not change with a module's bytes (the drift test in core/bundle pins those).
func pinnedDigests() []string {
	var out []string
	for _, p := range bundle.Pinned() {
		out = append(out, p.SHA256, "<sha256 of "+p.ID+">")
	}
	return out
}

// BuiltinModules of the fake: two modules with made-up digests, script-tools active with two
// tools and one refused script, hooks without work.
func (f *fakeCore) BuiltinModules() []core.BuiltinModuleInfo {
	return []core.BuiltinModuleInfo{
		{ID: "hooks", Owner: "host:hooks", SHA256: strings.Repeat("1", 64), State: "idle"},
		{ID: "script-tools", Owner: "host:script-tools", SHA256: strings.Repeat("2", 64), Needed: true, State: "active", Tools: 2,
			Notes: []string{"script shell.sh: refused: tool name `shell` would shadow the built-in tool `shell`"}},
	}
}

func TestPluginListShowsThePinnedModules(t *testing.T) {
	pluginHome(t)
	out := mustCLI(t, "plugin", "list")
	for _, p := range bundle.Pinned() {
		if !strings.Contains(out, p.ID) || !strings.Contains(out, "host:"+p.ID) || !strings.Contains(out, p.SHA256) {
			t.Errorf("plugin list lacks module %s (%s):\n%s", p.ID, p.SHA256, out)
		}
	}
}
