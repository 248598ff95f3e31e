package supervisor

import (
	"sync/atomic"

	"github.com/hashicorp/go-hclog"
)

// shimExitMsg is what go-plugin logs when the plugin process (the shim) exits; it logs it
// at ERROR whenever the exit status is not zero, a signal included.
const shimExitMsg = "plugin process exited"

// shimLogger is go-plugin's logger for one incarnation's shim. The end of a shim the core
// stopped on purpose (Stop, a planned restart, a start that Stop abandoned) ends with the
// signal the bounded shutdown sent, and so does one the core killed for not answering (the
// heartbeat), whose end the supervisor reports itself as one warning ("extension host
// exited", with the reason); either exit is logged at DEBUG, not as an error. Any other
// exit keeps go-plugin's level.
type shimLogger struct {
	hclog.Logger
	planned *atomic.Bool
	killed  func() bool // the core killed the incarnation (incarnation.killReason)
}

// Error logs msg at ERROR, except the exit of a shim the core stopped or killed.
func (l shimLogger) Error(msg string, args ...any) {
	if msg == shimExitMsg && (l.planned.Load() || (l.killed != nil && l.killed())) {
		l.Logger.Debug(msg, args...)
		return
	}
	l.Logger.Error(msg, args...)
}
