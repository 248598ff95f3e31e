package registry

import (
	"testing"

	"github.com/cwx-dev/cwx/core/protocol"
)

// TestChangedHook: Options.Changed fires for every change of what Tools and Commands list,
// and only for those.
func TestChangedHook(t *testing.T) {
	n := 0
	r := New(Options{Changed: func() { n++ }})
	var a, b protocol.OwnerRef
	var bTool uint64
	steps := []struct {
		name    string
		do      func()
		changed bool
	}{
		{"begin an owner", func() { a = begin(t, r, "alpha", pluginHost) }, false},
		{"register while activating", func() { mustRegister(t, r, tool(a, "a_tool")) }, false},
		{"activate with registrations", func() { _ = r.Activate(a, pluginHost) }, true},
		{"activate with none", func() { b = active(t, r, "beta") }, false},
		{"register a tool while active", func() { bTool = mustRegister(t, r, tool(b, "b_tool")) }, true},
		{"register a command while active", func() { mustRegister(t, r, command(b, "b_cmd")) }, true},
		{"replace a tool", func() { bTool = mustRegister(t, r, tool(b, "b_tool")) }, true},
		{"unregister a tool", func() { r.Unregister(pluginHost, &protocol.UnregisterParams{Owner: b, Handle: bTool}) }, true},
		{"unregister an unknown handle", func() { r.Unregister(pluginHost, &protocol.UnregisterParams{Owner: b, Handle: 999}) }, false},
		{"revoke", func() { _ = r.Revoke(a, pluginHost, "disabled") }, true},
		{"register for a revoked owner", func() { _, _ = r.Register(pluginHost, tool(a, "late")) }, false},
		{"host exited", func() { r.HostExited(pluginHost, "killed") }, true},
		{"host exited with nothing live", func() { r.HostExited(pluginHost, "killed") }, false},
	}
	for _, s := range steps {
		before := n
		s.do()
		if got := n > before; got != s.changed {
			t.Errorf("%s: changed %v (%d calls), want %v", s.name, got, n-before, s.changed)
		}
	}
}
