package cli

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// TestPluginStateJSON: trust, enable, disable, untrust and remove print a JSON object with
// --json (goldens), and the text goldens of TestPluginLifecycleGoldens stay as they were.
func TestPluginStateJSON(t *testing.T) {
	home := pluginHome(t)
	src := basicFixture(t)
	norm := func(s string) []byte { return []byte(normalize(s, home, "$CWX_HOME", src, "$SRC")) }
	mustCLI(t, "plugin", "install", src)
	steps := []struct {
		golden string
		args   []string
		action string
		status string
	}{
		{"plugin-trust-json.golden", []string{"plugin", "trust", "hello", "--token", reviewToken(t, "hello"), "--json"}, "trust", "trusted, disabled"},
		{"plugin-enable-json.golden", []string{"plugin", "enable", "hello", "--json"}, "enable", "enabled"},
		{"plugin-disable-json.golden", []string{"plugin", "disable", "hello", "--json"}, "disable", "trusted, disabled"},
		{"plugin-untrust-json.golden", []string{"plugin", "untrust", "hello", "--json"}, "untrust", "not trusted"},
		{"plugin-remove-json.golden", []string{"plugin", "remove", "hello", "--json"}, "remove", "removed"},
	}
	for _, s := range steps {
		out := mustCLI(t, s.args...)
		var c PluginStateChange
		if err := json.Unmarshal([]byte(out), &c); err != nil {
			t.Fatalf("%s: %v\n%s", s.golden, err, out)
		}
		if c.ID != "hello" || c.Action != s.action || c.Status != s.status {
			t.Errorf("%s: %+v", s.golden, c)
		}
		checkGolden(t, s.golden, norm(out))
	}
}

// TestPluginStateColour: the status word is coloured on a terminal only, and not under
// NO_COLOR; nothing else on the line is.
func TestPluginStateColour(t *testing.T) {
	colourEnv(t)
	pluginHome(t)
	mustCLI(t, "plugin", "install", basicFixture(t))
	mustCLI(t, "plugin", "trust", "hello", "--token", reviewToken(t, "hello"))
	if out := mustCLI(t, "plugin", "enable", "hello"); out != "hello: enabled\n" {
		t.Fatalf("not a terminal: %q", out)
	}
	withTerminal(t)
	if out := mustCLI(t, "plugin", "disable", "hello"); out != "hello: \x1b[33mtrusted, disabled\x1b[0m\n" {
		t.Fatalf("terminal: %q", out)
	}
	t.Setenv("NO_COLOR", "1")
	if out := mustCLI(t, "plugin", "enable", "hello"); out != "hello: enabled\n" {
		t.Fatalf("NO_COLOR: %q", out)
	}
	t.Setenv("NO_COLOR", "")
	if out := mustCLI(t, "plugin", "disable", "hello"); !strings.Contains(out, "\x1b[33m") {
		t.Fatalf("NO_COLOR empty means colour (no-color.org): %q", out)
	}
}

// TestPluginTrustHelp: the --token flag's usage renders as a string flag; a command in
// backquotes would have become its type.
func TestPluginTrustHelp(t *testing.T) {
	out := mustCLI(t, "plugin", "trust", "--help")
	if strings.Contains(out, "--token cwx") || !strings.Contains(out, "--token string") {
		t.Fatalf("help:\n%s", out)
	}
	checkGolden(t, "plugin-trust-help.golden", []byte(out))
}

// TestFlagUsagesHaveNoBackquote: no flag of the root or of any command has a backquote in its
// usage: pflag takes a backquoted word for the name of the flag's value, so --help would show
// that word where the value's type belongs and the usage without its quotes.
func TestFlagUsagesHaveNoBackquote(t *testing.T) {
	root := NewRootCommand(strings.NewReader(""), &strings.Builder{}, &strings.Builder{})
	stack := []*cobra.Command{root}
	for len(stack) > 0 {
		c := stack[len(stack)-1]
		stack = append(stack[:len(stack)-1], c.Commands()...) // stack is this test's own slice
		c.Flags().VisitAll(func(f *pflag.Flag) {
			if strings.Contains(f.Usage, "`") {
				t.Errorf("%s --%s: usage %q has a backquote", c.CommandPath(), f.Name, f.Usage)
			}
		})
	}
}

// TestErrorPrefixColour: the "cwx:" of an error is red on a terminal only, and the message
// keeps no escape of its own.
func TestErrorPrefixColour(t *testing.T) {
	colourEnv(t)
	r := runPluginCLI(t, "no-such-command")
	if r.code != ExitUsage || !strings.HasPrefix(r.stderr, "cwx: unknown command") {
		t.Fatalf("not a terminal: %d %q", r.code, r.stderr)
	}
	withTerminal(t)
	if r := runPluginCLI(t, "no-such-command"); !strings.HasPrefix(r.stderr, "\x1b[31mcwx:\x1b[0m unknown command") {
		t.Fatalf("terminal: %q", r.stderr)
	}
	t.Setenv("NO_COLOR", "1")
	if r := runPluginCLI(t, "no-such-command"); strings.Contains(r.stderr, "\x1b") {
		t.Fatalf("NO_COLOR: %q", r.stderr)
	}
	t.Setenv("NO_COLOR", "")
	t.Setenv("TERM", "dumb")
	if r := runPluginCLI(t, "no-such-command"); strings.Contains(r.stderr, "\x1b") {
		t.Fatalf("TERM=dumb: %q", r.stderr)
	}
}

// colourEnv clears what turns colour off, whatever the test run's environment says.
func colourEnv(t *testing.T) {
	t.Helper()
	t.Setenv("NO_COLOR", "")
	os.Unsetenv("NO_COLOR")
	t.Setenv("TERM", "xterm-256color")
}
