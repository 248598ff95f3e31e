package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cwx-dev/cwx/shared/testenv"
)

// TestExitCodeTable runs the real cwx binary, command by command, into each kind of failure
// it can meet, and checks the exit status against the README's table (core/cli doc.go, “CLI
// conventions”): 0 ok, 1 internal error, 2 usage or unreadable input, 3 invalid input or a
// check that disagrees, 4 denied, 5 unavailable (a name that is not there: a tool, a command,
// a plugin), 6 the plugin's code failed (a tool of a plugin whose activation failed, and the
// listings then), 7 timeout or cancelled. A script's repl exits with its first failed
// command's status. Timeouts and cancellation are driven by TestToolCallExitCodes and
// TestSIGTERMWhileValidating; a terminal's repl by TestReplInteractiveExitsOK.
func TestExitCodeTable(t *testing.T) {
	bin := testenv.BuildCWX(t, "")
	rt := testenv.Node(t)
	repo, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	examples, fixtures := filepath.Join(repo, "examples"), filepath.Join(repo, "testdata", "plugins")

	// ok: two enabled plugins that activate, and one installed but never trusted
	ok := e2eHome(t, rt, "[plugins.\"hello-extension\".config]\ngreeting = \"Ahoy\"\n")
	for _, dir := range []string{filepath.Join(examples, "hello-extension"), filepath.Join(fixtures, "odd-returns")} {
		e2eMust(t, bin, ok, "plugin", "enable", e2eTrusted(t, bin, ok, dir))
	}
	e2eMust(t, bin, ok, "plugin", "install", filepath.Join(fixtures, "tool"))

	// broken: fixture-config activated once (so its tool is claimed), then given a config its
	// own Config schema refuses, so its activation fails
	broken := e2eHome(t, rt, "[plugins.\"fixture-config\".config]\ntarget = \"x\"\n")
	e2eMust(t, bin, broken, "plugin", "enable", e2eTrusted(t, bin, broken, filepath.Join(fixtures, "config")))
	e2eMust(t, bin, broken, "tool", "call", "config_echo", "--approve", "auto")
	writeConf := func(home, conf string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(conf), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	writeConf(broken, "[extension_host]\nruntime = \"node\"\nnode = "+quoteTOML(rt.Path)+"\n\n[plugins.\"fixture-config\".config]\ntarget = 5\n")

	badKey := e2eHome(t, rt, "[extension_host]\nsandboks = \"off\"\n")
	noRuntime := t.TempDir()
	writeConf(noRuntime, "[extension_host]\nruntime = \"node\"\nnode = \"/nonexistent/node\"\n")

	scratch := t.TempDir()
	disagrees := filepath.Join(scratch, "disagrees.json")
	if err := os.WriteFile(disagrees, []byte(`{"description": "a valid frame said invalid", "direction": "host_to_core", "valid": false, "frame": {"jsonrpc": "2.0", "method": "host/ready", "params": {}}, "error": "jsonrpc"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	noManifest := filepath.Join(scratch, "no-manifest")
	if err := os.MkdirAll(noManifest, 0o755); err != nil {
		t.Fatal(err)
	}

	greet := []string{"tool", "call", "hello_greet", "--input", `{"name":"Ada"}`}
	rows := []struct {
		name  string
		home  string
		stdin string
		args  []string
		want  int
	}{
		// the binary itself
		{"version", ok, "", []string{"version"}, ExitOK},
		{"version, an extra argument", ok, "", []string{"version", "extra"}, ExitUsage},
		{"an unknown command", ok, "", []string{"bogus"}, ExitUsage},
		{"an unknown flag", ok, "", []string{"tool", "list", "--bogus"}, ExitUsage},
		// protocol check
		{"protocol check, agrees", ok, "", []string{"protocol", "check", filepath.Join(repo, "testdata", "protocol", "081-wrong-jsonrpc.json")}, ExitOK},
		{"protocol check, a file that is not there", ok, "", []string{"protocol", "check", filepath.Join(scratch, "missing.json")}, ExitUsage},
		{"protocol check, disagrees", ok, "", []string{"protocol", "check", disagrees}, ExitInvalid},
		{"protocol check, no file", ok, "", []string{"protocol", "check"}, ExitUsage},
		// doctor and config
		{"doctor", ok, "", []string{"doctor"}, ExitOK},
		{"doctor, no usable runtime", noRuntime, "", []string{"doctor"}, ExitUnavailable},
		{"config check", ok, "", []string{"config", "check"}, ExitOK},
		{"config check, an unknown key", badKey, "", []string{"config", "check"}, ExitInvalid},
		{"config check, a plugin's config its schema refuses", broken, "", []string{"config", "check"}, ExitInvalid},
		// plugin
		{"plugin list", ok, "", []string{"plugin", "list"}, ExitOK},
		{"plugin list, one failed", broken, "", []string{"plugin", "list"}, ExitOK},
		{"plugin show", ok, "", []string{"plugin", "show", "hello-extension"}, ExitOK},
		{"plugin show, not installed", ok, "", []string{"plugin", "show", "nosuch"}, ExitUnavailable},
		{"plugin enable, not installed", ok, "", []string{"plugin", "enable", "nosuch"}, ExitUnavailable},
		{"plugin review, not installed", ok, "", []string{"plugin", "review", "nosuch"}, ExitUnavailable},
		{"plugin trust, a wrong token", ok, "", []string{"plugin", "trust", "fixture-tool", "--token", "rv1-0000"}, ExitDenied},
		{"plugin install, no such folder", ok, "", []string{"plugin", "install", filepath.Join(scratch, "missing")}, ExitUsage},
		{"plugin install, no manifest", ok, "", []string{"plugin", "install", noManifest}, ExitInvalid},
		{"plugin enable, a missing argument", ok, "", []string{"plugin", "enable"}, ExitUsage},
		// tool
		{"tool list", ok, "", []string{"tool", "list"}, ExitOK},
		{"tool list, a plugin failed", broken, "", []string{"tool", "list"}, ExitPlugin},
		{"tool call", ok, "", append(greet, "--approve", "auto"), ExitOK},
		{"tool call, input that is not JSON", ok, "", []string{"tool", "call", "hello_greet", "--input", `{"name":`}, ExitUsage},
		{"tool call, a bad session id", ok, "", append(greet, "--session", "no spaces"), ExitUsage},
		{"tool call, input its schema refuses", ok, "", []string{"tool", "call", "hello_greet", "--input", `{"name":42}`, "--approve", "auto"}, ExitInvalid},
		{"tool call, ask with no terminal", ok, "", greet, ExitDenied},
		{"tool call, posture deny", ok, "", append(greet, "--approve", "deny"), ExitDenied},
		{"tool call, a native read outside the workspace", ok, "", []string{"tool", "call", "read_file", "--workspace", examples, "--input", `{"file_path":"../go.mod"}`}, ExitDenied},
		{"tool call, no such tool", ok, "", []string{"tool", "call", "no_such_tool"}, ExitUnavailable},
		{"tool call, the tool throws", ok, "", []string{"tool", "call", "odd_throw", "--approve", "auto"}, ExitPlugin},
		{"tool call, a tool of a plugin whose activation failed", broken, "", []string{"tool", "call", "config_echo", "--approve", "auto"}, ExitPlugin},
		// command
		{"command list", ok, "", []string{"command", "list"}, ExitOK},
		{"command list, a plugin failed", broken, "", []string{"command", "list"}, ExitPlugin},
		{"command run", ok, "", []string{"command", "run", "hello", "Grace"}, ExitOK},
		{"command run, no such command", ok, "", []string{"command", "run", "nosuch"}, ExitUnavailable},
		{"command run, the handler throws", ok, "", []string{"command", "run", "odd-throw"}, ExitPlugin},
		{"command run, the handler answers an error", ok, "", []string{"command", "run", "odd-error"}, ExitPlugin},
		// the other groups
		{"logs", ok, "", []string{"logs", "hello-extension"}, ExitOK},
		{"logs, not installed", ok, "", []string{"logs", "nosuch"}, ExitUnavailable},
		{"host status", ok, "", []string{"host", "status"}, ExitOK},
		{"prompt show", ok, "", []string{"prompt", "show"}, ExitOK},
		{"hooks list", ok, "", []string{"hooks", "list"}, ExitOK},
		{"skills list", ok, "", []string{"skills", "list"}, ExitOK},
		{"skills list, a workspace that is not there", ok, "", []string{"skills", "list", "--workspace", filepath.Join(scratch, "missing")}, ExitUsage},
		{"serve without --mcp", ok, "", []string{"serve"}, ExitUsage},
		{"serve --approve-extensions without auto", ok, "", []string{"serve", "--mcp", "--approve-extensions"}, ExitUsage},
		// a script's repl: its first failed command's status, whatever follows
		{"repl script", ok, "/tools\n/call hello_greet {\"name\":\"Ada\"}\n", []string{"repl", "--approve", "auto"}, ExitOK},
		{"repl script, a tool that is not there, then a success", ok, "/call no_such_tool {}\n/tools\n", []string{"repl"}, ExitUnavailable},
		{"repl script, an unknown command first", ok, "/bogus\n/call no_such_tool {}\n", []string{"repl"}, ExitUsage},
		{"repl script, the tool throws", ok, "/call odd_throw {}\n/exit\n", []string{"repl", "--approve", "auto"}, ExitPlugin},
		{"repl script, a plugin failed but no command did", broken, "/tools\n", []string{"repl"}, ExitOK},
		{"repl script, a tool of a plugin whose activation failed", broken, "/call config_echo {}\n", []string{"repl", "--approve", "auto"}, ExitPlugin},
	}
	for _, r := range rows {
		got := e2eCWX(t, bin, r.home, r.stdin, r.args...)
		if got.code != r.want {
			t.Errorf("%s: cwx %s: exit %d, want %d\nstdout: %s\nstderr: %s", r.name, strings.Join(r.args, " "), got.code, r.want, got.stdout, got.stderr)
		}
	}
}

// quoteTOML is s as a TOML basic string.
func quoteTOML(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"`
}
