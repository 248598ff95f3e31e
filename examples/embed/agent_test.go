package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cwx-dev/cwx/shared/testenv"
)

// gitRepo makes a workspace that is a git repository on branch review-me.
func gitRepo(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for _, args := range [][]string{{"init", "-q", "-b", "review-me"}, {"-c", "user.name=t", "-c", "user.email=t@example.invalid", "commit", "-q", "--allow-empty", "-m", "first"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	return dir
}

// runExpect runs the example with args against the home dir, wants exit 0 and each of
// stdout and stderr in its stream, and returns stderr.
func runExpect(t *testing.T, dir string, args, stdout, stderr []string) string {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(context.Background(), append([]string{"-home", dir}, args...), &out, &errb)
	if code != exitOK {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out.String(), errb.String())
	}
	for _, w := range stdout {
		if !strings.Contains(out.String(), w) {
			t.Errorf("stdout does not contain %s:\n%s", w, out.String())
		}
	}
	for _, w := range stderr {
		if !strings.Contains(errb.String(), w) {
			t.Errorf("stderr does not contain %s:\n%s", w, errb.String())
		}
	}
	return errb.String()
}

func skillsRoot(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "review"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "review", "SKILL.md"), []byte("---\nname: review\ndescription: Review a change\n---\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestEmbedProvidesAgentServices runs a plugin that saves the session, spawns a child agent
// with a narrowed tool filter, asks a question, lists skills and reads the branch, against
// the example's fake agent; a filter that widens is refused; without -agent each service is
// refused by name.
func TestEmbedProvidesAgentServices(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Fatal("git is needed by this test:", err)
	}
	for _, want := range testenv.Runtimes() {
		t.Run(want.Name, func(t *testing.T) {
			rt := want.Get(t)
			conf := fmt.Sprintf("[extension_host]\nruntime = %q\n%s = %q\n", rt.Name, rt.Name, rt.Path)
			dir := homeWith(t, conf, filepath.Join("..", "..", "testdata", "plugins", "agent-services"))
			ws, skills := gitRepo(t), skillsRoot(t)
			agentFlags := []string{"-agent", "-workspace", ws, "-skills", skills, "-answer", "yes"}
			cases := []struct {
				name   string
				args   []string
				stdout []string
				stderr []string
			}{
				{"all four services", append(append([]string{"-allow", "review_scope,subagents_start"}, agentFlags...), "review_scope"),
					[]string{`"provider":{"name":"spawn","inheritsParentContext":false}`, `"saved":{"ok":"saved"}`,
						`"child":{"ok":{"tools":["read"],"status":"completed","text":"child-1 reviewed \"Review the change.\" with read"}}`,
						`"answer":{"ok":{"kind":"choice","choice":"yes"}}`, `"skills":{"ok":["review"]}`, `"branch":{"ok":"review-me"}`},
					[]string{"agent    session embed-example saved (asked by fixture-agent-services's tool review_scope)",
						`agent    child-1 of embed-agent started with tools [read], persona "You are a careful reviewer."`,
						"agent    child-1 disposed", "question Post the review?", "agent    git current-ref in the workspace",
						"the agent's service `subagents_start`"}},
				{"a filter that widens", append(append([]string{"-allow", "widen_child,subagents_start"}, agentFlags...), "widen_child"),
					[]string{`"error":"REFUSED"`, "a child's tool filter can only narrow its parent's tools: `shell` is not a tool of the parent agent"},
					nil},
				{"a child left behind", append(append([]string{"-allow", "leave_child,subagents_start"}, agentFlags...), "leave_child"),
					[]string{`"child":"child-1"`},
					[]string{"agent    child-1 of embed-agent started with tools [edit grep read]", "agent    child-1 disposed"}},
				{"the older start", append(append([]string{"-allow", "old_start"}, agentFlags...), "old_start"),
					[]string{"`subagents.start` is not provided by cwx"}, nil},
				{"no agent", []string{"-allow", "review_scope,subagents_start", "-workspace", ws, "review_scope"},
					[]string{"`sessions_flush` is an agent service this agent does not provide (its embedder sets no Options.Sessions)",
						"`subagents_start` is an agent service this agent does not provide (its embedder sets no Options.Subagents)",
						"`skills_list` is an agent service this agent does not provide (its embedder sets no Options.Skills)",
						"`git_review_scope` is an agent service this agent does not provide (its embedder sets no Options.GitReviewScope)",
						`"answer":{"error":"NO_PROVIDER"`},
					nil},
			}
			for _, c := range cases {
				t.Run(c.name, func(t *testing.T) {
					runExpect(t, dir, c.args, c.stdout, c.stderr)
				})
			}
		})
	}
}
