package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/cwx-dev/cwx/core/internal/testenv"
)

// TestToolCommandReplEndToEnd runs the real cwx binary (the Manager re-executes it as the
// shim) on Node and on Bun against the example plugins: the one-shot commands with their
// exit statuses, and a scripted repl that kills the plugin tier's runtime.
func TestToolCommandReplEndToEnd(t *testing.T) {
	rts := testenv.Runtimes(t)
	bin := filepath.Join(t.TempDir(), "cwx")
	build := exec.Command("go", "build", "-o", bin, "github.com/cwx-dev/cwx")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build cwx: %v\n%s", err, out)
	}
	examples, err := filepath.Abs(filepath.Join("..", "..", "examples"))
	if err != nil {
		t.Fatal(err)
	}
	for _, rt := range rts {
		t.Run(rt.Name, func(t *testing.T) {
			home := t.TempDir()
			conf := fmt.Sprintf("[extension_host]\nruntime = %q\n%s = %q\n\n[plugins.\"hello-extension\".config]\ngreeting = \"Ahoy\"\n", rt.Name, rt.Name, rt.Path)
			if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(conf), 0o600); err != nil {
				t.Fatal(err)
			}
			cwx := func(stdin string, args ...string) cliResult {
				t.Helper()
				cmd := exec.Command(bin, args...)
				cmd.Env = append(os.Environ(), "CWX_HOME="+home)
				cmd.Dir = t.TempDir()
				cmd.Stdin = strings.NewReader(stdin)
				var out, errb bytes.Buffer
				cmd.Stdout, cmd.Stderr = &out, &errb
				start := time.Now()
				err := cmd.Run()
				t.Logf("cwx %s: %s", strings.Join(args, " "), time.Since(start).Round(time.Millisecond))
				code := 0
				if ee, ok := err.(*exec.ExitError); ok {
					code = ee.ExitCode()
				} else if err != nil {
					t.Fatal(err)
				}
				return cliResult{out.String(), errb.String(), code}
			}
			for _, dir := range []string{"hello-extension", "dsh-tool"} {
				if r := cwx("", "plugin", "install", filepath.Join(examples, dir), "--json"); r.code != 0 {
					t.Fatalf("install %s: %s", dir, r.stderr)
				}
			}
			for _, id := range []string{"hello-extension", "@cwx-examples/dsh-word-stats"} {
				var rv struct{ Token string }
				r := cwx("", "plugin", "review", id, "--json")
				if err := json.Unmarshal([]byte(r.stdout), &rv); err != nil || rv.Token == "" {
					t.Fatalf("review %s: %v %s", id, err, r.stderr)
				}
				cwx("", "plugin", "trust", id, "--token", rv.Token)
				cwx("", "plugin", "enable", id)
			}

			var tools []ToolListItem
			r := cwx("", "tool", "list", "--json")
			if err := json.Unmarshal([]byte(r.stdout), &tools); err != nil || len(tools) != 2 || tools[0].Name != "hello_greet" || tools[1].Origin != "extension:@cwx-examples/dsh-word-stats" {
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
			}
			for _, c := range cases {
				r := cwx("", c.args...)
				if r.code != c.want || !strings.Contains(r.stdout, c.out) {
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
		})
	}
}
