package cli

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/cwx-dev/cwx/shared/testenv"
)

// TestFailuresVisibleEndToEnd runs the real cwx binary on Node and on Bun with plugins that
// fail in each way a person meets: a syntax error, a config its Config schema refuses (a
// wrong type and a misspelled key), tools returning what JSON cannot carry and a handler that
// throws. The listings name the failed plugins and exit 6, the syntax error says where with
// the source line and a caret, config check reports every schema problem, and no stack trace
// from the bundled host reaches stderr.
func TestFailuresVisibleEndToEnd(t *testing.T) {
	rts := testenv.Runtimes()
	bin := testenv.BuildCWX(t, "")
	fixtures, err := filepath.Abs(filepath.Join("..", "..", "testdata", "plugins"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range rts {
		t.Run(want.Name, func(t *testing.T) {
			rt := want.Get(t)
			home := e2eHome(t, rt, "[plugins.\"fixture-config\".config]\ntarget = 5\ngreting = \"Ahoy\"\n")
			cwx := func(args ...string) cliResult { t.Helper(); return e2eCWX(t, bin, home, "", args...) }
			for _, dir := range []string{"syntax-error", "config", "odd-returns"} {
				e2eMust(t, bin, home, "plugin", "enable", e2eTrusted(t, bin, home, filepath.Join(fixtures, dir)))
			}
			schema := "config refused: target: expected string but got 5; unknown key `greting` (did you mean `greeting`?)"
			syntax := regexp.MustCompile("(?m)^  fixture-syntax-error  failed: index\\.mjs:7:13: SyntaxError: Unexpected token ';' \\(see `cwx plugin show fixture-syntax-error` and `cwx logs fixture-syntax-error`\\)$")
			for _, args := range [][]string{{"tool", "list"}, {"command", "list"}} {
				r := cwx(args...)
				if r.code != ExitPlugin || !syntax.MatchString(r.stdout) || !strings.Contains(r.stdout, "fixture-config  failed: "+schema) {
					t.Fatalf("%v: exit %d\n%s%s", args, r.code, r.stdout, r.stderr)
				}
				if strings.Contains(r.stderr, "resolveConfig") || strings.Contains(r.stderr, "    at ") {
					t.Fatalf("%v: a stack trace on stderr:\n%s", args, r.stderr)
				}
			}
			if r := cwx("plugin", "list"); r.code != ExitOK || !regexp.MustCompile(`(?m)^fixture-config +1\.0\.0 +failed `).MatchString(r.stdout) ||
				!regexp.MustCompile(`(?m)^fixture-odd-returns +1\.0\.0 +enabled `).MatchString(r.stdout) {
				t.Fatalf("plugin list: exit %d\n%s%s", r.code, r.stdout, r.stderr)
			}
			show := cwx("plugin", "show", "fixture-syntax-error")
			if show.code != ExitOK || !strings.Contains(show.stdout, "SyntaxError: ") ||
				!strings.Contains(show.stdout, "\n      const x = ;\n                ^\n") {
				t.Fatalf("plugin show: exit %d\n%s%s", show.code, show.stdout, show.stderr)
			}
			if n := strings.Count(show.stdout, "index.mjs:7:13"); n != 1 {
				t.Fatalf("plugin show printed the syntax error %d times:\n%s", n, show.stdout)
			}
			check := cwx("config", "check")
			if check.code != ExitInvalid || !strings.Contains(check.stdout, "    target: expected string but got 5\n    unknown key `greting` (did you mean `greeting`?)\n") {
				t.Fatalf("config check: exit %d\n%s%s", check.code, check.stdout, check.stderr)
			}
			for _, c := range []struct{ tool, want string }{
				{"odd_function", "execute returned a function"},
				{"odd_symbol", "execute returned a symbol"},
				{"odd_bigint", "execute returned a BigInt at `counts[1]`"},
				{"odd_map", "execute returned a Map at `byName`, which JSON cannot carry (JSON would make it {}; convert it with Object.fromEntries)"},
				{"odd_nan", "execute returned NaN at `scores[1]`, which JSON cannot carry"},
				{"odd_hole", "execute returned undefined at `[1]`, which JSON cannot carry (JSON would make it null; use null)"},
				{"odd_throw", "Error: the tool exploded (at lib/helper.mjs:3:"},
			} {
				r := cwx("tool", "call", c.tool, "--approve", "auto")
				if r.code != ExitPlugin || !strings.Contains(r.stderr, c.want) || strings.Contains(r.stderr+r.stdout, "source") {
					t.Fatalf("tool call %s: exit %d\n%s%s", c.tool, r.code, r.stdout, r.stderr)
				}
			}
			threw := cwx("command", "run", "odd-throw")
			if threw.code != ExitPlugin || !strings.Contains(threw.stdout, "handler threw: Error: the handler exploded (at lib/helper.mjs:3:") ||
				!strings.Contains(threw.stderr, "/odd-throw failed: its handler threw") {
				t.Fatalf("command run odd-throw: exit %d\n%s%s", threw.code, threw.stdout, threw.stderr)
			}
			refused := cwx("command", "run", "odd-error")
			if refused.code != ExitPlugin || !strings.Contains(refused.stdout, "deliberately refused") || !strings.Contains(refused.stderr, "/odd-error answered an error") {
				t.Fatalf("command run odd-error: exit %d\n%s%s", refused.code, refused.stdout, refused.stderr)
			}
		})
	}
}

// TestConfigCheckSchemaGoldens: config check adds what each enabled plugin's Config schema
// refuses, every problem on its own line, for a plugin with a table and one without.
func TestConfigCheckSchemaGoldens(t *testing.T) {
	for _, asJSON := range []bool{false, true} {
		name := "config-check-schema"
		args := []string{"config", "check"}
		if asJSON {
			name, args = name+"-json", append(args, "--json")
		}
		t.Run(name, func(t *testing.T) {
			home := pluginHome(t)
			if err := os.MkdirAll(home, 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte("[plugins.\"fixture-config\".config]\ntarget = 5\ngreting = \"Ahoy\"\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			old := configProblems
			t.Cleanup(func() { configProblems = old })
			configProblems = func(context.Context, io.Writer) (map[string][]string, error) {
				return map[string][]string{
					"fixture-config": {"target: expected string but got 5", "unknown key `greting` (did you mean `greeting`?)"},
					"needs-source":   {"source: missing required value"},
				}, nil
			}
			r := runPluginCLI(t, args...)
			if r.code != ExitInvalid {
				t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
			}
			checkGolden(t, name+".golden", []byte(normalize(r.stdout+r.stderr, home, "$CWX_HOME")))
			if r := runPluginCLI(t, "config", "check", "--offline"); r.code != ExitOK {
				t.Fatalf("--offline: exit %d\n%s%s", r.code, r.stdout, r.stderr)
			}
		})
	}
}
