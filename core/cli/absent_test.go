package cli

import (
	"testing"

	"github.com/cwx-dev/cwx/core"
)

// TestNotLiveAnswer: the one answer for a name that is not live names the plugin, its state
// and the next command for every state, offers the near misses, keeps the general advice
// when nothing is known, exits 6 only for a plugin whose own code failed, and is inert.
func TestNotLiveAnswer(t *testing.T) {
	nl := func(state, why string) *core.NotLiveError {
		return &core.NotLiveError{Kind: "tool", Name: "hello_greet", Plugin: "hello", State: state, Why: why,
			Failed: state == core.AbsentFailed || state == core.AbsentFaulted}
	}
	const head = "no live tool \"hello_greet\": it belongs to plugin `hello`, "
	for _, tc := range []struct {
		name string
		e    *core.NotLiveError
		want string
		code int
	}{
		{"failed", nl(core.AbsentFailed, "whose activation failed: \x1b[31mboom\x1b[0m"),
			head + "whose activation failed: boom (see `cwx plugin show hello` and `cwx logs hello`)", ExitPlugin},
		{"faulted", nl(core.AbsentFaulted, "which faulted: gone"),
			head + "which faulted: gone (see `cwx plugin show hello` and `cwx logs hello`)", ExitPlugin},
		{"disabled", nl(core.AbsentDisabled, "which is disabled"),
			head + "which is disabled (run `cwx plugin enable hello`)", ExitUnavailable},
		{"not trusted", nl(core.AbsentNotTrusted, "which is not trusted"),
			head + "which is not trusted (run `cwx plugin review hello`, then trust it with the token it prints)", ExitUnavailable},
		{"needs review", nl(core.AbsentNeedsReview, "which needs a review: content changed"),
			head + "which needs a review: content changed (run `cwx plugin review hello` and trust the new bytes with the token it prints)", ExitUnavailable},
		{"dev session ended", nl(core.AbsentDevEnded, "whose dev session ended (pid 7 ended)"),
			head + "whose dev session ended (pid 7 ended) (start `cwx plugin dev` on its folder again, or `cwx plugin review hello` to trust it as installed)", ExitUnavailable},
		{"staged copy changed", nl(core.AbsentChanged, "whose staged copy changed since it was trusted (x)"),
			head + "whose staged copy changed since it was trusted (x) (reinstall it with `cwx plugin install`, then review it: `cwx plugin review hello`)", ExitUnavailable},
		{"activating", nl(core.AbsentActivating, "which is still activating"),
			head + "which is still activating (try again, or see `cwx plugin show hello`)", ExitUnavailable},
		{"a near miss of a live name", &core.NotLiveError{Kind: "tool", Name: "hello-greet", Plugin: "hello", Near: []string{"hello_greet"}},
			"no live tool \"hello-greet\"; did you mean `hello_greet`?", ExitUnavailable},
		{"a failed plugin and a near miss", &core.NotLiveError{Kind: "command", Name: "Hello", Plugin: "hello", State: core.AbsentFailed, Why: "whose activation failed: x", Failed: true, Near: []string{"hello"}},
			"no live command \"Hello\": it belongs to plugin `hello`, whose activation failed: x (see `cwx plugin show hello` and `cwx logs hello`); did you mean `hello`?", ExitPlugin},
		{"nothing known", &core.NotLiveError{Kind: "command", Name: "nope"},
			"no live command \"nope\": run `cwx command list` for the live ones, and `cwx plugin list` for plugins that are not enabled, trusted or activated", ExitUnavailable},
	} {
		t.Run(tc.name, func(t *testing.T) {
			msg, code := notLiveAnswer(tc.e)
			if msg != tc.want || code != tc.code {
				t.Errorf("notLiveAnswer() = %q, %d\nwant %q, %d", msg, code, tc.want, tc.code)
			}
		})
	}
}
