package cli

import (
	"encoding/json"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/cwx-dev/cwx/shared/testenv"
)

// TestToolCommandReplEndToEnd runs the real cwx binary (the Manager re-executes it as the
// shim) on Node and on Bun against the example plugins: the one-shot commands with their
// exit statuses, and a scripted repl that kills the plugin tier's runtime.
func TestToolCommandReplEndToEnd(t *testing.T) {
	rts := testenv.Runtimes()
	bin := testenv.BuildCWX(t, "")
	examples, err := filepath.Abs(filepath.Join("..", "..", "examples"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range rts {
		t.Run(want.Name, func(t *testing.T) {
			rt := want.Get(t)
			// Unsandboxed: the repl's check below compares the pid the example reports with the
			// runtime's, and inside the sandbox a plugin sees its PID namespace's numbering.
			home := e2eHome(t, rt, "sandbox = \"off\"\n[plugins.\"hello-extension\".config]\ngreeting = \"Ahoy\"\n")
			cwx := func(stdin string, args ...string) cliResult { t.Helper(); return e2eCWX(t, bin, home, stdin, args...) }
			for _, dir := range []string{"hello-extension", "dsh-tool"} {
				e2eMust(t, bin, home, "plugin", "enable", e2eTrusted(t, bin, home, filepath.Join(examples, dir)))
			}

			var listed, tools []ToolListItem
			r := cwx("", "tool", "list", "--json")
			err := json.Unmarshal([]byte(r.stdout), &listed)
			natives := 0
			for _, it := range listed {
				if it.Origin == "native" {
					natives++ // the core's own, listed first-class (core/natives)
					continue
				}
				tools = append(tools, it)
			}
			if err != nil || natives != 7 || len(tools) != 2 || tools[0].Name != "hello_greet" || tools[1].Origin != "extension:@cwx-examples/dsh-word-stats" {
				t.Fatalf("tool list: %v %+v %s", err, tools, r.stderr)
			}
			cases := []struct {
				args []string
				want int
				out  string
			}{
				{[]string{"tool", "call", "hello_greet", "--input", `{"name":"Ada"}`, "--approve", "auto"}, ExitOK, `"text":"Ahoy, Ada!"`},
				{[]string{"tool", "call", "hello_greet", "--input", `{"name":"Ada"`}, ExitUsage, ""},
				{[]string{"tool", "call", "hello_greet", "--input", `{"name":42}`, "--approve", "auto"}, ExitInvalid, ""},
				{[]string{"tool", "call", "hello_greet"}, ExitDenied, ""}, // ask, and no terminal
				{[]string{"tool", "call", "hello_greet", "--approve", "deny"}, ExitDenied, ""},
				{[]string{"tool", "call", "no_such_tool"}, ExitUnavailable, ""},
				{[]string{"tool", "call", "word_stats", "--input", `{"text":"x","top":99}`, "--approve", "auto"}, ExitPlugin, ""},
				{[]string{"command", "run", "hello", "Grace"}, ExitOK, "Ahoy, Grace!\n"},
				{[]string{"command", "run", "wordstats"}, ExitPlugin, "usage: /wordstats <text>"},
				// Native tools: reads need no approval and stay in the workspace; shell always asks.
				{[]string{"tool", "call", "read_file", "--workspace", examples, "--input", `{"file_path":"hello-extension/plugin.json","limit":1}`}, ExitOK, "     1\t{"},
				{[]string{"tool", "call", "list_dir", "--workspace", examples, "--input", `{"path":"."}`, "--approve", "deny"}, ExitOK, "hello-extension/\n"},
				{[]string{"tool", "call", "read_file", "--workspace", examples, "--input", `{"file_path":"../go.mod"}`}, ExitDenied, ""},
				{[]string{"tool", "call", "shell", "--workspace", examples, "--input", `{"command":"echo hi"}`, "--approve", "auto"}, ExitDenied, ""}, // asked, and no terminal
			}
			for _, c := range cases {
				r := cwx("", c.args...)
				if r.code != c.want || !strings.Contains(r.stdout, c.out) || c.want == ExitOK && r.stderr != "" {
					t.Errorf("cwx %s: exit %d (want %d)\nstdout: %s\nstderr: %s", strings.Join(c.args, " "), r.code, c.want, r.stdout, r.stderr)
				}
			}

			r = cwx("/host status\n/call hello_greet {\"name\":\"Ada\"}\n/host kill plugin\n/host status\n/call hello_greet {\"name\":\"Ada\"}\n", "repl", "--approve", "auto")
			if r.code != 0 {
				t.Fatalf("repl: exit %d\n%s%s", r.code, r.stdout, r.stderr)
			}
			m := regexp.MustCompile(`killed the plugin tier's runtime \(pid (\d+), host generation (\d+)\)[^\n]*\nthe supervisor restarted it: pid (\d+), host generation (\d+), crashes 1\n`).FindStringSubmatch(r.stdout)
			if m == nil || m[1] == m[3] || m[2] == m[4] {
				t.Fatalf("repl kill report: %q\n%s", m, r.stdout)
			}
			if !strings.Contains(r.stdout, `"pid":`+m[3]) || strings.Count(r.stdout, `"text":"Ahoy, Ada!"`) != 2 {
				t.Fatalf("the tool did not answer again from the new runtime (pid %s):\n%s", m[3], r.stdout)
			}

			// A one-shot command ends while another plugin is still activating (this one
			// never settles): the host start it interrupts is a planned shutdown, and a
			// successful command prints nothing on stderr.
			fixture, err := filepath.Abs(filepath.Join("..", "..", "testdata", "plugins", "never-settles"))
			if err != nil {
				t.Fatal(err)
			}
			e2eMust(t, bin, home, "plugin", "enable", e2eTrusted(t, bin, home, fixture))
			for range 2 {
				for _, args := range [][]string{
					{"tool", "call", "hello_greet", "--input", `{"name":"Ada"}`, "--approve", "auto"},
					{"command", "run", "hello", "Grace"},
				} {
					if r := cwx("", args...); r.code != ExitOK || r.stderr != "" {
						t.Errorf("cwx %s with a plugin still activating: exit %d\nstderr: %s", strings.Join(args, " "), r.code, r.stderr)
					}
				}
			}
		})
	}
}
