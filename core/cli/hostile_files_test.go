package cli

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestHostileStateFile: a state.json another process of the user corrupted, truncated,
// grew or replaced by something hostile makes every plugin command exit 3 (invalid input)
// naming the file, within one read: never a panic, a hang (a FIFO, /dev/zero), a file read
// without bound, or a record that leads a path outside the staged copy. The file is left as
// it was.
func TestHostileStateFile(t *testing.T) {
	home := pluginHome(t)
	mustCLI(t, "plugin", "install", basicFixture(t))
	state := filepath.Join(home, "state.json")
	good, err := os.ReadFile(state)
	if err != nil {
		t.Fatal(err)
	}
	replace := func(old, new string) func(t *testing.T) {
		return func(t *testing.T) {
			if !strings.Contains(string(good), old) {
				t.Fatalf("state.json lacks %q:\n%s", old, good)
			}
			writeState(t, state, strings.Replace(string(good), old, new, 1))
		}
	}
	cases := []struct {
		name  string
		setup func(t *testing.T)
		want  string
	}{
		{"truncated", func(t *testing.T) { writeState(t, state, string(good[:len(good)/2])) }, "unexpected EOF"},
		{"empty", func(t *testing.T) { writeState(t, state, "") }, "EOF"},
		{"not JSON", func(t *testing.T) { writeState(t, state, "\x00\xff garbage") }, "invalid character"},
		{"a 1 GiB sparse file", func(t *testing.T) {
			writeState(t, state, string(good))
			if err := os.Truncate(state, 1<<30); err != nil {
				t.Fatal(err)
			}
		}, "is too large"},
		{"a FIFO", func(t *testing.T) {
			_ = os.Remove(state)
			if err := syscall.Mkfifo(state, 0o600); err != nil {
				t.Fatal(err)
			}
		}, "is not a regular file"},
		{"a symlink to /dev/zero", func(t *testing.T) {
			_ = os.Remove(state)
			if err := os.Symlink("/dev/zero", state); err != nil {
				t.Fatal(err)
			}
		}, "is a symlink"},
		{"another version", replace(`"version": 1`, `"version": 99`), "schema version 99"},
		{"an unknown field", replace(`"generation"`, `"owned": true, "generation"`), "unknown field"},
		{"a null record", func(t *testing.T) { writeState(t, state, `{"version":1,"generation":1,"plugins":{"x":null}}`) }, "does not carry its own id"},
		{"a closure that is a path", replace(`"closure_sha256": "`, `"closure_sha256": "../../../tmp/`), "is not a sha256 in hex"},
		{"an entry path that leaves the copy", replace(`"path": "`, `"path": "../../../../etc/`), "does not stay inside the staged copy"},
		{"a huge generation", replace(`"generation": 1`, `"generation": 1e400`), "cannot unmarshal"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			c.setup(t)
			before, _ := os.Lstat(state)
			for _, args := range [][]string{{"plugin", "list"}, {"plugin", "show", "hello"}, {"plugin", "enable", "hello"}} {
				r := runPluginCLI(t, args...)
				if r.code != ExitInvalid || !strings.Contains(r.stderr, state) || !strings.Contains(r.stderr, c.want) {
					t.Fatalf("cwx %s: exit %d (want %d), stderr %q lacks the file or %q", strings.Join(args, " "), r.code, ExitInvalid, r.stderr, c.want)
				}
			}
			after, err := os.Lstat(state)
			if err != nil || !os.SameFile(before, after) || after.Size() != before.Size() {
				t.Fatalf("the hostile state file was replaced or changed (%v)", err)
			}
		})
	}
}

func writeState(t *testing.T, path, content string) {
	t.Helper()
	_ = os.Remove(path)
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestHostileHooksFile: a hooks file that is truncated, not JSON, of the wrong shape, over
// config.MaxHookConfigBytes or a FIFO makes `cwx hooks list` exit 3 naming the file, at once;
// it is never run as a partial set of hooks.
func TestHostileHooksFile(t *testing.T) {
	home := pluginHome(t)
	if err := os.MkdirAll(home, 0o700); err != nil {
		t.Fatal(err)
	}
	hooks := filepath.Join(home, "settings.json")
	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte("hooks_file = \"settings.json\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	valid := `{"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"true"}]}]}}`
	for _, c := range []struct{ name, body string }{
		{"truncated", valid[:len(valid)/2]},
		{"not JSON", "\x00garbage"},
		{"the wrong shape", `{"hooks":{"PreToolUse":{"matcher":"Bash"}}}`},
		{"oversized", `{"hooks":{},"pad":"` + strings.Repeat("x", 80<<10) + `"}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			writeState(t, hooks, c.body)
			r := runPluginCLI(t, "hooks", "list")
			if r.code != ExitInvalid || !strings.Contains(r.stderr, hooks) {
				t.Fatalf("exit %d (want %d), stderr %q does not name %s", r.code, ExitInvalid, r.stderr, hooks)
			}
		})
	}
	// A FIFO in its place is refused at once, not read (which would wait for a writer).
	if err := os.Remove(hooks); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(hooks, 0o600); err != nil {
		t.Fatal(err)
	}
	if r := runPluginCLI(t, "hooks", "list"); r.code != ExitInvalid || !strings.Contains(r.stderr, "not a regular file") {
		t.Fatalf("a FIFO hooks file: exit %d, stderr %q", r.code, r.stderr)
	}
	if err := os.Remove(hooks); err != nil {
		t.Fatal(err)
	}
	writeState(t, hooks, valid)
	if r := runPluginCLI(t, "hooks", "list"); r.code != 0 {
		t.Fatalf("the valid hooks file: exit %d, %s", r.code, r.stderr)
	}
}
