package cli

import (
	"errors"
	"fmt"

	"github.com/cwx-dev/cwx/core"
)

// notLiveAnswer is the one answer to "why is this tool or command missing", printed by
// `cwx tool call`, `cwx command run`, the REPL and `cwx serve --mcp` alike: the name, the
// plugin it belongs to and that plugin's state in the core's words (*core.NotLiveError),
// the next cwx command to run, and the near misses. code is the exit status: 6 when the
// plugin's own code failed (its activation, a fault), 5 otherwise. The text is inert.
func notLiveAnswer(e *core.NotLiveError) (msg string, code int) {
	code = ExitUnavailable
	if e.Failed {
		code = ExitPlugin // the plugin's own code failed: a plugin error, as `tool list` says
	}
	msg = fmt.Sprintf("no live %s %q", e.Kind, e.Name)
	if e.Plugin != "" && e.Why != "" {
		msg += fmt.Sprintf(": it belongs to plugin `%s`, %s (%s)", e.Plugin, e.Why, absentNext(e.State, e.Plugin))
	}
	switch {
	case e.Suggestion() != "":
		msg += "; " + e.Suggestion()
	case e.Plugin == "":
		msg += fmt.Sprintf(": run `cwx %s list` for the live ones, and `cwx plugin list` for plugins that are not enabled, trusted or activated", e.Kind)
	}
	return stripEscapes(msg), code
}

// absentNext is the cwx command that moves a plugin in state on (core.Absent*).
func absentNext(state, id string) string {
	switch state {
	case core.AbsentDisabled:
		return "run `cwx plugin enable " + id + "`"
	case core.AbsentNotTrusted:
		return "run `cwx plugin review " + id + "`, then trust it with the token it prints"
	case core.AbsentNeedsReview:
		return "run `cwx plugin review " + id + "` and trust the new bytes with the token it prints"
	case core.AbsentDevEnded:
		return "start `cwx plugin dev` on its folder again, or `cwx plugin review " + id + "` to trust it as installed"
	case core.AbsentChanged:
		return "reinstall it with `cwx plugin install`, then review it: `cwx plugin review " + id + "`"
	case core.AbsentActivating:
		return "try again, or see `cwx plugin show " + id + "`"
	case core.AbsentFailed, core.AbsentFaulted:
		return "see `cwx plugin show " + id + "` and `cwx logs " + id + "`"
	}
	return "see `cwx plugin show " + id + "`"
}

// notLiveErr is err's answer as an *ExitError when err is a *core.NotLiveError.
func notLiveErr(err error) (*ExitError, bool) {
	e, ok := errors.AsType[*core.NotLiveError](err)
	if !ok {
		return nil, false
	}
	msg, code := notLiveAnswer(e)
	return &ExitError{Code: code, Err: errors.New(msg)}, true
}
