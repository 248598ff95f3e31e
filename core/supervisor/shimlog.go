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
// signal the bounded shutdown sent; that exit is logged at DEBUG, not as an error. An
// unplanned exit keeps go-plugin's level.
type shimLogger struct {
	hclog.Logger
	planned *atomic.Bool
}

// Error logs msg at ERROR, except the planned shim's exit.
func (l shimLogger) Error(msg string, args ...any) {
	if msg == shimExitMsg && l.planned.Load() {
		l.Logger.Debug(msg, args...)
		return
	}
	l.Logger.Error(msg, args...)
}
