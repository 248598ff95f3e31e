package supervisor

import (
	"testing"

	"github.com/cwx-dev/cwx/core/protocol"
)

// TestExitInfoCrash: every unplanned end counts against the crash budget except a blocked
// activation attributed to one owner.
func TestExitInfoCrash(t *testing.T) {
	one := &protocol.OwnerRef{PluginID: "p", Generation: 1}
	cases := []struct {
		name string
		info ExitInfo
		want bool
	}{
		{"exit", ExitInfo{}, true},
		{"exit during one activation", ExitInfo{Activating: one}, true},
		{"planned", ExitInfo{Planned: true}, false},
		{"heartbeat kill", ExitInfo{Hung: true}, true},
		{"heartbeat kill during one activation", ExitInfo{Hung: true, Activating: one}, true},
		{"blocked, several in flight", ExitInfo{Hung: true, Blocked: true}, true},
		{"blocked, attributed", ExitInfo{Hung: true, Blocked: true, Activating: one}, false},
	}
	for _, c := range cases {
		if got := c.info.Crash(); got != c.want {
			t.Errorf("%s: Crash() = %t, want %t", c.name, got, c.want)
		}
	}
}
