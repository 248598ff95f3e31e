package supervisor

import (
	"time"

	"github.com/cwx-dev/cwx/core/protocol"
)

// TierStatus is one tier's state for `cwx host status` and Manager.Status (its JSON form is
// part of the CLI's documented --json output).
type TierStatus struct {
	Tier           protocol.Tier `json:"tier"`
	Group          string        `json:"group,omitempty"` // the plugin of a plugin's own host
	State          State         `json:"state"`
	Generation     uint64        `json:"generation"`
	ShimPID        int           `json:"shim_pid,omitempty"`
	RuntimePID     int           `json:"runtime_pid,omitempty"`
	RuntimePGID    int           `json:"runtime_pgid,omitempty"`
	Runtime        string        `json:"runtime"`         // node or bun
	RuntimeVersion string        `json:"runtime_version"` // as probed
	RuntimePath    string        `json:"runtime_path"`
	UptimeMS       int64         `json:"uptime_ms"` // since the current incarnation was ready
	LastFailure    string        `json:"last_failure,omitempty"`
	StderrTail     string        `json:"stderr_tail,omitempty"` // of the last failure
	// Crashes counts the unexpected ends of the tier's hosts within the crash window: the
	// budget's own count, the one every surface reports.
	Crashes int `json:"crashes"`
	// Snapshot is true when the current incarnation started from the host snapshot (Node)
	// or ran the host's bytecode cache (Bun).
	Snapshot bool `json:"snapshot,omitempty"`
}

// Status reports the tier's state without touching the processes.
func (t *TierRuntime) Status() TierStatus {
	t.mu.Lock()
	defer t.mu.Unlock()
	s := TierStatus{
		Tier: t.o.Tier, Group: t.o.Group, State: t.state, Generation: t.gen,
		Runtime: string(t.o.Runtime.Kind), RuntimeVersion: t.o.Runtime.Version, RuntimePath: t.o.Runtime.Path,
	}
	if inc := t.cur; inc != nil && t.state == StateReady {
		s.ShimPID, s.RuntimePID, s.RuntimePGID = inc.shimPID, inc.rt.PID, inc.rt.PGID
		s.Snapshot = inc.fromSnap
		s.UptimeMS = t.o.Clock.Now().Sub(t.readyAt).Round(time.Millisecond).Milliseconds()
	}
	s.Crashes = t.crashes.count(t.o.Clock.Now())
	if f := t.failure; f != nil {
		s.LastFailure, s.StderrTail = f.Reason, f.StderrTail
	}
	return s
}
