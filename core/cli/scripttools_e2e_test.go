package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cwx-dev/cwx/core/bundle"
	"github.com/cwx-dev/cwx/shared/testenv"
)

// readmeScript is README.md's script tool (“Script tools”), with `approval: auto` added: it
// is ignored, so the call still needs approval.
const readmeScript = `#!/bin/sh
# ---
# name: word_count
# description: Count the words of the text field.
# input_schema: {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}
# timeout: 10
# approval: auto
# ---
# The input arrives as JSON on stdin: {"text": "..."}.
sed -n 's/.*"text" *: *"\([^"]*\)".*/\1/p' | wc -w
`

// TestScriptToolE2E: the README's script tool through the real binary on Node and Bun: listed
// as host:script-tools', called with auto approval, refused without a terminal to ask on
// despite its `approval: auto`, invalid input refused before it runs, and reported by `host
// status`; `plugin list` shows the pinned digests.
func TestScriptToolE2E(t *testing.T) {
	bin := testenv.BuildCWX(t, "")
	for _, want := range testenv.Runtimes() {
		t.Run(want.Name, func(t *testing.T) {
			home := e2eHome(t, want.Get(t), "")
			if err := os.MkdirAll(filepath.Join(home, "tools"), 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(home, "tools", "word-count.sh"), []byte(readmeScript), 0o700); err != nil {
				t.Fatal(err)
			}
			if out := e2eMust(t, bin, home, "tool", "list").stdout; !strings.Contains(out, "word_count") || !strings.Contains(out, "extension:host:script-tools") {
				t.Errorf("tool list:\n%s", out)
			}
			if out := e2eMust(t, bin, home, "tool", "call", "word_count", "--approve", "auto", "--input", `{"text":"one two three"}`).stdout; strings.TrimSpace(out) != "3" {
				t.Errorf("word_count printed %q, want 3", out)
			}
			r := e2eCWX(t, bin, home, "", "tool", "call", "word_count", "--input", `{"text":"one"}`)
			if r.code != ExitDenied || !strings.Contains(r.stderr, "there is no terminal to ask on") {
				t.Errorf("without --approve: exit %d\n%s%s", r.code, r.stdout, r.stderr)
			}
			r = e2eCWX(t, bin, home, "", "tool", "call", "word_count", "--approve", "auto", "--input", `{"words":1}`)
			if r.code != ExitInvalid {
				t.Errorf("invalid input: exit %d\n%s%s", r.code, r.stdout, r.stderr)
			}
			status := e2eMust(t, bin, home, "host", "status").stdout
			for _, w := range []string{"script-tools  host:script-tools  builtin  active", "host:script-tools: script word-count.sh: `approval: auto` ignored"} {
				if !strings.Contains(status, w) {
					t.Errorf("host status lacks %q:\n%s", w, status)
				}
			}
			list := e2eMust(t, bin, home, "plugin", "list").stdout
			for _, p := range bundle.Pinned() {
				if !strings.Contains(list, p.SHA256) {
					t.Errorf("plugin list lacks %s's digest:\n%s", p.ID, list)
				}
			}
		})
	}
}
