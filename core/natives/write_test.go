package natives

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func readWS(t *testing.T, ws, rel string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(ws, filepath.FromSlash(rel)))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// noTemps fails when a temporary file of replace is left in dir.
func noTemps(t *testing.T, dir string) {
	t.Helper()
	_ = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && strings.Contains(d.Name(), ".cwx-") {
			t.Errorf("temporary file left behind: %s", p)
		}
		return nil
	})
}

// TestWriteFileConfinement: write_file reaches only the workspace: `..`, absolute paths
// elsewhere, links out (to a file, a folder or a missing file) are refused and nothing is
// written outside; a link inside is followed and the file it names is replaced.
func TestWriteFileConfinement(t *testing.T) {
	ws, out := tree(t, map[string]string{
		"a.txt": "old\n", "link-out": "->$OUT/secret.txt", "dir-out": "->$OUT",
		"dangling-out": "->$OUT/missing.txt", "in.txt": "inside\n", "link-in": "->in.txt", "d/x": "x",
	})
	tests := []struct {
		name, input string
		outside     bool   // ErrOutsideWorkspace
		isError     bool   // an error result
		file, want  string // then the file's content
	}{
		{name: "plain", input: `{"file_path":"a.txt","content":"new\n"}`, file: "a.txt", want: "new\n"},
		{name: "create with folders", input: `{"file_path":"n/e/w.txt","content":"w"}`, file: "n/e/w.txt", want: "w"},
		{name: "absolute inside", input: `{"file_path":"` + ws + `/b.txt","content":"b"}`, file: "b.txt", want: "b"},
		{name: "dotdot", input: `{"file_path":"../outside/secret.txt","content":"x"}`, outside: true},
		{name: "absolute outside", input: `{"file_path":"` + out + `/secret.txt","content":"x"}`, outside: true},
		{name: "symlink to outside file", input: `{"file_path":"link-out","content":"x"}`, outside: true},
		{name: "through symlinked folder", input: `{"file_path":"dir-out/secret.txt","content":"x"}`, outside: true},
		{name: "new file under symlinked folder", input: `{"file_path":"dir-out/new.txt","content":"x"}`, outside: true},
		{name: "dangling link out", input: `{"file_path":"dangling-out","content":"x"}`, outside: true},
		{name: "link inside is followed", input: `{"file_path":"link-in","content":"via link\n"}`, file: "in.txt", want: "via link\n"},
		{name: "a directory", input: `{"file_path":"d","content":"x"}`, isError: true},
		{name: "the workspace", input: `{"file_path":".","content":"x"}`, isError: true},
		{name: "too large", input: `{"file_path":"big","content":"` + strings.Repeat("x", MaxWriteBytes+1) + `"}`, isError: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := run(t, WriteFile(WriteOptions{}), ws, tt.input)
			switch {
			case tt.outside:
				if !errors.Is(err, ErrOutsideWorkspace) {
					t.Fatalf("err = %v, %+v; want ErrOutsideWorkspace", err, res)
				}
			case err != nil:
				t.Fatal(err)
			case res.IsError != tt.isError:
				t.Fatalf("IsError = %v: %s", res.IsError, res.Text)
			case tt.file != "":
				if got := readWS(t, ws, tt.file); got != tt.want {
					t.Fatalf("%s = %q, want %q", tt.file, got, tt.want)
				}
			}
			if got, _ := os.ReadFile(filepath.Join(out, "secret.txt")); string(got) != "SECRET\n" {
				t.Fatalf("outside file changed: %q", got)
			}
			if _, err := os.Stat(filepath.Join(out, "new.txt")); err == nil {
				t.Fatal("a file was created outside")
			}
			if fi, err := os.Lstat(filepath.Join(ws, "link-in")); err != nil || fi.Mode()&os.ModeSymlink == 0 {
				t.Fatal("the link inside was replaced")
			}
			noTemps(t, ws)
		})
	}
}

// TestWriteHardlink: a file with a second hard link (inside or outside the workspace) is
// replaced by a new inode; the other name keeps its content.
func TestWriteHardlink(t *testing.T) {
	for _, tool := range []struct{ name, input string }{
		{"write_file", `{"file_path":"a.txt","content":"NEW\n"}`},
		{"edit_file", `{"file_path":"a.txt","old_string":"SECRET","new_string":"NEW"}`},
	} {
		t.Run(tool.name, func(t *testing.T) {
			ws, out := tree(t, nil)
			if err := os.Link(filepath.Join(out, "secret.txt"), filepath.Join(ws, "a.txt")); err != nil {
				t.Fatal(err)
			}
			before, _ := os.Stat(filepath.Join(ws, "a.txt"))
			tl := WriteFile(WriteOptions{})
			if tool.name == "edit_file" {
				tl = EditFile(WriteOptions{})
			}
			res, err := run(t, tl, ws, tool.input)
			if err != nil || res.IsError {
				t.Fatalf("%v %+v", err, res)
			}
			if got := readWS(t, ws, "a.txt"); got != "NEW\n" {
				t.Fatalf("a.txt = %q", got)
			}
			if got, _ := os.ReadFile(filepath.Join(out, "secret.txt")); string(got) != "SECRET\n" {
				t.Fatalf("the other name changed: %q", got)
			}
			after, _ := os.Stat(filepath.Join(ws, "a.txt"))
			if before.Sys().(*syscall.Stat_t).Ino == after.Sys().(*syscall.Stat_t).Ino {
				t.Fatal("written in place: same inode")
			}
		})
	}
}

// TestWriteCrashBeforeRename: a failure after the temporary file is written leaves the
// original intact and no temporary file behind, for a new file and an existing one.
func TestWriteCrashBeforeRename(t *testing.T) {
	crash := errors.New("crash")
	for _, tt := range []struct{ name, tool, input, file, want string }{
		{"write existing", "write_file", `{"file_path":"a.txt","content":"new"}`, "a.txt", "orig\n"},
		{"write new", "write_file", `{"file_path":"sub/new.txt","content":"new"}`, "sub/new.txt", ""},
		{"edit", "edit_file", `{"file_path":"a.txt","old_string":"orig","new_string":"x"}`, "a.txt", "orig\n"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ws, _ := tree(t, map[string]string{"a.txt": "orig\n"})
			sawTemp := false
			o := WriteOptions{beforeRename: func(tmp string) error {
				_, err := os.Stat(filepath.Join(ws, tmp))
				sawTemp = err == nil
				return crash
			}}
			tl := WriteFile(o)
			if tt.tool == "edit_file" {
				tl = EditFile(o)
			}
			res, err := run(t, tl, ws, tt.input)
			if err != nil || !res.IsError {
				t.Fatalf("want an error result, got %v %+v", err, res)
			}
			if !sawTemp {
				t.Fatal("the failure was not injected after the temporary write")
			}
			b, err := os.ReadFile(filepath.Join(ws, tt.file))
			if tt.want == "" && !errors.Is(err, os.ErrNotExist) || tt.want != "" && string(b) != tt.want {
				t.Fatalf("%s = %q, %v; want %q", tt.file, b, err, tt.want)
			}
			noTemps(t, ws)
		})
	}
}

// TestEditFile: exact-match replacement, unique unless replace_all; the failures are
// error results and leave the file as it was.
func TestEditFile(t *testing.T) {
	const orig = "alpha beta\nbeta gamma\ndelta\n"
	tests := []struct {
		name, input, want string
		isError           bool
	}{
		{"unique", `{"file_path":"f.txt","old_string":"delta","new_string":"DELTA"}`, "alpha beta\nbeta gamma\nDELTA\n", false},
		{"not unique", `{"file_path":"f.txt","old_string":"beta","new_string":"B"}`, orig, true},
		{"replace all", `{"file_path":"f.txt","old_string":"beta","new_string":"B","replace_all":true}`, "alpha B\nB gamma\ndelta\n", false},
		{"absent", `{"file_path":"f.txt","old_string":"omega","new_string":"x"}`, orig, true},
		{"same", `{"file_path":"f.txt","old_string":"delta","new_string":"delta"}`, orig, true},
		{"missing file", `{"file_path":"nope.txt","old_string":"a","new_string":"b"}`, orig, true},
		{"multi-line unique", `{"file_path":"f.txt","old_string":"beta\nbeta","new_string":"x\ny"}`, "alpha x\ny gamma\ndelta\n", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ws, _ := tree(t, map[string]string{"f.txt": orig})
			res, err := run(t, EditFile(WriteOptions{}), ws, tt.input)
			if err != nil || res.IsError != tt.isError {
				t.Fatalf("%v %+v", err, res)
			}
			if got := readWS(t, ws, "f.txt"); got != tt.want {
				t.Fatalf("f.txt = %q, want %q", got, tt.want)
			}
			noTemps(t, ws)
		})
	}
}

// TestEditFileConfinement: edit_file refuses what write_file refuses.
func TestEditFileConfinement(t *testing.T) {
	ws, out := tree(t, map[string]string{"link-out": "->$OUT/secret.txt", "dir-out": "->$OUT"})
	for _, p := range []string{"link-out", "dir-out/secret.txt", "../outside/secret.txt", out + "/secret.txt"} {
		_, err := run(t, EditFile(WriteOptions{}), ws, `{"file_path":"`+p+`","old_string":"SECRET","new_string":"X"}`)
		if !errors.Is(err, ErrOutsideWorkspace) {
			t.Errorf("%s: err = %v; want ErrOutsideWorkspace", p, err)
		}
	}
	if got, _ := os.ReadFile(filepath.Join(out, "secret.txt")); string(got) != "SECRET\n" {
		t.Fatalf("outside file changed: %q", got)
	}
}

// TestProtectedPaths: the built-in list and the configured files are protected, through a
// link too; an ordinary file is not.
func TestProtectedPaths(t *testing.T) {
	home := filepath.Join(t.TempDir(), "cwxhome")
	ws, _ := tree(t, map[string]string{"ok.txt": "x", "to-git": "->.git/config", ".git/config": "[core]\n", "hooks.json": "{}"})
	o := WriteOptions{Protected: []string{filepath.Join(ws, "hooks.json"), home}}
	if err := os.Symlink(home, filepath.Join(ws, "home")); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(home, 0o755); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		path      string
		protected bool
	}{
		{"ok.txt", false}, {"src/main.go", false}, {"environment.txt", false}, {"docs/package.json.md", false},
		{".git/config", true}, {".git/hooks/pre-commit", true}, {"sub/.git/config", true}, {".GIT/config", true},
		{".envrc", true}, {".env", true}, {".env.local", true}, {"app/.env.production", true},
		{".mcp.json", true}, {".claude/settings.json", true}, {".vscode/tasks.json", true},
		{"package.json", true}, {"web/package.json", true}, {"hooks.json", true},
	}
	for _, tt := range tests {
		p, err := WriteFile(o).(Planner).Plan(context.Background(), Call{Workspace: ws, Input: json.RawMessage(`{"file_path":"` + tt.path + `","content":"x"}`)})
		if err != nil {
			t.Errorf("%s: %v", tt.path, err)
			continue
		}
		if (p.Protected != "") != tt.protected {
			t.Errorf("%s: Protected = %q, want protected %v", tt.path, p.Protected, tt.protected)
		}
	}
	// $CWX_HOME through a link inside the workspace is outside it: refused outright.
	if _, err := WriteFile(o).(Planner).Plan(context.Background(), Call{Workspace: ws, Input: json.RawMessage(`{"file_path":"home/config.toml","content":"x"}`)}); !errors.Is(err, ErrOutsideWorkspace) {
		t.Errorf("home/config.toml: %v", err)
	}
	// $CWX_HOME inside the workspace is protected.
	inner := filepath.Join(ws, "inner-home")
	o2 := WriteOptions{Protected: []string{inner}}
	p, err := EditFile(o2).(Planner).Plan(context.Background(), Call{Workspace: ws, Input: json.RawMessage(`{"file_path":"ok.txt","old_string":"x","new_string":"y"}`)})
	if err != nil || p.Protected != "" {
		t.Fatalf("ok.txt: %v %q", err, p.Protected)
	}
	p, err = WriteFile(o2).(Planner).Plan(context.Background(), Call{Workspace: ws, Input: json.RawMessage(`{"file_path":"inner-home/config.toml","content":"x"}`)})
	if err != nil || p.Protected == "" {
		t.Fatalf("inner-home/config.toml: %v %q", err, p.Protected)
	}
}

// TestWriteThroughLinkToProtected: a write whose name is ordinary but reaches a protected
// path through a link (of the file, or of a folder above it) is refused, so the card
// cannot be bypassed by linking; the protected file is untouched.
func TestWriteThroughLinkToProtected(t *testing.T) {
	ws, _ := tree(t, map[string]string{".git/config": "[core]\n", ".git/hooks/x": "", "to-git": "->.git/config", "hooks-dir": "->.git/hooks"})
	for _, in := range []string{
		`{"file_path":"to-git","content":"x"}`,
		`{"file_path":"hooks-dir/pre-commit","content":"x"}`,
		`{"file_path":"to-git","old_string":"core","new_string":"x"}`,
	} {
		tl := WriteFile(WriteOptions{})
		if strings.Contains(in, "old_string") {
			tl = EditFile(WriteOptions{})
		}
		res, err := run(t, tl, ws, in)
		if err != nil || !res.IsError || !strings.Contains(res.Text, "symbolic link") {
			t.Errorf("%s: %v %+v; want refused", in, err, res)
		}
	}
	if got := readWS(t, ws, ".git/config"); got != "[core]\n" {
		t.Fatalf(".git/config = %q", got)
	}
	if _, err := os.Stat(filepath.Join(ws, ".git/hooks/pre-commit")); err == nil {
		t.Fatal("a git hook was written through a linked folder")
	}
	noTemps(t, ws)
}
