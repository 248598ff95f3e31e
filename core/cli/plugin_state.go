package cli

import (
	"io"

	"github.com/cwx-dev/cwx/core/plugins"
)

// PluginStateChange is the --json output of `cwx plugin trust`, `enable`, `disable`,
// `untrust` and `remove`: the plugin and its status after the change.
type PluginStateChange struct {
	ID      string `json:"id"`
	Version string `json:"version,omitempty"`
	Closure string `json:"closure_sha256,omitempty"`
	Action  string `json:"action"` // trust, enable, disable, untrust or remove
	Status  string `json:"status"` // as `cwx plugin list` says it; "removed" after remove
	Enabled bool   `json:"enabled"`
	// Next is the command that makes the plugin run, when one is missing.
	Next string `json:"next,omitempty"`
	// KeptDataDir is the data directory remove left in place (without --purge-data).
	KeptDataDir string `json:"kept_data_dir,omitempty"`
}

// stateChange describes r after action.
func stateChange(action string, s *plugins.Store, r *plugins.Record) PluginStateChange {
	return PluginStateChange{ID: r.ID, Version: r.Version, Closure: r.Closure, Action: action, Status: s.Status(r), Enabled: r.Enabled}
}

// writeStatus prints a status word on w, coloured when colour is on there (colorOn): the
// word is stripped first, so the colour's escapes are the only ones printed.
func writeStatus(w io.Writer, status string) { writeStyled(w, statusStyle(status), status) }
