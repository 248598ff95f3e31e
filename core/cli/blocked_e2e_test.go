package cli

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/cwx-dev/cwx/shared/testenv"
)

// TestBlockedActivationEndToEnd runs the real cwx binary on Node and on Bun with a plugin
// whose apply never yields enabled next to an innocent one: a one-shot call of the innocent
// tool answers, and so does the same call in a repl, whose host status names the culprit.
func TestBlockedActivationEndToEnd(t *testing.T) {
	rts := testenv.Runtimes()
	bin := testenv.BuildCWX(t, "")
	fixtures, err := filepath.Abs(filepath.Join("..", "..", "testdata", "plugins"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range rts {
		t.Run(want.Name, func(t *testing.T) {
			rt := want.Get(t)
			home := e2eHome(t, rt, "")
			for _, dir := range []string{"blocks-in-apply", "tool"} {
				e2eMust(t, bin, home, "plugin", "enable", e2eTrusted(t, bin, home, filepath.Join(fixtures, dir)))
			}
			cases := []struct {
				name  string
				stdin string
				args  []string
				out   []string
			}{
				{"one-shot", "", []string{"tool", "call", "echo_text", "--input", `{"text":"hi"}`, "--approve", "auto"}, []string{`{"echoed":"hi"}`}},
				{"repl", "/call echo_text {\"text\":\"hi\"}\n/plugins\n/host status\n", []string{"repl", "--approve", "auto"},
					[]string{`{"echoed":"hi"}`, "1 tool, 0 commands", "last failure: ext/activate of fixture-blocks-in-apply unanswered after 6s: the host was blocked"}},
			}
			for _, c := range cases {
				r := e2eCWX(t, bin, home, c.stdin, c.args...)
				for _, out := range c.out {
					if r.code != ExitOK || !strings.Contains(r.stdout, out) {
						t.Fatalf("%s: exit %d, want %q in\nstdout: %s\nstderr: %s", c.name, r.code, out, r.stdout, r.stderr)
					}
				}
			}
		})
	}
}
