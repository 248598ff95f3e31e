package cli

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/cwx-dev/cwx/shared/testenv"
)

// TestGuardExampleEndToEnd: with examples/guard enabled, the real binary's one-shot call of
// the native `shell` is denied by its pre-execute hook when the command holds `rm -rf`, asks
// (and, with no terminal, fails closed) otherwise, and a read still runs, on Node and Bun.
func TestGuardExampleEndToEnd(t *testing.T) {
	bin := testenv.BuildCWX(t, "")
	guard, err := filepath.Abs(filepath.Join("..", "..", "examples", "guard"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range testenv.Runtimes() {
		t.Run(want.Name, func(t *testing.T) {
			home := e2eHome(t, want.Get(t), "")
			e2eMust(t, bin, home, "plugin", "enable", e2eTrusted(t, bin, home, guard))
			ws := filepath.Dir(guard)
			for _, c := range []struct {
				args   []string
				code   int
				stderr string
			}{
				{[]string{"tool", "call", "shell", "--workspace", ws, "--approve", "auto", "--input", `{"command":"rm -rf build"}`}, ExitDenied,
					"pre-execute hook of plugin `guard-example` denied the call: guard-example refuses shell commands containing rm -rf"},
				{[]string{"tool", "call", "shell", "--workspace", ws, "--approve", "auto", "--input", `{"command":"ls"}`}, ExitDenied,
					"there is no terminal to ask on"},
				{[]string{"tool", "call", "read_file", "--workspace", ws, "--input", `{"file_path":"guard/plugin.json","limit":1}`}, ExitOK, ""},
			} {
				r := e2eCWX(t, bin, home, "", c.args...)
				if r.code != c.code || !strings.Contains(r.stderr, c.stderr) || c.code == ExitOK && r.stderr != "" {
					t.Errorf("cwx %s: exit %d (want %d)\nstdout: %s\nstderr: %s", strings.Join(c.args, " "), r.code, c.code, r.stdout, r.stderr)
				}
			}
		})
	}
}
