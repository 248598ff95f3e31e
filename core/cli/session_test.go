package cli

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/cwx-dev/cwx/core"
)

// TestSessionFlag: --session reaches CallOptions.SessionID of tool call, command run and the
// repl's calls; a value outside the grammar is a usage error and nothing is called.
func TestSessionFlag(t *testing.T) {
	for _, c := range []struct {
		name string
		args []string
		code int
		want string // SessionID seen by the core; "-" when nothing may be called
	}{
		{"tool call", []string{"tool", "call", "hello_greet", "--approve", "auto", "--session", "s-1"}, ExitOK, "s-1"},
		{"tool call without", []string{"tool", "call", "hello_greet", "--approve", "auto"}, ExitOK, ""},
		{"command run", []string{"command", "run", "--session", "chat:42", "hello", "Grace"}, ExitOK, "chat:42"},
		{"repl", []string{"repl", "--approve", "auto", "--session", "r.7"}, ExitOK, "r.7"},
		{"bad tool call", []string{"tool", "call", "hello_greet", "--session", "has space"}, ExitUsage, "-"},
		{"bad command run", []string{"command", "run", "--session", "-lead", "hello"}, ExitUsage, "-"},
		{"too long", []string{"tool", "call", "hello_greet", "--session", strings.Repeat("a", 129)}, ExitUsage, "-"},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := newFakeCore()
			f.tools, f.commands = demoTools(), demoCommands()
			var mu sync.Mutex
			var seen []string
			f.run = func(_ context.Context, _, _ string, o core.CallOptions) (core.CommandResult, error) {
				mu.Lock()
				defer mu.Unlock()
				seen = append(seen, o.SessionID)
				return core.CommandResult{Kind: "success", Text: "hi"}, nil
			}
			useFake(t, f)
			var r cliResult
			if c.args[0] == "repl" {
				r = runReplCLI(t, "/call hello_greet {}\n/run hello Grace\n", c.args...)
			} else {
				r = runPluginCLI(t, c.args...)
			}
			if r.code != c.code {
				t.Fatalf("exit %d, want %d\n%s%s", r.code, c.code, r.stdout, r.stderr)
			}
			for _, o := range f.opts {
				seen = append(seen, o.SessionID)
			}
			if c.want == "-" {
				if len(seen) != 0 || !strings.Contains(r.stderr, "--session") {
					t.Fatalf("called %v; stderr %q", seen, r.stderr)
				}
				return
			}
			if len(seen) == 0 {
				t.Fatal("nothing was called")
			}
			for _, s := range seen {
				if s != c.want {
					t.Fatalf("SessionID %q, want %q", s, c.want)
				}
			}
		})
	}
}

func runReplCLI(t *testing.T, stdin string, args ...string) cliResult {
	t.Helper()
	var out, errb strings.Builder
	code := Main(args, strings.NewReader(stdin), &out, &errb)
	return cliResult{out.String(), errb.String(), code}
}
