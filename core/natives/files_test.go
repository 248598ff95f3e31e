package natives

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/cwx-dev/cwx/core/errdefs"
)

// tree makes a workspace and, beside it, an outside directory with a secret. files maps
// slash paths to contents; a content "->target" makes a symbolic link.
func tree(t *testing.T, files map[string]string) (ws, outside string) {
	t.Helper()
	base := t.TempDir()
	ws, outside = filepath.Join(base, "ws"), filepath.Join(base, "outside")
	for _, d := range []string{ws, outside} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(outside, "secret.txt"), []byte("SECRET\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for p, content := range files {
		full := filepath.Join(ws, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		var err error
		if target, ok := strings.CutPrefix(content, "->"); ok {
			err = os.Symlink(strings.ReplaceAll(target, "$OUT", outside), full)
		} else {
			err = os.WriteFile(full, []byte(content), 0o644)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	return ws, outside
}

func run(t *testing.T, tool Tool, ws string, input string) (Result, error) {
	t.Helper()
	return tool.Run(context.Background(), Call{Workspace: ws, Input: json.RawMessage(input)})
}

func numbered(from int, lines ...string) string {
	var b strings.Builder
	for i, l := range lines {
		fmt.Fprintf(&b, "%6d\t%s\n", from+i, l)
	}
	return b.String()
}

// TestReadFile: lines numbered from 1, offset and limit, long lines cut, and the
// failures a model sees as error results.
func TestReadFile(t *testing.T) {
	long := strings.Repeat("x", MaxLineBytes+50)
	var many, first strings.Builder
	for i := 1; i <= DefaultReadLines+5; i++ {
		fmt.Fprintf(&many, "l%d\n", i)
		if i <= DefaultReadLines {
			first.WriteString(numbered(i, fmt.Sprintf("l%d", i)))
		}
	}
	ws, _ := tree(t, map[string]string{
		"a.txt": "one\ntwo\r\nthree\nfour", "long.txt": long + "\nshort\n", "many.txt": many.String(),
		"bin.dat": "ab\x00cd", "dir/x.txt": "x\n", "empty.txt": "",
	})
	tests := []struct {
		name, input, want string
		isError           bool
	}{
		{"whole file", `{"file_path":"a.txt"}`, numbered(1, "one", "two", "three", "four"), false},
		{"absolute inside", `{"file_path":"` + filepath.Join(ws, "a.txt") + `"}`, numbered(1, "one", "two", "three", "four"), false},
		{"dot segments inside", `{"file_path":"dir/../a.txt"}`, numbered(1, "one", "two", "three", "four"), false},
		{"offset", `{"file_path":"a.txt","offset":3}`, numbered(3, "three", "four"), false},
		{"offset and limit", `{"file_path":"a.txt","offset":2,"limit":2}`, numbered(2, "two", "three") + "[more lines after line 3: read on with offset 4]\n", false},
		{"offset past the end", `{"file_path":"a.txt","offset":9}`, "[a.txt has 4 lines; offset 9 is past its end]\n", false},
		{"long line cut", `{"file_path":"long.txt"}`, numbered(1, long[:MaxLineBytes]+"…", "short"), false},
		{"default limit", `{"file_path":"many.txt"}`, first.String() + "[more lines after line 2000: read on with offset 2001]\n", false},
		{"the rest", `{"file_path":"many.txt","offset":2004}`, numbered(2004, "l2004", "l2005"), false},
		{"empty", `{"file_path":"empty.txt"}`, "[empty.txt is empty]\n", false},
		{"binary", `{"file_path":"bin.dat"}`, "read_file: bin.dat is a binary file", true},
		{"directory", `{"file_path":"dir"}`, "read_file: dir is a directory; use list_dir", true},
		{"missing", `{"file_path":"nope.txt"}`, "read_file: nope.txt: no such file or directory", true},
	}
	if err := syscall.Mkfifo(filepath.Join(ws, "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests = append(tests, struct {
		name, input, want string
		isError           bool
	}{"fifo", `{"file_path":"fifo"}`, "read_file: fifo is not a regular file", true})
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res, err := run(t, ReadFile(), ws, tc.input)
			if err != nil {
				t.Fatal(err)
			}
			if res.Text != tc.want || res.IsError != tc.isError {
				t.Errorf("got (error %v)\n%q\nwant (error %v)\n%q", res.IsError, res.Text, tc.isError, tc.want)
			}
		})
	}
}

// TestConfinement: every file tool refuses `..`, absolute paths elsewhere and symbolic
// links leading out with ErrOutsideWorkspace (a case of ErrDenied), and a call without a
// workspace with ErrNoWorkspace; the secret's text never comes back.
func TestConfinement(t *testing.T) {
	ws, outside := tree(t, map[string]string{
		"in.txt": "inside\n", "out-file": "->$OUT/secret.txt", "out-dir": "->$OUT", "rel-out": "->../outside/secret.txt",
		"sub/up": "->../..",
	})
	secret := filepath.Join(outside, "secret.txt")
	type probe struct {
		tool  Tool
		input string
	}
	tests := []struct {
		name   string
		ws     string
		probes []probe
		want   error
	}{
		{"dot-dot", ws, []probe{
			{ReadFile(), `{"file_path":"../outside/secret.txt"}`}, {ReadFile(), `{"file_path":"sub/../../outside/secret.txt"}`},
			{ListDir(), `{"path":".."}`}, {FileSearch(), `{"pattern":"*","path":"../outside"}`},
			{GrepFiles(), `{"pattern":"SECRET","path":"../outside"}`},
		}, ErrOutsideWorkspace},
		{"absolute elsewhere", ws, []probe{
			{ReadFile(), `{"file_path":"` + secret + `"}`}, {ReadFile(), `{"file_path":"/etc/passwd"}`},
			{ListDir(), `{"path":"` + outside + `"}`}, {FileSearch(), `{"pattern":"*","path":"/"}`},
			{GrepFiles(), `{"pattern":"SECRET","path":"` + secret + `"}`},
		}, ErrOutsideWorkspace},
		{"symlink out", ws, []probe{
			{ReadFile(), `{"file_path":"out-file"}`}, {ReadFile(), `{"file_path":"rel-out"}`},
			{ReadFile(), `{"file_path":"out-dir/secret.txt"}`}, {ReadFile(), `{"file_path":"sub/up/outside/secret.txt"}`},
			{ListDir(), `{"path":"out-dir"}`}, {ListDir(), `{"path":"sub/up"}`},
			{FileSearch(), `{"pattern":"*","path":"out-dir"}`}, {GrepFiles(), `{"pattern":"SECRET","path":"out-file"}`},
			{GrepFiles(), `{"pattern":"SECRET","path":"out-dir"}`},
		}, ErrOutsideWorkspace},
		{"no workspace", "", []probe{
			{ReadFile(), `{"file_path":"in.txt"}`}, {ListDir(), `{"path":"."}`}, {FileSearch(), `{"pattern":"*"}`},
			{GrepFiles(), `{"pattern":"x"}`}, {Shell(), `{"command":"true"}`},
		}, ErrNoWorkspace},
		{"relative workspace", "ws", []probe{{ReadFile(), `{"file_path":"in.txt"}`}, {Shell(), `{"command":"true"}`}}, ErrNoWorkspace},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for _, p := range tc.probes {
				res, err := run(t, p.tool, tc.ws, p.input)
				if !errors.Is(err, tc.want) || !errors.Is(err, errdefs.ErrDenied) {
					t.Errorf("%s %s: err %v (result %q), want %v", p.tool.Spec().Name, p.input, err, res.Text, tc.want)
				}
				if strings.Contains(res.Text, "SECRET") || err != nil && strings.Contains(err.Error(), "SECRET") {
					t.Errorf("%s %s: the secret leaked", p.tool.Spec().Name, p.input)
				}
			}
		})
	}
	// A walk over the workspace itself does not follow the links out.
	res, err := run(t, GrepFiles(), ws, `{"pattern":"SECRET|inside"}`)
	if err != nil || res.Text != "in.txt:1:inside\n" {
		t.Errorf("grep over the workspace: %q, %v", res.Text, err)
	}
}

// TestListDir: sorted entries, directories with /, links with @, bounded at MaxEntries.
func TestListDir(t *testing.T) {
	files := map[string]string{"b.txt": "", "a/x": "", "link": "->b.txt", "empty/.keep": ""}
	big := map[string]string{}
	for i := range MaxEntries + 3 {
		big[fmt.Sprintf("big/f%04d", i)] = ""
	}
	for k, v := range big {
		files[k] = v
	}
	ws, _ := tree(t, files)
	tests := []struct {
		name, input, want string
		isError           bool
	}{
		{"workspace", `{"path":"."}`, "a/\nb.txt\nbig/\nempty/\nlink@\n", false},
		{"empty path is the workspace", `{"path":""}`, "a/\nb.txt\nbig/\nempty/\nlink@\n", false},
		{"subdirectory", `{"path":"a"}`, "x\n", false},
		{"hidden file", `{"path":"empty"}`, ".keep\n", false},
		{"missing", `{"path":"nope"}`, "list_dir: nope: no such file or directory", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res, err := run(t, ListDir(), ws, tc.input)
			if err != nil || res.Text != tc.want || res.IsError != tc.isError {
				t.Errorf("got %q (error %v, %v), want %q", res.Text, res.IsError, err, tc.want)
			}
		})
	}
	t.Run("bounded", func(t *testing.T) {
		res, err := run(t, ListDir(), ws, `{"path":"big"}`)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSuffix(res.Text, "\n"), "\n")
		if len(lines) != MaxEntries+1 || lines[MaxEntries] != "[3 more entries not listed]" {
			t.Errorf("%d lines, last %q", len(lines), lines[len(lines)-1])
		}
	})
}

// TestFileSearch: glob segments, `**`, a start path, .git skipped, bounds.
func TestFileSearch(t *testing.T) {
	files := map[string]string{
		"main.go": "", "a/b.go": "", "a/c/d.go": "", "a/c/e.txt": "", ".git/x.go": "", "docs/readme.md": "",
	}
	for i := range MaxEntries + 1 {
		files[fmt.Sprintf("many/f%04d.log", i)] = ""
	}
	ws, _ := tree(t, files)
	tests := []struct {
		name, input, want string
	}{
		{"top level", `{"pattern":"*.go"}`, "main.go\n"},
		{"any depth", `{"pattern":"**/*.go"}`, "a/b.go\na/c/d.go\nmain.go\n"},
		{"under a directory", `{"pattern":"a/**/*.go"}`, "a/b.go\na/c/d.go\n"},
		{"from a path", `{"pattern":"*.go","path":"a/c"}`, "a/c/d.go\n"},
		{"character class", `{"pattern":"**/[de].*"}`, "a/c/d.go\na/c/e.txt\n"},
		{"no match", `{"pattern":"**/*.rs"}`, "[no files match]\n"},
		{"bad pattern", `{"pattern":"[a"}`, `file_search: bad pattern "[a": syntax error in pattern`},
		{"dot-dot pattern", `{"pattern":"../*"}`, "file_search: bad pattern \"../*\": `..` is not allowed"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res, err := run(t, FileSearch(), ws, tc.input)
			if err != nil || res.Text != tc.want {
				t.Errorf("got %q (%v), want %q", res.Text, err, tc.want)
			}
		})
	}
	t.Run("bounded", func(t *testing.T) {
		res, err := run(t, FileSearch(), ws, `{"pattern":"many/*.log"}`)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSuffix(res.Text, "\n"), "\n")
		if len(lines) != MaxEntries+1 || !strings.HasPrefix(lines[MaxEntries], "[more files match") {
			t.Errorf("%d lines, last %q", len(lines), lines[len(lines)-1])
		}
	})
}

// TestGrepFiles: matches as path:line:text, glob by name and by path, a single file,
// binary files skipped, bounded at MaxMatches.
func TestGrepFiles(t *testing.T) {
	ws, _ := tree(t, map[string]string{
		"a.go": "package a\nfunc Hello() {}\n", "b/c.go": "// Hello\n", "b/d.txt": "hello\nHello\n",
		"bin.dat": "Hello\x00", "many.txt": strings.Repeat("match\n", MaxMatches+2),
	})
	tests := []struct {
		name, input, want string
		isError           bool
	}{
		{"everywhere", `{"pattern":"Hello"}`, "a.go:2:func Hello() {}\nb/c.go:1:// Hello\nb/d.txt:2:Hello\n", false},
		{"case-insensitive flag", `{"pattern":"(?i)^hello$"}`, "b/d.txt:1:hello\nb/d.txt:2:Hello\n", false},
		{"glob by name", `{"pattern":"Hello","glob":"*.go"}`, "a.go:2:func Hello() {}\nb/c.go:1:// Hello\n", false},
		{"glob by path", `{"pattern":"Hello","glob":"b/*.go"}`, "b/c.go:1:// Hello\n", false},
		{"from a path", `{"pattern":"Hello","path":"b"}`, "b/c.go:1:// Hello\nb/d.txt:2:Hello\n", false},
		{"one file", `{"pattern":"package","path":"a.go"}`, "a.go:1:package a\n", false},
		{"no match", `{"pattern":"nothing here"}`, "[no lines match]\n", false},
		{"bad pattern", `{"pattern":"("}`, "grep_files: bad pattern: error parsing regexp: missing closing ): `(`", true},
		{"missing path", `{"pattern":"x","path":"nope"}`, "grep_files: nope: no such file or directory", true},
	}
	if err := syscall.Mkfifo(filepath.Join(ws, "b", "fifo"), 0o644); err != nil {
		t.Fatal(err) // a FIFO in the walk is skipped (opening it would block)
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res, err := run(t, GrepFiles(), ws, tc.input)
			if err != nil || res.Text != tc.want || res.IsError != tc.isError {
				t.Errorf("got %q (error %v, %v), want %q", res.Text, res.IsError, err, tc.want)
			}
		})
	}
	t.Run("bounded", func(t *testing.T) {
		res, err := run(t, GrepFiles(), ws, `{"pattern":"^match$","path":"many.txt"}`)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSuffix(res.Text, "\n"), "\n")
		if len(lines) != MaxMatches+1 || !strings.HasPrefix(lines[MaxMatches], "[more lines match") {
			t.Errorf("%d lines, last %q", len(lines), lines[len(lines)-1])
		}
	})
}

// TestCancelled: a file tool called with an ended context returns its error.
func TestCancelled(t *testing.T) {
	ws, _ := tree(t, map[string]string{"a.txt": "a\n"})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, tool := range []Tool{ReadFile(), ListDir(), FileSearch(), GrepFiles()} {
		if _, err := tool.Run(ctx, Call{Workspace: ws, Input: json.RawMessage(`{"file_path":"a.txt","path":".","pattern":"a"}`)}); !errors.Is(err, context.Canceled) {
			t.Errorf("%s: %v", tool.Spec().Name, err)
		}
	}
}
