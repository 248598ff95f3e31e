package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"

	"github.com/cwx-dev/cwx/core"
)

// agent is a small fake agent that provides the four agent services a plugin may use
// (core.Options Sessions, Subagents, Skills and GitReviewScope) and answers the plugin's
// questions. A real agent maps each onto its own session store, sub-agent manager, skills
// folders and git tool; this one prints what it is asked on log and answers in kind.
type agent struct {
	log    io.Writer
	tools  []string // the parent agent's tools: what a child's filter narrows
	answer string   // the option the person "chooses"
	skills core.SkillsRoots

	mu       sync.Mutex
	children map[string]core.ChildRequest // +checklocks:mu
	next     int                          // +checklocks:mu
}

func (a *agent) Flush(_ context.Context, c core.ServiceCall) error {
	fmt.Fprintf(a.log, "agent    session %s saved (asked by %s's tool %s)\n", c.SessionID, c.PluginID, c.Tool)
	return nil
}

func (a *agent) Tools(context.Context, core.ServiceCall) ([]string, error) { return a.tools, nil }

func (a *agent) Start(_ context.Context, c core.ServiceCall, req core.ChildRequest) (string, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.next++
	id := fmt.Sprintf("child-%d", a.next)
	if a.children == nil {
		a.children = map[string]core.ChildRequest{}
	}
	a.children[id] = req
	fmt.Fprintf(a.log, "agent    %s of %s started with tools [%s], persona %q\n", id, c.AgentID, strings.Join(req.Tools, " "), req.Persona)
	return id, nil
}

func (a *agent) Result(_ context.Context, _ core.ServiceCall, id string) (core.ChildResult, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	req, ok := a.children[id]
	if !ok {
		return core.ChildResult{}, fmt.Errorf("no child %s", id)
	}
	return core.ChildResult{Status: "completed", Text: fmt.Sprintf("%s reviewed %q with %s", id, req.Prompt, strings.Join(req.Tools, ","))}, nil
}

func (a *agent) Dispose(_ context.Context, _ core.ServiceCall, id string) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	delete(a.children, id)
	fmt.Fprintf(a.log, "agent    %s disposed\n", id)
	return nil
}

// Query runs the bounded git query the core admitted, in the call's workspace, with the
// core's argument list and environment; the core bounds its time and output.
func (a *agent) Query(ctx context.Context, c core.ServiceCall, q core.GitQuery) (string, error) {
	args, err := core.GitArgs(q)
	if err != nil {
		return "", err
	}
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = c.Workspace
	cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + c.Workspace}, core.GitEnv()...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("git %s: %w: %s", q.Kind, err, strings.TrimSpace(errb.String()))
	}
	fmt.Fprintf(a.log, "agent    git %s in the workspace\n", q.Kind)
	return out.String(), nil
}

// Ask answers a plugin's question with the option a.answer.
func (a *agent) Ask(_ context.Context, q core.Question) (core.Answer, error) {
	fmt.Fprintf(a.log, "question %s (from %s)\n", core.StripEscapes(q.Text), q.PluginID)
	return core.Answer{Kind: core.AnswerChoice, Choice: a.answer}, nil
}
