package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cwx-dev/cwx/shared/testenv"
)

// TestOneAnswerEverywhere runs the real cwx binary on Node as a new user meets a missing
// tool: `tool call`, `command run`, `tool list` and the REPL name the plugin, its state
// (failed and why, disabled, not trusted) and the next command; a near miss is suggested;
// `cwx logs PLUGIN` shows the activation failure.
func TestOneAnswerEverywhere(t *testing.T) {
	rt := testenv.Node(t)
	bin := testenv.BuildCWX(t, "")
	example, err := filepath.Abs(filepath.Join("..", "..", "examples", "hello-extension"))
	if err != nil {
		t.Fatal(err)
	}
	home := e2eHome(t, rt, "")
	cwx := func(stdin string, args ...string) cliResult { t.Helper(); return e2eCWX(t, bin, home, stdin, args...) }
	expect := func(r cliResult, code int, want ...string) {
		t.Helper()
		for _, w := range want {
			if r.code != code || !strings.Contains(r.stdout+r.stderr, w) {
				t.Fatalf("exit %d (want %d), want %q in\n%s%s", r.code, code, w, r.stdout, r.stderr)
			}
		}
	}
	id := e2eTrusted(t, bin, home, example)
	e2eMust(t, bin, home, "plugin", "enable", id)
	e2eMust(t, bin, home, "tool", "call", "hello_greet", "--approve", "auto") // its names are claimed from here on

	conf, err := os.ReadFile(filepath.Join(home, "config.toml"))
	if err != nil {
		t.Fatal(err)
	}
	setConf := func(extra string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(home, "config.toml"), append(append([]byte{}, conf...), extra...), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	setConf("[plugins.\"hello-extension\".config]\ngreeting = 5\n")
	failed := "it belongs to plugin `hello-extension`, whose activation failed: config refused: greeting: expected string but got 5 (see `cwx plugin show hello-extension` and `cwx logs hello-extension`)"
	expect(cwx("", "tool", "call", "hello_greet"), ExitPlugin, "no live tool \"hello_greet\": "+failed)
	expect(cwx("", "tool", "call", "hello-greet"), ExitPlugin, failed+"; did you mean `hello_greet`?")
	expect(cwx("", "command", "run", "hello"), ExitPlugin, "no live command \"hello\": "+failed)
	expect(cwx("", "command", "run", "helo"), ExitUnavailable, "no live command \"helo\"; did you mean `hello`?")
	expect(cwx("", "tool", "call", "read-file"), ExitUnavailable, "no live tool \"read-file\"; did you mean `read_file`?")
	expect(cwx("/call hello_greet {}\n/hello\n", "repl"), ExitPlugin,
		"1 enabled plugin not active:\n  hello-extension  failed: config refused: greeting: expected string but got 5 (see `cwx plugin show hello-extension` and `cwx logs hello-extension`)\n",
		"error: no live tool \"hello_greet\": "+failed, "error: no live command \"hello\": "+failed)
	expect(cwx("", "logs", "hello-extension"), ExitOK, "error [hello-extension] activation failed: config refused: greeting: expected string but got 5")

	setConf("")
	e2eMust(t, bin, home, "plugin", "disable", id)
	expect(cwx("", "tool", "call", "hello_greet"), ExitUnavailable,
		"no live tool \"hello_greet\": it belongs to plugin `hello-extension`, which is disabled (run `cwx plugin enable hello-extension`)")
	e2eMust(t, bin, home, "plugin", "untrust", id)
	e2eMust(t, bin, home, "plugin", "enable", id)
	next := "(run `cwx plugin review hello-extension`, then trust it with the token it prints)"
	expect(cwx("", "tool", "call", "hello_greet"), ExitUnavailable,
		"no live tool \"hello_greet\": it belongs to plugin `hello-extension`, which is not trusted "+next)
	expect(cwx("", "tool", "list"), ExitOK, "1 enabled plugin not active:\n  hello-extension  not trusted "+next+"\n")
	expect(cwx("", "command", "list"), ExitOK, "  hello-extension  not trusted "+next+"\n")
}

// TestEachFailureOnce runs the real cwx binary on Node with plugins that fail as an author
// meets it: an apply that throws, a TypeScript syntax error and an input schema with three
// metaschema violations. Each failure is said once, in the author's terms: no stack on
// stderr, `tool list` shows every schema violation without the metaschema path, `plugin
// show` prints the throw once and the syntax error's source line and caret on their own
// lines, and `cwx logs` has the throw once.
func TestEachFailureOnce(t *testing.T) {
	rt := testenv.Node(t)
	bin := testenv.BuildCWX(t, "")
	fixtures, err := filepath.Abs(filepath.Join("..", "..", "testdata", "plugins"))
	if err != nil {
		t.Fatal(err)
	}
	home := e2eHome(t, rt, "")
	for _, dir := range []string{"apply-throws", "ts-syntax-error", "bad-schema"} {
		e2eMust(t, bin, home, "plugin", "enable", e2eTrusted(t, bin, home, filepath.Join(fixtures, dir)))
	}
	cwx := func(args ...string) cliResult { t.Helper(); return e2eCWX(t, bin, home, "", args...) }
	list := cwx("tool", "list")
	schema := "  fixture-bad-schema  failed: input schema of tool `bad_schema` is not a valid JSON Schema: " +
		"`/properties/a/type`: value must be one of \"array\", \"boolean\", \"integer\", \"null\", \"number\", \"object\", \"string\"; " +
		"`/properties/b/minLength`: must be >= 0 but found -1; `/required`: expected array, but got string (see "
	if list.code != ExitPlugin || !strings.Contains(list.stdout, schema) || strings.Contains(list.stdout, "json-schema.org") {
		t.Fatalf("tool list: exit %d\n%s%s", list.code, list.stdout, list.stderr)
	}
	if strings.Contains(list.stderr, "    at ") || strings.Contains(list.stderr, "RangeError") {
		t.Fatalf("tool list: the throw on stderr:\n%s", list.stderr)
	}
	show := cwx("plugin", "show", "fixture-apply-throws")
	if n := strings.Count(show.stdout, "no room for this plugin"); show.code != ExitOK || n != 1 ||
		!strings.Contains(show.stdout, "apply threw: RangeError: no room for this plugin (at index.mjs:6:9)") {
		t.Fatalf("plugin show: exit %d, the throw %d times\n%s%s", show.code, n, show.stdout, show.stderr)
	}
	ts := cwx("plugin", "show", "fixture-ts-syntax-error")
	if ts.code != ExitOK || !strings.Contains(ts.stdout, "index.ts:4:25: SyntaxError: ") ||
		!strings.Contains(ts.stdout, "\n      const n: number = 1 + ;\n                            ^\n") {
		t.Fatalf("plugin show, syntax error: exit %d\n%s%s", ts.code, ts.stdout, ts.stderr)
	}
	verbose := cwx("plugin", "show", "fixture-bad-schema", "--verbose")
	if !strings.Contains(verbose.stdout, "does not validate with https://json-schema.org/") {
		t.Fatalf("plugin show --verbose keeps no metaschema path:\n%s", verbose.stdout)
	}
	logs := cwx("logs", "fixture-apply-throws")
	n, once := strings.Count(logs.stdout, "no room for this plugin"), strings.Count(logs.stdout, "error [fixture-apply-throws] activation failed: apply threw: RangeError: no room for this plugin (at index.mjs:6:9)")
	if logs.code != ExitOK || n == 0 || n != once {
		t.Fatalf("logs: exit %d, the throw %d times for %d activations\n%s", logs.code, n, once, logs.stdout)
	}
}
