package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cwx-dev/cwx/shared/testenv"
)

// skillsTree writes the skills fixture under home and ws: two good skills (one per root), a
// home skill whose name the workspace already holds, a SKILL.md with no front matter and
// one whose name differs from its folder.
func skillsTree(t *testing.T, home, ws string) {
	t.Helper()
	files := map[string]string{
		filepath.Join(ws, ".cwx", "skills", "review", "SKILL.md"):      "---\nname: review\ndescription: Review a change before it lands.\n---\nSteps.\n",
		filepath.Join(ws, ".cwx", "skills", "nofront", "SKILL.md"):     "Just text.\n",
		filepath.Join(home, "skills", "release-notes", "SKILL.md"):     "---\nname: release-notes\ndescription: \"Write the release notes.\"\n---\n",
		filepath.Join(home, "skills", "review", "SKILL.md"):            "---\nname: review\ndescription: The personal one.\n---\n",
		filepath.Join(home, "skills", "Mismatch", "SKILL.md"):          "---\nname: other\ndescription: Named for another folder.\n---\n",
		filepath.Join(home, "skills", "not-a-skill", "README.md"):      "no SKILL.md here: not a candidate\n",
		filepath.Join(ws, ".cwx", "skills", "empty-desc", "SKILL.md"):  "---\nname: empty-desc\ndescription:\n---\n",
		filepath.Join(ws, ".cwx", "skills", "zz-unclosed", "SKILL.md"): "---\nname: zz-unclosed\ndescription: never closed\n",
	}
	for path, body := range files {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestSkillsList pins `cwx skills list` (text and --json): the workspace's root first, then
// the home's; each refused candidate with its reason; exit 3 when one was refused, 0 when
// none was, and `no skills` when the roots hold none.
func TestSkillsList(t *testing.T) {
	home, ws := filepath.Join(t.TempDir(), "home"), filepath.Join(t.TempDir(), "ws")
	t.Setenv("CWX_HOME", home)
	skillsTree(t, home, ws)
	anon := func(s string) []byte {
		s = strings.ReplaceAll(s, home, "$CWX_HOME")
		return []byte(strings.ReplaceAll(s, ws, "$WORKSPACE"))
	}
	for _, c := range []struct {
		golden string
		args   []string
	}{
		{"skills-list.golden", []string{"skills", "list", "--workspace", ws}},
		{"skills-list-json.golden", []string{"skills", "list", "--workspace", ws, "--json"}},
	} {
		code, out, errs := runCLI(c.args...)
		if code != ExitInvalid || errs != "" {
			t.Errorf("%s: exit %d (want %d), stderr %q", strings.Join(c.args, " "), code, ExitInvalid, errs)
		}
		checkGolden(t, c.golden, anon(out))
	}

	var res SkillsListResult
	_, out, _ := runCLI("skills", "list", "--workspace", ws, "--json")
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	if len(res.Skills) != 2 || res.Skills[0].Name != "release-notes" || res.Skills[1].Name != "review" ||
		res.Skills[1].Path != filepath.Join(ws, ".cwx", "skills", "review", "SKILL.md") || len(res.Refused) != 5 {
		t.Fatalf("the workspace's review wins, five refused: %+v", res)
	}

	// a workspace with none: the home's alone; nothing refused there but the home's own
	empty := t.TempDir()
	if err := os.RemoveAll(filepath.Join(home, "skills", "Mismatch")); err != nil {
		t.Fatal(err)
	}
	code, out, errs := runCLI("skills", "list", "--workspace", empty)
	if code != ExitOK || errs != "" || !strings.Contains(out, "release-notes") || !strings.Contains(out, "The personal one.") || strings.Contains(out, "refused") {
		t.Errorf("home only: exit %d\n%s%s", code, out, errs)
	}
	t.Setenv("CWX_HOME", t.TempDir())
	code, out, _ = runCLI("skills", "list", "--workspace", empty)
	if code != ExitOK || !strings.HasPrefix(out, "no skills under "+filepath.Join(empty, ".cwx", "skills")+" and ") {
		t.Errorf("no skills: exit %d %q", code, out)
	}
	if code, _, errs := runCLI("skills", "list", "--workspace", filepath.Join(empty, "nope")); code != ExitUsage || !strings.Contains(errs, "--workspace") {
		t.Errorf("a missing workspace: exit %d %q", code, errs)
	}
}

// TestSkillsServiceEndToEnd runs a plugin's `skills.list()` under the real cwx binary, on
// Node and Bun: `tool call` and `repl` offer the skills of the command's
// workspace and of the home, audited as `cwx skills list` shows them, and the refused
// candidates never reach the plugin.
func TestSkillsServiceEndToEnd(t *testing.T) {
	bin := testenv.BuildCWX(t, "")
	fixture, err := filepath.Abs(filepath.Join("..", "..", "testdata", "plugins", "skills-list"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range testenv.Runtimes() {
		t.Run(want.Name, func(t *testing.T) {
			rt := want.Get(t)
			home, ws := e2eHome(t, rt, ""), t.TempDir()
			skillsTree(t, home, ws)
			e2eMust(t, bin, home, "plugin", "enable", e2eTrusted(t, bin, home, fixture))
			names := func(r cliResult) string {
				t.Helper()
				var res struct {
					Structured struct {
						Skills []struct{ Name, Description, Path string }
						Error  string
					} `json:"structured"`
				}
				line := r.stdout[strings.Index(r.stdout, "{"):]
				if err := json.Unmarshal([]byte(line), &res); err != nil {
					t.Fatalf("%v\n%s%s", err, r.stdout, r.stderr)
				}
				var got []string
				for _, s := range res.Structured.Skills {
					got = append(got, s.Name+"="+s.Description)
				}
				return strings.Join(got, ",") + res.Structured.Error
			}
			const want = "release-notes=Write the release notes.,review=Review a change before it lands."
			r := e2eCWX(t, bin, home, "", "tool", "call", "show_skills", "--workspace", ws, "--approve", "auto", "--json")
			if r.code != ExitOK || names(r) != want {
				t.Errorf("tool call: exit %d %q\n%s%s", r.code, names(r), r.stdout, r.stderr)
			}
			// another workspace: only the home's, the personal review among them
			r = e2eCWX(t, bin, home, "", "tool", "call", "show_skills", "--approve", "auto", "--json")
			if got := names(r); r.code != ExitOK || got != "release-notes=Write the release notes.,review=The personal one." {
				t.Errorf("tool call in another workspace: exit %d %q\n%s", r.code, got, r.stderr)
			}
			r = e2eCWX(t, bin, home, "/call show_skills {}\n", "repl", "--approve", "auto", "--workspace", ws)
			if r.code != ExitOK || !strings.Contains(r.stdout, "Review a change before it lands.") || strings.Contains(r.stdout, "nofront") {
				t.Errorf("repl: exit %d\n%s%s", r.code, r.stdout, r.stderr)
			}
		})
	}
}
