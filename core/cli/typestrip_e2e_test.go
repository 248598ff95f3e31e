package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/cwx-dev/cwx/shared/testenv"
)

// TestTypeStrippingWarnedAtInstall: a TypeScript plugin with an enum (Bun runs it, Node's
// type stripping refuses it) is named with the file, line and column at install (text and
// --json) and in its review, in the words of the configured runtime; and what the warning
// says is true: on Node its tool fails, on Bun it answers.
func TestTypeStrippingWarnedAtInstall(t *testing.T) {
	bin := testenv.BuildCWX(t, "")
	src, err := filepath.Abs(filepath.Join("..", "..", "testdata", "plugins", "ts-enum"))
	if err != nil {
		t.Fatal(err)
	}
	node := testenv.Node(t)
	for _, rt := range testenv.Runtimes() {
		t.Run(rt.Name, func(t *testing.T) {
			r := rt.Get(t)
			conf := ""
			if r.Name == "bun" { // still [extension_host]: the check always runs Node's stripper
				conf = "node = \"" + node.Path + "\"\n"
			}
			home := e2eHome(t, r, conf)
			// the enum spans lines, so Node marks them and gives no column
			want := "lib/color.ts:2: TypeScript enum is not supported in strip-only mode"
			words := map[string]string{"node": "Node.js will not load", "bun": "Bun (configured) runs it"}[r.Name]
			text := e2eMust(t, bin, home, "plugin", "install", src)
			if !strings.Contains(text.stdout, "warning: ") || !strings.Contains(text.stdout, want) || !strings.Contains(text.stdout, words) {
				t.Errorf("install says:\n%s\nwant a warning naming %q in the words %q", text.stdout, want, words)
			}
			id := e2eTrusted(t, bin, home, src) // installs again (unchanged) with --json
			var res PluginInstallResult
			if err := json.Unmarshal([]byte(e2eMust(t, bin, home, "plugin", "install", src, "--json").stdout), &res); err != nil {
				t.Fatal(err)
			}
			if len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0], want) {
				t.Errorf("install --json warnings = %q", res.Warnings)
			}
			var rv struct{ Notes []string }
			if err := json.Unmarshal([]byte(e2eMust(t, bin, home, "plugin", "review", id, "--json").stdout), &rv); err != nil {
				t.Fatal(err)
			}
			if !slices.ContainsFunc(rv.Notes, func(n string) bool { return strings.Contains(n, want) }) {
				t.Errorf("review notes = %q", rv.Notes)
			}
			e2eMust(t, bin, home, "plugin", "enable", id)
			call := e2eCWX(t, bin, home, "", "tool", "call", "ts_color", "--approve", "auto")
			switch r.Name {
			case "node":
				logs := e2eCWX(t, bin, home, "", "logs", id)
				if call.code == 0 || !strings.Contains(logs.stdout, "TypeScript enum is not supported") {
					t.Errorf("on Node the tool ran (exit %d):\n%s%s\nlogs:\n%s", call.code, call.stdout, call.stderr, logs.stdout)
				}
			case "bun":
				if call.code != 0 || strings.TrimSpace(call.stdout) != "red" {
					t.Errorf("on Bun: exit %d:\n%s%s", call.code, call.stdout, call.stderr)
				}
			}
		})
	}
}

// TestPluginDevWarnsTypeStripping: `cwx plugin dev` names TypeScript that Node will not load
// when an edit brings it, with the author's path.
func TestPluginDevWarnsTypeStripping(t *testing.T) {
	bin := testenv.BuildCWX(t, "")
	home := e2eHome(t, testenv.Node(t), "")
	dir := filepath.Join(t.TempDir(), "my-greeter")
	if r := runPluginCLI(t, "plugin", "new", "my-greeter", "--dir", dir); r.code != ExitOK {
		t.Fatalf("plugin new: %d %s", r.code, r.stderr)
	}
	p := startDev(t, bin, home, dir)
	p.expect(devActive)
	if err := os.WriteFile(filepath.Join(dir, "src", "mood.ts"), []byte("export enum Mood { Glad }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	p.expect(regexp.MustCompile(`^warning: Node\.js will not load src/mood\.ts:1:8: TypeScript enum is not supported in strip-only mode`))
}
