package core

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cwx-dev/cwx/core/gate"
	"github.com/cwx-dev/cwx/shared/testenv"
)

// TestNativeWritesInEveryPosture: a model's write of an ordinary file is asked under ask
// (the card shows the diff), approved under auto as Claude Code's acceptEdits does, denied
// under deny; a protected path is forced in every posture: asked under ask and auto, never
// covered by a session grant, denied under deny or with no approver.
func TestNativeWritesInEveryPosture(t *testing.T) {
	type want struct {
		cards   int  // cards raised by two calls
		forced  bool // the cards are forced
		written bool
	}
	paths := []struct{ name, path string }{
		{"ordinary", "src/a.txt"}, {".envrc", ".envrc"}, {".env.local", ".env.local"}, {"git hooks", ".git/hooks/pre-commit"},
		{"git config", ".git/config"}, {".mcp.json", ".mcp.json"}, {".claude", ".claude/settings.json"},
		{".vscode", ".vscode/tasks.json"}, {"package.json", "package.json"},
	}
	for _, tool := range []string{"write_file", "edit_file"} {
		for _, p := range paths {
			protected := p.name != "ordinary"
			for _, tc := range []struct {
				posture  string
				approver bool
				want     want
			}{
				{"ask", true, want{cards: map[bool]int{false: 1, true: 2}[protected], forced: protected, written: true}},
				{"auto", true, want{cards: map[bool]int{false: 0, true: 2}[protected], forced: protected, written: true}},
				{"auto", false, want{written: !protected}},
				{"deny", true, want{}},
			} {
				name := tool + "/" + p.name + "/" + tc.posture
				if !tc.approver {
					name += "/no approver"
				}
				t.Run(name, func(t *testing.T) {
					ap := &approver{d: gate.AllowSession}
					var use *approver
					if tc.approver {
						use = ap
					}
					m := nativeManager(t, tc.posture, use)
					ws := t.TempDir()
					full := filepath.Join(ws, filepath.FromSlash(p.path))
					if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
						t.Fatal(err)
					}
					in := `{"file_path":"` + p.path + `","content":"new\n"}`
					if tool == "edit_file" {
						in = `{"file_path":"` + p.path + `","old_string":"old","new_string":"new"}`
					}
					var errs []error
					for range 2 {
						if err := os.WriteFile(full, []byte("old\n"), 0o644); err != nil {
							t.Fatal(err)
						}
						_, err := m.CallTool(context.Background(), tool, json.RawMessage(in), CallOptions{Workspace: ws})
						errs = append(errs, err)
					}
					for _, err := range errs {
						if tc.want.written && err != nil || !tc.want.written && !errors.Is(err, ErrDenied) {
							t.Fatalf("call: %v (want written %v)", err, tc.want.written)
						}
					}
					got, _ := os.ReadFile(full)
					if (string(got) == "new\n") != tc.want.written {
						t.Fatalf("%s = %q; want written %v", p.path, got, tc.want.written)
					}
					if len(ap.cards) != tc.want.cards {
						t.Fatalf("%d cards, want %d", len(ap.cards), tc.want.cards)
					}
					for _, c := range ap.cards {
						if c.Forced != tc.want.forced || !strings.Contains(c.Diff, "-old\n+new\n") {
							t.Fatalf("card forced %v diff %q", c.Forced, c.Diff)
						}
						if protected && !strings.Contains(c.Text(), "protected path: ") {
							t.Fatalf("card does not say the path is protected:\n%s", c.Text())
						}
					}
				})
			}
		}
	}
}

// TestNativeWritesProtectTheHome: $CWX_HOME and the configured hooks files are protected
// paths of the built-in write tools, even under auto.
func TestNativeWritesProtectTheHome(t *testing.T) {
	e := newEnv(t, testenv.Runtime{Name: "node", Path: "/nonexistent/node"})
	hooks := filepath.Join(t.TempDir(), "settings.json")
	if err := os.WriteFile(hooks, []byte(`{"hooks":{}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := "hooks_file = \"" + hooks + "\"\n[extension_host]\nruntime = \"node\"\nnode = \"/nonexistent/node\"\n"
	if err := os.WriteFile(filepath.Join(e.home, "config.toml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	m := e.open(func(o *Options) { o.PollInterval, o.Approval = -1, "auto" })
	for _, c := range []struct{ ws, path string }{
		{filepath.Dir(e.home), filepath.Join(filepath.Base(e.home), "config.toml")},
		{filepath.Dir(hooks), "settings.json"},
	} {
		_, err := m.CallTool(context.Background(), "write_file", json.RawMessage(`{"file_path":"`+c.path+`","content":"x"}`), CallOptions{Workspace: c.ws})
		if !errors.Is(err, ErrDenied) {
			t.Errorf("%s: %v; want denied (forced, no approver)", c.path, err)
		}
	}
	if b, _ := os.ReadFile(hooks); string(b) != `{"hooks":{}}` {
		t.Fatalf("hooks file changed: %q", b)
	}
}
