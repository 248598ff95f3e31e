package cli

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cwx-dev/cwx/core/plugins"
	"github.com/cwx-dev/cwx/nodeshim/jshost"
	"github.com/cwx-dev/cwx/shared/testenv"
)

func TestPluginTypesPrintsTheEmbeddedFile(t *testing.T) {
	onDisk, err := os.ReadFile("../../nodeshim/jshost/types/cwx-plugin.d.ts")
	if err != nil {
		t.Fatal(err)
	}
	got := mustCLI(t, "plugin", "types")
	if got != string(onDisk) || got != string(jshost.AuthorTypes()) {
		t.Fatalf("plugin types printed %d bytes; the file has %d", len(got), len(onDisk))
	}
	for _, decl := range []string{
		"export interface Context", "export interface ToolExec", "export type CommandResult", "export interface CoreApi",
		"export interface Storage", "export interface Prompt", "export interface SystemPrompt", "export interface UserQuestions",
		"export type PreExecuteVerdict", "export { Schema as default, Schema }",
	} {
		if !strings.Contains(got, decl) {
			t.Errorf("cwx-plugin.d.ts lacks %q", decl)
		}
	}
}

func TestPluginNew(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "my-greeter")
	r := runPluginCLI(t, "plugin", "new", "my-greeter", "--dir", dir)
	if r.code != ExitOK {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	checkGolden(t, "plugin-new.golden", []byte(strings.ReplaceAll(r.stdout, dir, "$DIR")))
	dirJSON := filepath.Join(t.TempDir(), "my-greeter")
	r = runPluginCLI(t, "plugin", "new", "my-greeter", "--dir", dirJSON, "--json")
	if r.code != ExitOK {
		t.Fatalf("--json: exit %d: %s", r.code, r.stderr)
	}
	checkGolden(t, "plugin-new-json.golden", []byte(strings.ReplaceAll(r.stdout, dirJSON, "$DIR")))
	m, err := plugins.ReadManifest(dir)
	if err != nil || m.ID != "my-greeter" || len(m.Entries) != 1 || m.Entries[0] != "src/index.ts" {
		t.Fatalf("manifest %+v, %v", m, err)
	}
	types, err := os.ReadFile(filepath.Join(dir, jshost.AuthorTypesName))
	if err != nil || string(types) != string(jshost.AuthorTypes()) {
		t.Fatalf("the scaffold's %s differs from the host's: %v", jshost.AuthorTypesName, err)
	}
	entry, _ := os.ReadFile(filepath.Join(dir, "src", "index.ts"))
	for _, want := range []string{"name: 'my_greeter_greet'", "name: 'my-greeter'", "from 'cwx-plugin'"} {
		if !strings.Contains(string(entry), want) {
			t.Errorf("src/index.ts lacks %q", want)
		}
	}
	refusals := []struct {
		args []string
		want string
	}{
		{[]string{"plugin", "new", "my-greeter", "--dir", dir}, "my-greeter already exists"},
		{[]string{"plugin", "new", "My_Plugin"}, `plugin name "My_Plugin"`},
		{[]string{"plugin", "new", "-x"}, "unknown shorthand flag"},
	}
	for _, c := range refusals {
		if r := runPluginCLI(t, c.args...); r.code != ExitUsage || !strings.Contains(r.stderr, c.want) {
			t.Errorf("cwx %s: exit %d, stderr %q; want %d and %q", strings.Join(c.args, " "), r.code, r.stderr, ExitUsage, c.want)
		}
	}
}

// TestPluginNewScaffoldRuns type-checks a new plugin against its cwx-plugin.d.ts (when the JS
// host's TypeScript is installed) and runs the scaffold's own test, which installs, trusts and
// enables it in a throwaway CWX_HOME and calls its tool and command through this cwx.
func TestPluginNewScaffoldRuns(t *testing.T) {
	rt := testenv.Node(t)
	bin := testenv.BuildCWX(t, "")
	dir := filepath.Join(t.TempDir(), "scaffolded")
	if r := runPluginCLI(t, "plugin", "new", "my-greeter", "--dir", dir); r.code != ExitOK {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	tsc, _ := filepath.Abs("../../nodeshim/jshost/node_modules/typescript/bin/tsc")
	if _, err := os.Stat(tsc); err == nil {
		cmd := exec.Command(rt.Path, tsc, "-p", dir)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("tsc -p %s: %v\n%s", dir, err, out)
		}
	} else {
		t.Logf("typescript is not installed in nodeshim/jshost; type check skipped")
	}
	cmd := exec.Command(rt.Path, "--test")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "CWX="+bin, "PATH="+filepath.Dir(rt.Path)+string(os.PathListSeparator)+os.Getenv("PATH"))
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "# pass 1") {
		t.Fatalf("node --test in the scaffold: %v\n%s", err, out)
	}
}

// TestPluginNewScaffoldUsesTheUsersRuntime runs the scaffold's test with an old node first on
// PATH: the throwaway home must run the runtime the user's own cwx resolves (their config,
// then PATH), and a failure must carry cwx's own message, not only "Command failed".
func TestPluginNewScaffoldUsesTheUsersRuntime(t *testing.T) {
	rt := testenv.Node(t)
	bin := testenv.BuildCWX(t, "")
	old := t.TempDir()
	if err := os.WriteFile(filepath.Join(old, "node"), []byte("#!/bin/sh\necho v18.19.0\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name   string
		config string // the user's config.toml; "" for none
		edit   func(src string) string
		pass   bool
		want   []string // in the test's output
	}{
		{name: "config names a node", config: fmt.Sprintf("[extension_host]\nnode = %q\n", rt.Path), pass: true, want: []string{"# pass 1"}},
		{name: "only an old node", want: []string{"your cwx finds no usable runtime", "v18.19.0", "cwx doctor --json failed (exit 5)"}},
		{
			name: "the tool throws", config: fmt.Sprintf("[extension_host]\nnode = %q\n", rt.Path),
			edit: func(src string) string {
				return strings.Replace(src, "return { text: greet(args.name ?? '') };", "throw new Error('no greeting today');", 1)
			},
			want: []string{"cwx tool call my_greeter_greet", "failed (exit ", "no greeting today"},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			userHome := t.TempDir()
			if c.config != "" {
				if err := os.WriteFile(filepath.Join(userHome, "config.toml"), []byte(c.config), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			dir := filepath.Join(t.TempDir(), "my-greeter")
			if r := runPluginCLI(t, "plugin", "new", "my-greeter", "--dir", dir); r.code != ExitOK {
				t.Fatalf("exit %d: %s", r.code, r.stderr)
			}
			if c.edit != nil {
				src := filepath.Join(dir, "src", "index.ts")
				b, err := os.ReadFile(src)
				if err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(src, []byte(c.edit(string(b))), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			cmd := exec.Command(rt.Path, "--test")
			cmd.Dir = dir
			cmd.Env = append(os.Environ(), "CWX="+bin, "CWX_HOME="+userHome, "PATH="+old)
			out, err := cmd.CombinedOutput()
			if (err == nil) != c.pass {
				t.Fatalf("node --test: %v, want pass %v\n%s", err, c.pass, out)
			}
			for _, w := range c.want {
				if !strings.Contains(string(out), w) {
					t.Errorf("node --test's output lacks %q:\n%s", w, out)
				}
			}
		})
	}
}
