package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cwx-dev/cwx/shared/testenv"
)

// reviewRepo makes a workspace whose branch feature has two commits over main; it returns
// the workspace and main's commit.
func reviewRepo(t *testing.T) (string, string) {
	t.Helper()
	dir := t.TempDir()
	git := func(args ...string) string {
		cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@example.invalid"}, args...)...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	write := func(name string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(name+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	git("init", "-q", "-b", "main")
	write("a.txt")
	git("add", "a.txt")
	git("commit", "-q", "-m", "base")
	base := git("rev-parse", "HEAD")
	git("checkout", "-q", "-b", "feature")
	write("b.txt")
	git("add", "b.txt")
	git("commit", "-q", "-m", "add b")
	write("a.txt.new")
	git("mv", "a.txt", "c.txt")
	git("add", "-A")
	git("commit", "-q", "-m", "move a to c")
	return dir, base
}

// TestEmbedGitReviewScope runs a plugin that reads a review scope with execFile('git', …), in
// the callback and the promisified forms, against the example's fake agent: each query is run
// by the agent in the workspace, not in the sandbox; another git subcommand, a query the core
// does not admit, git through execFileSync, spawn and exec are refused by name; a program that
// is not git runs as before; without -agent the query is refused naming Options.GitReviewScope.
func TestEmbedGitReviewScope(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Fatal("git is needed by this test:", err)
	}
	for _, want := range testenv.Runtimes() {
		t.Run(want.Name, func(t *testing.T) {
			rt := want.Get(t)
			conf := fmt.Sprintf("[extension_host]\nruntime = %q\n%s = %q\n", rt.Name, rt.Name, rt.Path)
			dir := homeWith(t, conf, filepath.Join("..", "..", "testdata", "plugins", "git-scope"))
			ws, base := reviewRepo(t)
			agent := []string{"-agent", "-workspace", ws, "-skills", t.TempDir()}
			cases := []struct {
				name   string
				args   []string
				stdout []string
				stderr []string
				never  string // a line stderr must not hold
			}{
				{"the review scope", append(append([]string{"-allow", "review_range"}, agent...), "review_range", `{"base":"main"}`),
					[]string{fmt.Sprintf(`"mergeBase":{"ok":{"buffer":true,"stdout":%q,"stderr":0}}`, base),
						`\tadd b\n`, `\tmove a to c\n`, `"files":{"ok":"a.txt.new\nb.txt\nc.txt\n","stderr":""}`, `"branch":{"ok":"feature"}`, `"same":true`},
					[]string{"agent    git merge-base in the workspace", "agent    git commits in the workspace",
						"agent    git changed-files in the workspace", "agent    git current-ref in the workspace"}, ""},
				{"what is refused", append(append([]string{"-allow", "scope_refusals"}, agent...), "scope_refusals"),
					[]string{"`git push` (execFile) is not provided by cwx: only review-scope metadata queries are, through execFile('git', args) inside one of the plugin's tools",
						"only `rev-parse --abbrev-ref HEAD` is admitted",
						"`git status` (execFileSync) is not provided by cwx", "`git status` (spawn) is not provided by cwx",
						"`git log` (exec) is not provided by cwx", `"echo":{"ok":"not git\n","stderr":""}`},
					nil, "agent    git"},
				{"no agent", []string{"-allow", "review_range", "-workspace", ws, "review_range", `{"base":"main"}`},
					[]string{"`git_review_scope` is an agent service this agent does not provide (its embedder sets no Options.GitReviewScope)"},
					nil, ""},
			}
			for _, c := range cases {
				t.Run(c.name, func(t *testing.T) {
					errb := runExpect(t, dir, c.args, c.stdout, c.stderr)
					if c.never != "" && strings.Contains(errb, c.never) {
						t.Errorf("stderr holds %q: the agent ran a refused query:\n%s", c.never, errb)
					}
				})
			}
		})
	}
}
