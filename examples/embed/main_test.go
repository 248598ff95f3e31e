package main

import (
	"bytes"
	"context"
	"fmt"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cwx-dev/cwx/core"
	"github.com/cwx-dev/cwx/nodeshim"
	"github.com/cwx-dev/cwx/shared"
	"github.com/cwx-dev/cwx/shared/testenv"
)

// TestMain lets the test binary act as the shim, as the example's main does: the Manager
// re-executes the running binary as `<binary> nodeshim`. The tests themselves must leave no
// process and no goroutine behind.
func TestMain(m *testing.M) {
	if shared.Invoked(os.Args) {
		os.Exit(nodeshim.Main(os.Args[2:]))
	}
	os.Exit(testenv.Main(m))
}

// home makes a cwx home with the hello-extension example installed, trusted and enabled.
func home(t *testing.T, runtime, path string) string {
	t.Helper()
	conf := fmt.Sprintf("[extension_host]\nruntime = %q\n%s = %q\n\n[plugins.\"hello-extension\".config]\ngreeting = \"Hello from Go\"\n", runtime, runtime, path)
	return homeWith(t, conf, filepath.Join("..", "hello-extension"))
}

// homeWith makes a cwx home with config.toml conf and the plugin at dir installed, trusted
// and enabled.
func homeWith(t *testing.T, conf, dir string) string {
	t.Helper()
	home := t.TempDir()
	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	m, err := core.Open(context.Background(), core.Options{Home: home})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close(context.Background())
	src, err := filepath.Abs(dir)
	if err != nil {
		t.Fatal(err)
	}
	store := m.Plugins()
	res, err := store.Install(src)
	if err != nil {
		t.Fatal(err)
	}
	rev, err := store.Review(res.ID)
	if err != nil {
		t.Fatal(err)
	}
	if err := store.Trust(res.ID, rev.Token); err != nil {
		t.Fatal(err)
	}
	if err := store.Enable(res.ID); err != nil {
		t.Fatal(err)
	}
	return home
}

func TestEmbedCallsWithItsOwnApprover(t *testing.T) {
	for _, want := range testenv.Runtimes() {
		t.Run(want.Name, func(t *testing.T) {
			rt := want.Get(t)
			dir := home(t, rt.Name, rt.Path)
			cases := []struct {
				name      string
				args      []string
				want      int
				stdout    string
				approvals string
			}{
				{"approved", []string{"-allow", "hello_greet", "hello_greet", `{"name":"Ada"}`}, exitOK, `"text":"Hello from Go, Ada!"`, "allow once"},
				{"session", []string{"-allow", "hello_greet", "-session", "hello_greet"}, exitOK, `"text":"Hello from Go, world!"`, "allow for session"},
				{"tool session", []string{"-allow", "hello_greet", "-tool-session", "hello_greet", `{"name":"Bob"}`}, exitOK, `"text":"Hello from Go, Bob!"`, "allow tool for session"},
				{"both session flags", []string{"-session", "-tool-session", "hello_greet"}, exitUsage, "", ""},
				{"denied", []string{"hello_greet", `{"name":"Ada"}`}, exitDenied, "tool     hello_greet (extension:hello-extension)", ": deny"},
				{"invalid input", []string{"-allow", "hello_greet", "hello_greet", `{"name":42}`}, exitInvalid, "command  /hello", ""},
				{"unknown tool", []string{"no_such_tool"}, exitUnavailable, "", ""},
				{"usage", nil, exitUsage, "", ""},
			}
			for _, c := range cases {
				t.Run(c.name, func(t *testing.T) {
					var out, errb bytes.Buffer
					code := run(context.Background(), append([]string{"-home", dir}, c.args...), &out, &errb)
					if code != c.want {
						t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, c.want, out.String(), errb.String())
					}
					if !strings.Contains(out.String(), c.stdout) {
						t.Fatalf("stdout does not contain %q:\n%s", c.stdout, out.String())
					}
					approvals := strings.Count(errb.String(), "approval Extension tool `hello_greet` from plugin `hello-extension`")
					if (c.approvals != "") != (approvals == 1) || !strings.Contains(errb.String(), c.approvals) {
						t.Fatalf("approvals (%d) do not match %q:\n%s", approvals, c.approvals, errb.String())
					}
				})
			}
		})
	}
}

// TestEmbedImportsOnlyCore: an embedder needs core (and nodeshim and shared for its main's
// shim dispatch), nothing below core: the decisions, ApproverFunc and the store and tier
// types are named in core.
func TestEmbedImportsOnlyCore(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), "main.go", nil, parser.ImportsOnly)
	if err != nil {
		t.Fatal(err)
	}
	allowed := map[string]bool{"github.com/cwx-dev/cwx/core": true, "github.com/cwx-dev/cwx/nodeshim": true, "github.com/cwx-dev/cwx/shared": true}
	for _, imp := range f.Imports {
		p := strings.Trim(imp.Path.Value, `"`)
		if strings.HasPrefix(p, "github.com/cwx-dev/cwx/") && !allowed[p] {
			t.Errorf("main.go imports %s", p)
		}
	}
}
