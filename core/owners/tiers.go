package owners

import (
	"cmp"
	"context"
	"strings"

	"github.com/cwx-dev/cwx/core/protocol"
	"github.com/cwx-dev/cwx/core/supervisor"
)

// Tier is one tier's runtime as the layer uses it (*supervisor.TierRuntime).
type Tier interface {
	Ensure(ctx context.Context) (Host, error)
	ReportDirtyTeardown()
	Retry()
	Status() supervisor.TierStatus
	Stop() supervisor.StopReport
}

// supervised is a supervisor.TierRuntime as a Tier. Only Ensure is its own: it returns the
// ready *supervisor.Host as a Host (and a nil interface, not a nil pointer, on error).
type supervised struct{ *supervisor.TierRuntime }

func (s supervised) Ensure(ctx context.Context) (Host, error) {
	h, err := s.TierRuntime.Ensure(ctx)
	if err != nil {
		return nil, err
	}
	return h, nil
}

// HostInfo is what the repl prints about one host's current incarnation.
type HostInfo struct {
	Tier       protocol.Tier
	Group      string // the plugin of a plugin's own host
	State      supervisor.State
	Generation uint64 // host generation (bumped on every start)
	RuntimePID int    // 0 when no incarnation is ready
	Crashes    int    // the supervisor's count within its crash window (TierStatus.Crashes)
}

// TierStatus is one tier's state: the supervisor's (its processes, generation, the crashes
// within its budget's window, the last failure) and what the layer adds. Its JSON form is
// `cwx host status --json`.
type TierStatus struct {
	supervisor.TierStatus
	Owners int `json:"owners"` // active owners in the host
	// Plugins are the desired plugins the host serves, sorted.
	Plugins []string `json:"plugins,omitempty"`
	// LastBlame names the plugin the newest fault or end of the tier's host was blamed on,
	// and why ("plugin `id`: reason"); empty when nothing was attributed.
	LastBlame string `json:"last_blame,omitempty"`
	// Suspects were activating together when a host ended with no single activation to
	// blame; the next incarnation activates them one at a time, after the others, so the
	// next end names the culprit. Sorted; empty when there are none.
	Suspects []string `json:"suspects,omitempty"`
	// Sandbox is one line on the tier's containment: SandboxStatus.Note for the plugin
	// tier, BuiltinSandboxNote for the builtin tier.
	Sandbox string `json:"sandbox,omitempty"`
}

// hostOrder sorts hosts as every listing shows them: the plugin tier's shared host, the
// builtin tier's, then the plugins' own by plugin id.
func hostOrder(a, b protocol.HostKey) int {
	rank := func(k protocol.HostKey) int {
		switch {
		case k.Group != "":
			return 2
		case k.Tier == protocol.TierBuiltin:
			return 1
		}
		return 0
	}
	if c := cmp.Compare(rank(a), rank(b)); c != 0 {
		return c
	}
	return strings.Compare(a.Group, b.Group)
}

// hostPhrase names a host in "start …" errors: "the plugin tier", "the host of plugin `x`".
func hostPhrase(k protocol.HostKey) string {
	if k.Isolated() {
		return "the host of plugin `" + k.Group + "`"
	}
	return "the " + string(k.Tier) + " tier"
}
