package cli

import (
	"fmt"
	"strings"
	"testing"

	"github.com/cwx-dev/cwx/core"
	"github.com/cwx-dev/cwx/core/plugins"
)

// TestAdvice: the library's text names no cwx command; the CLI prints it with the advice,
// once, wherever the error was wrapped.
func TestAdvice(t *testing.T) {
	notTrustedErr := &plugins.ReceiptError{ID: "hello", Err: plugins.ErrNotTrusted}
	testCases := []struct {
		name string
		err  error
		want string
	}{
		{"no live tool", &core.NotLiveError{Kind: "tool", Name: "nope"},
			"no live tool \"nope\": run `cwx tool list` for the live ones, and `cwx plugin list` for plugins that are not enabled, trusted or activated"},
		{"no live command, wrapped", fmt.Errorf("run: %w", &core.NotLiveError{Kind: "command", Name: "x", Near: []string{"y"}}),
			"run: no live command \"x\"; did you mean `y`?"},
		{"not installed", &plugins.NotInstalledError{ID: "ghost"},
			"plugin is not installed: \"ghost\" (see `cwx plugin list`)"},
		{"wrong token", &plugins.TokenError{ID: "hello"},
			"the review token does not match the current review of hello; run `cwx plugin review hello` and use the token it prints"},
		{"no token", &plugins.TokenError{ID: "hello", Missing: true},
			"the review token does not match: trusting needs the token printed by `cwx plugin review hello`"},
		{"not trusted", notTrustedErr,
			"plugin hello: not trusted: run `cwx plugin review` then `cwx plugin trust`"},
		{"twice through the CLI", cleanError{&plugins.NotInstalledError{ID: "ghost"}},
			"plugin is not installed: \"ghost\" (see `cwx plugin list`)"},
		{"no advice", fmt.Errorf("%w: busy", core.ErrBusy), "extension host is busy: busy"},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			if got := advise(tc.err); got != tc.want {
				t.Errorf("advise() = %q; want %q", got, tc.want)
			}
			if lib := tc.err.Error(); strings.Contains(lib, "`cwx ") && tc.name != "twice through the CLI" {
				t.Errorf("library text %q names a cwx command", lib)
			}
		})
	}
	if got := adviseText(notTrustedErr.Error()); got != "plugin hello: not trusted: run `cwx plugin review` then `cwx plugin trust`" {
		t.Errorf("adviseText() = %q", got)
	}
	if got := adviseText("plugin hello: not trusted: run `cwx plugin review` then `cwx plugin trust`"); strings.Count(got, "cwx plugin review") != 1 {
		t.Errorf("adviseText applied twice: %q", got)
	}
}
