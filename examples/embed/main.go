// Command embed is an example of a Go program that embeds the cwx core: it opens a
// core.Manager on a cwx home, activates the plugins that are enabled and trusted there,
// lists their tools and commands, and calls one tool with its own approval policy.
//
// Usage:
//
//	embed [-home DIR] [-allow NAME,...] [-session | -tool-session] [-agent -workspace DIR -skills DIR -answer LABEL] TOOL [JSON]
//
// With -agent it also provides a small fake agent's own services to the plugins (agent.go):
// saving the session, child agents, skills roots and bounded git queries, and it answers the
// plugins' questions. Without it those services are refused by name.
//
// The program is also its own extension-host shim: the Manager starts each tier by
// re-executing the running binary as `<binary> nodeshim`, so main hands that invocation to
// nodeshim.Main before doing anything else, exactly like cwx's own main.go. (Set
// core.Options.ShimPath to use an installed cwx binary instead.)
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"

	"github.com/cwx-dev/cwx/core"
	"github.com/cwx-dev/cwx/nodeshim"
	"github.com/cwx-dev/cwx/shared"
)

func main() {
	if shared.Invoked(os.Args) {
		os.Exit(nodeshim.Main(os.Args[2:]))
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// Exit statuses, the same as cwx's (core/cli doc.go, “CLI conventions”).
const (
	exitOK          = 0
	exitInternal    = 1
	exitUsage       = 2
	exitInvalid     = 3
	exitDenied      = 4
	exitUnavailable = 5
	exitPlugin      = 6
	exitTimeout     = 7
)

// run is main without the process: it returns the exit status.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("embed", flag.ContinueOnError)
	fs.SetOutput(stderr)
	home := fs.String("home", "", "the cwx home (default $CWX_HOME, else ~/.cwx)")
	allow := fs.String("allow", "", "comma-separated tools this program approves; others are denied")
	session := fs.Bool("session", false, "approve this exact call (the same input) for the whole session instead of once")
	toolSession := fs.Bool("tool-session", false, "approve the tool of that plugin build, any input, for the whole session")
	withAgent := fs.Bool("agent", false, "provide the fake agent's services (sessions, subagents, skills, git review scope) and answer questions")
	workspace := fs.String("workspace", "", "the call's workspace (where git queries run)")
	skillsRoot := fs.String("skills", "", "the fake agent's skills root")
	answer := fs.String("answer", "yes", "the option the fake agent answers a question with")
	if err := fs.Parse(args); err != nil || fs.NArg() < 1 || fs.NArg() > 2 || *session && *toolSession {
		fmt.Fprintln(stderr, "usage: embed [-home DIR] [-allow NAME,...] [-session | -tool-session] [-agent -workspace DIR -skills DIR -answer LABEL] TOOL [JSON]")
		return exitUsage
	}
	tool, input := fs.Arg(0), json.RawMessage(`{}`)
	if fs.NArg() == 2 {
		input = json.RawMessage(fs.Arg(1))
	}

	policy := &allowList{allowed: map[string]bool{}, session: *session, toolSession: *toolSession, log: stderr}
	for _, name := range strings.Split(*allow, ",") {
		if name = strings.TrimSpace(name); name != "" {
			policy.allowed[name] = true
		}
	}
	opts := core.Options{Home: *home, Approver: policy}
	call := core.CallOptions{SessionID: "embed-example", AgentID: "embed-agent", Workspace: *workspace}
	if *withAgent {
		a := &agent{log: stderr, tools: []string{"read", "grep", "edit"}, answer: *answer}
		if *skillsRoot != "" {
			a.skills = core.SkillsRoots{*skillsRoot}
		}
		// Each service is optional: a nil one is refused by name when a plugin asks for it.
		opts.Sessions, opts.Subagents, opts.Skills, opts.GitReviewScope = a, a, a.skills, a
		call.Asker = a
	}
	m, err := core.Open(ctx, opts)
	if err != nil {
		fmt.Fprintln(stderr, "embed:", err)
		return exitCodeOf(err)
	}
	defer func() {
		// Close shuts the extension hosts down within its own bound (SIGKILL at
		// supervisor.DefaultKillAfter).
		if err := m.Close(context.Background()); err != nil {
			fmt.Fprintln(stderr, "embed: close:", err)
		}
	}()

	// Reconcile starts the tiers the enabled, trusted plugins need and activates them.
	if err := m.Reconcile(ctx); err != nil {
		fmt.Fprintln(stderr, "embed:", err)
		return exitCodeOf(err)
	}
	for _, t := range m.Tools() {
		fmt.Fprintf(stdout, "tool     %s (%s)\n", t.Name, t.Origin)
	}
	for _, c := range m.Commands() {
		fmt.Fprintf(stdout, "command  /%s (%s)\n", c.Name, c.Origin)
	}

	// CallTool validates the input, asks policy (the Manager's Approver), then calls.
	res, err := m.CallTool(ctx, tool, input, call)
	if err != nil {
		fmt.Fprintln(stderr, "embed:", core.StripEscapes(err.Error()))
		return exitCodeOf(err)
	}
	fmt.Fprintf(stdout, "result   %s\n", core.StripEscapes(res.Text()))
	if res.IsError {
		return exitPlugin
	}
	return exitOK
}

// allowList is this program's Approver: it approves the tools it was told to and denies
// every other one. The card it receives is composed by the core (plugin, tool, exact
// input), never by the plugin.
type allowList struct {
	allowed     map[string]bool
	session     bool
	toolSession bool
	log         io.Writer
}

func (a *allowList) Approve(_ context.Context, card core.ApprovalCard) (core.Decision, error) {
	d := core.DenyDecision
	switch {
	case !a.allowed[card.Tool]:
	case a.toolSession && card.ToolKey != "": // a forced card (shell) offers no tool key
		d = core.AllowToolForSession
	case a.session && !card.Forced:
		d = core.AllowSession
	default:
		d = core.AllowOnce
	}
	fmt.Fprintf(a.log, "approval %s with input %s: %s\n", card.Title, card.Input, d)
	return d, nil
}

// exitCodeOf maps the core's typed errors to exit statuses with errors.Is.
func exitCodeOf(err error) int {
	switch {
	case errors.Is(err, core.ErrInvalidInput):
		return exitInvalid
	case errors.Is(err, core.ErrDenied):
		return exitDenied
	case errors.Is(err, core.ErrNotAvailable):
		return exitUnavailable
	case errors.Is(err, core.ErrExecutionFailed):
		return exitPlugin
	case errors.Is(err, core.ErrTimeout), errors.Is(err, core.ErrCancelled), errors.Is(err, context.Canceled):
		return exitTimeout
	}
	return exitInternal
}
