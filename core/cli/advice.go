package cli

import (
	"errors"
	"strings"

	"github.com/cwx-dev/cwx/core"
	"github.com/cwx-dev/cwx/core/plugins"
)

// The library's errors say what happened; the CLI adds which cwx command to run. Each rule
// maps a kind or a typed error to the library's text (lib) and the text the CLI prints in
// its place (cli), so the advice lands where the library's words are, however the error
// was wrapped.
type advice struct{ lib, cli string }

// notTrusted is the advice for plugins.ErrNotTrusted, also applied to recorded messages.
var notTrusted = advice{lib: plugins.ErrNotTrusted.Error(), cli: "not trusted: run `cwx plugin review` then `cwx plugin trust`"}

// adviceFor lists the rules err matches.
func adviceFor(err error) []advice {
	var out []advice
	if e, ok := errors.AsType[*core.NotLiveError](err); ok {
		msg, _ := notLiveAnswer(e)
		out = append(out, advice{lib: e.Error(), cli: msg})
	}
	if e, ok := errors.AsType[*plugins.NotInstalledError](err); ok {
		out = append(out, advice{lib: e.Error(), cli: e.Error() + " (see `cwx plugin list`)"})
	}
	if e, ok := errors.AsType[*plugins.TokenError](err); ok {
		a := advice{lib: e.Error(), cli: e.Error() + "; run `cwx plugin review " + e.ID + "` and use the token it prints"}
		if e.Missing {
			a.cli = plugins.ErrBadToken.Error() + ": trusting needs the token printed by `cwx plugin review " + e.ID + "`"
		}
		out = append(out, a)
	}
	if errors.Is(err, plugins.ErrNotTrusted) {
		out = append(out, notTrusted)
	}
	return out
}

// advise is err's message as the CLI prints it. It is idempotent, so an error printed
// through several layers of the CLI gets each advice once.
func advise(err error) string {
	msg := err.Error()
	for _, a := range adviceFor(err) {
		msg = apply(msg, a)
	}
	return msg
}

// adviseText applies the advice that does not need the error value to a recorded message
// (a diagnostic or a receipt line the library stored as text).
func adviseText(msg string) string { return apply(msg, notTrusted) }

func apply(msg string, a advice) string {
	if strings.Contains(msg, a.cli) {
		return msg
	}
	return strings.Replace(msg, a.lib, a.cli, 1)
}
