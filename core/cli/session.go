package cli

import (
	"fmt"

	"github.com/spf13/pflag"

	"github.com/cwx-dev/cwx/core/internal/lazyre"
)

// sessionRE is what --session accepts: a label the caller chooses for the conversation a call
// belongs to. It reaches the plugin as `exec.sessionId` / `invocation.sessionId` and grants
// nothing (ARCHITECTURE.md, “Protocol”).
var sessionRE = lazyre.New(`^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$`)

// sessionFlag adds --session to fs, storing into p.
func sessionFlag(fs *pflag.FlagSet, p *string) {
	fs.StringVar(p, "session", "", "the session id the plugin is told (a label: letters, digits, . _ : -, at most 128)")
}

// checkSession refuses a --session value outside sessionRE (exit status 2); "" means none.
func checkSession(s string) error {
	if s == "" || sessionRE().MatchString(s) {
		return nil
	}
	return &ExitError{Code: ExitUsage, Err: fmt.Errorf("--session %q must match %s", s, sessionRE())}
}
