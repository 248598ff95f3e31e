package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/cwx-dev/cwx/core"
	"github.com/cwx-dev/cwx/core/cmdhooks"
	"github.com/cwx-dev/cwx/core/gate"
	"github.com/cwx-dev/cwx/core/protocol"
	"github.com/cwx-dev/cwx/core/supervisor"
)

const replHelp = `commands (the leading / is optional):
  /tools                        live tools and commands
  /call NAME [JSON]             call a tool (input defaults to {})
  /run NAME [ARGS...]           run a slash command
  /NAME [ARGS...]               run the live command NAME
  /reload                       re-read config.toml and the plugin state, retry failed plugins
  /plugins                      installed plugins, their state and what they have live
  /host status                  each host: state, runtime pid, host generation, crashes, PSS, plugins
  /host kill plugin|builtin|ID  kill -9 a tier's or a plugin's host (the supervisor restarts it)
  /host retry [plugin|builtin]  let a failed tier start again and re-activate its plugins
  /help                         this list
  /exit                         shut the hosts down and leave (also end of input)
lines starting with # are comments`

func init() {
	register(func() *cobra.Command {
		var approve, workspace, session string
		cmd := &cobra.Command{
			Use:   "repl",
			Short: "Keep the extension hosts warm and call tools and commands interactively or from a script",
			Long: "Starts the tiers the enabled plugins need, activates them, and reads one command per\n" +
				"line from stdin (a terminal or a script). Type /help for the commands. When stdin is\n" +
				"not a terminal each line is echoed after the prompt, so a transcript reads well.\n" +
				"From a script the exit status is that of the first command that failed (0 when none\n" +
				"did); an interactive session exits 0, each error shown where it happened.\n\n" + replHelp,
			Args: exactArgs(0),
			RunE: func(cmd *cobra.Command, _ []string) (err error) {
				if err := checkSession(session); err != nil {
					return err
				}
				ws, err := workspaceDir(workspace)
				if err != nil {
					return err
				}
				m, err := openWith(cmd.Context(), cmd.ErrOrStderr(), approve, false, ws)
				if err != nil {
					return err
				}
				defer func() { err = firstErr(err, closeCore(m)) }()
				s := newReplSession(m, cmd.InOrStdin(), cmd.OutOrStdout(), cmd.ErrOrStderr(), ws)
				s.session = session
				return s.run(cmd.Context())
			},
		}
		cmd.Flags().StringVar(&approve, "approve", "", "approval posture for the session: ask, auto or deny")
		cmd.Flags().StringVar(&workspace, "workspace", "", "the workspace directory tools and commands are told about")
		sessionFlag(cmd.Flags(), &session)
		return cmd
	})
}

// replSettle bounds how long the repl waits for a tier to come back or a tool to become
// live; tests shorten it.
var replSettle = liveWait

// replSession is one `cwx repl`: a warm Manager and a line reader shared with the approval
// prompt (so a prompt's answer is never read as a command, nor the other way round).
type replSession struct {
	m           liveCore
	in          *bufio.Reader
	out, errw   io.Writer
	interactive bool
	approver    core.Approver
	asker       core.Asker // plugins' questions, asked on the same terminal
	workspace   string
	editor      *lineEditor     // line editing on a terminal, else nil
	session     string          // --session, told to every call
	hooks       *hookSession    // the session's command hooks (SessionStart, SessionEnd, Notification)
	failed      int             // exit status of the first failed command (a script's status)
	notActive   []PluginFailure // the enabled plugins not active at the last (re)load
	// settle bounds the waits for a tier to come back or a tool to become live.
	settle time.Duration
}

func newReplSession(m liveCore, stdin io.Reader, stdout, stderr io.Writer, workspace string) *replSession {
	in, editor := replInput(m, stdin, stdout)
	interactive := isTerminal(stdin)
	return &replSession{
		m: m, in: in, out: stdout, errw: stderr, interactive: interactive, workspace: workspace, settle: replSettle, editor: editor,
		approver: &gate.TerminalPrompter{In: in, Out: stderr, IsTerminal: interactive && isTerminal(stderr)},
		asker:    &terminalAsker{in: in, out: stderr, terminal: interactive && isTerminal(stderr)},
	}
}

func (s *replSession) run(ctx context.Context) error {
	defer s.closeEditor()
	failures, rest := splitFailures(s.m.Reconcile(ctx))
	if rest != nil {
		s.report(callErr(rest))
	}
	// a plugin's own failure is no command's: it is shown, and the session goes on
	s.notActive = append(failures, heldBack()...)
	printf(s.out, "cwx repl: %s and %s live; /help lists the commands\n", plural(len(s.m.Tools()), "tool"), plural(len(s.m.Commands()), "command"))
	writeFailures(s.out, s.notActive)
	// the REPL is one session: SessionStart now, SessionEnd when it ends (README, “Command hooks”)
	s.hooks = startHookSession(ctx, s.m, core.CallOptions{Workspace: s.workspace, SessionID: s.session}, s.out)
	reason := cmdhooks.ReasonPromptInputExit
	defer func() { s.hooks.end(ctx, reason) }()
	s.approver, s.asker = s.hooks.Approver(s.approver), s.hooks.Asker(s.asker)
	if err := s.hooks.Stopped(); err != nil {
		reason = cmdhooks.ReasonOther
		s.report(err)
		return &ExitError{Code: s.failed}
	}
	for {
		if s.interactive {
			s.prompt()
		}
		line, err := s.readLine(ctx)
		if errors.Is(err, context.Canceled) && ctx.Err() != nil {
			reason = cmdhooks.ReasonOther
			break // SIGTERM (or the caller) ended an idle session
		}
		if line == "" && err != nil {
			if s.interactive {
				printf(s.out, "\n")
			}
			break
		}
		line = strings.TrimRight(line, "\r\n")
		if !s.interactive {
			printf(s.out, "cwx> %s\n", line) // the transcript shows what was run
		}
		if s.dispatch(ctx, line) {
			break
		}
		if err != nil {
			break
		}
	}
	if s.failed != 0 && !s.interactive {
		return &ExitError{Code: s.failed} // a script's status: its first failed command's
	}
	return nil // a person saw each error where it happened
}

// readLine reads the next line, giving up when ctx ends: SIGTERM cancels it, and an idle
// session must not wait for a line that never comes. The read then left blocked ends with
// the process, and nothing else reads the input after it.
func (s *replSession) readLine(ctx context.Context) (string, error) {
	type read struct {
		line string
		err  error
	}
	got := make(chan read, 1)
	go func() {
		line, err := s.in.ReadString('\n')
		got <- read{line, err}
	}()
	select {
	case r := <-got:
		return r.line, r.err
	case <-ctx.Done():
		return "", context.Canceled
	}
}

// dispatch runs one line and reports whether the session ends.
func (s *replSession) dispatch(parent context.Context, line string) (exit bool) {
	line = strings.TrimSpace(line)
	if line == "" || strings.HasPrefix(line, "#") {
		return false
	}
	verb, rest := splitWord(strings.TrimPrefix(line, "/"))
	ctx, stop := signal.NotifyContext(parent, os.Interrupt) // Ctrl-C cancels the command, not the session
	defer stop()
	var err error
	switch verb {
	case "exit", "quit":
		return true
	case "help":
		printf(s.out, "%s\n", replHelp)
	case "tools":
		s.tools()
	case "call":
		err = s.call(ctx, rest)
	case "run":
		err = s.runCommand(ctx, rest)
	case "plugins":
		err = s.plugins()
	case "host":
		err = s.host(ctx, rest)
	case "reload":
		err = s.reload(ctx)
	default:
		var ran bool
		if ran, err = s.runLive(ctx, verb, rest); !ran {
			err = s.unknownVerb(verb)
		}
	}
	s.report(err)
	return false
}

// report prints a failed command and remembers the first failure's exit status.
func (s *replSession) report(err error) {
	if err == nil {
		return
	}
	err = callErr(err)
	code := exitCode(err)
	if s.failed == 0 {
		s.failed = code
	}
	if ee, ok := err.(*ExitError); ok && ee.Err == nil {
		printf(s.errw, "error: exit status %d\n", code)
		return
	}
	printf(s.errw, "error: %s (exit status %d)\n", stripEscapes(advise(err)), code)
}

func (s *replSession) tools() {
	writeToolTable(s.out, markDev(s.m.Plugins(), toolItems(s.m.Tools())))
	writeCommandTable(s.out, commandItems(s.m.Commands(), devPlugins(s.m.Plugins())))
	writeFailures(s.out, s.notActive)
}

func (s *replSession) call(ctx context.Context, rest string) error {
	name, input := splitWord(rest)
	if name == "" {
		return exitf(ExitUsage, "usage: /call NAME [JSON]")
	}
	if input == "" {
		input = "{}"
	}
	if !json.Valid([]byte(input)) {
		return exitf(ExitUsage, "the input is not valid JSON (e.g. /call %s {\"text\":\"hi\"})", name)
	}
	// An MCP server's tool is the core's to start (no plugin may take the prefix): its
	// server may not be running yet, so the tool is not live until the call starts it.
	if !strings.HasPrefix(name, core.MCPToolPrefix) {
		if err := s.awaitLive(ctx, liveTool, name); err != nil {
			return err
		}
	}
	plugin := pluginOf(s.m, name) // the owner the call goes to, named before it runs
	res, err := s.m.CallTool(ctx, name, json.RawMessage(input), core.CallOptions{Workspace: s.workspace, SessionID: s.session, Approver: s.approver, Asker: s.asker})
	if err != nil {
		return err
	}
	printHookLines(s.out, res)
	return printToolResult(s.out, name, plugin, res, nil, toolCallFlags{})
}

func (s *replSession) runCommand(ctx context.Context, rest string) error {
	name, raw := splitWord(rest)
	name = strings.TrimPrefix(name, "/")
	if name == "" {
		return exitf(ExitUsage, "usage: /run NAME [ARGS...]")
	}
	if err := s.awaitLive(ctx, liveCommand, name); err != nil {
		return err
	}
	if raw != "" {
		raw = " " + raw
	}
	res, err := s.m.RunCommand(ctx, name, raw, core.CallOptions{Workspace: s.workspace, SessionID: s.session, Asker: s.asker})
	if err != nil {
		return err
	}
	return printCommandResult(s.out, name, commandPlugin(s.m, name), res, false)
}

// awaitLive returns when name is live. When it is not, it reconciles once and then waits
// while a tier is coming back (after a crash or a kill), bounded by s.settle.
func (s *replSession) awaitLive(ctx context.Context, kind liveKind, name string) error {
	if hasLive(s.m, kind, name) {
		return nil
	}
	if _, err := core.PluginErrors(s.m.Reconcile(ctx)); err != nil { // another plugin's failure is not this call's
		return err
	}
	deadline := time.Now().Add(s.settle)
	for !hasLive(s.m, kind, name) {
		if !s.transitional() || time.Now().After(deadline) {
			return notLive(s.m, kind, name)
		}
		if err := sleepCtx(ctx, livePoll); err != nil {
			return err
		}
	}
	return nil
}

// transitional reports whether a tier is starting, restarting or not answering.
func (s *replSession) transitional() bool {
	for _, st := range s.m.Status() {
		switch st.State {
		case supervisor.StateStarting, supervisor.StateRestarting, supervisor.StateUnresponsive:
			return true
		}
	}
	return false
}

// pluginRow is one row of the repl's /plugins.
type pluginRow struct {
	id, status      string
	tools, commands int
}

func (s *replSession) plugins() error {
	store := s.m.Plugins()
	recs, err := store.List()
	if err != nil {
		return err
	}
	if len(recs) == 0 {
		printf(s.out, "no plugins installed (cwx plugin install PATH|TARBALL)\n")
		return nil
	}
	rows := make([]pluginRow, 0, len(recs))
	for _, r := range recs {
		row := pluginRow{id: r.ID, status: store.Status(r)}
		for _, t := range s.m.Tools() {
			if t.PluginID == r.ID {
				row.tools++
			}
		}
		for _, c := range s.m.Commands() {
			if c.PluginID == r.ID {
				row.commands++
			}
		}
		rows = append(rows, row)
	}
	sort.Slice(rows, func(i, j int) bool { return rows[i].id < rows[j].id })
	tw := newTable(s.out)
	printf(tw, "PLUGIN\tSTATUS\tLIVE\n")
	for _, r := range rows {
		printf(tw, "%s\t%s\t%s, %s\n", r.id, r.status, plural(r.tools, "tool"), plural(r.commands, "command"))
	}
	return tw.Flush()
}

func (s *replSession) host(ctx context.Context, rest string) error {
	sub, arg := splitWord(rest)
	switch sub {
	case "status", "":
		writeHostStatus(s.out, hostEntries(s.m.Status()))
		s.writeOwnerTimes()
		return nil
	case "kill":
		k, err := s.hostNamed(arg)
		if err != nil {
			return err
		}
		return s.kill(ctx, k)
	case "retry":
		tiers := []protocol.Tier{protocol.TierPlugin, protocol.TierBuiltin}
		if arg != "" {
			t, err := parseTier(arg, false)
			if err != nil {
				return err
			}
			tiers = []protocol.Tier{t}
		}
		for _, t := range tiers {
			s.m.Retry(t)
		}
		if err := s.m.Reconcile(ctx); err != nil {
			return err
		}
		writeHostStatus(s.out, hostEntries(s.m.Status()))
		return nil
	}
	return exitf(ExitUsage, "usage: /host status | /host kill plugin|builtin|PLUGIN-ID | /host retry [plugin|builtin]")
}

func parseTier(s string, optional bool) (protocol.Tier, error) {
	switch protocol.Tier(s) {
	case protocol.TierPlugin, protocol.TierBuiltin:
		return protocol.Tier(s), nil
	}
	if s == "" && optional {
		return "", nil
	}
	return "", exitf(ExitUsage, "name a tier: plugin or builtin")
}

// hostNamed is the host `/host kill` names: a tier's shared host, or the host a plugin id
// lives in. A plugin of the shared host is named with its tier-mates, whom the kill takes
// down too.
func (s *replSession) hostNamed(arg string) (protocol.HostKey, error) {
	if t, err := parseTier(arg, false); err == nil {
		return protocol.SharedHost(t), nil
	}
	if arg == "" {
		return protocol.HostKey{}, exitf(ExitUsage, "name a tier (plugin or builtin) or a plugin id: /host kill plugin|builtin|PLUGIN-ID")
	}
	for _, st := range s.m.Status() {
		if !slices.Contains(st.Plugins, arg) {
			continue
		}
		k := protocol.HostKey{Tier: st.Tier, Group: st.Group}
		if mates := slices.DeleteFunc(slices.Clone(st.Plugins), func(id string) bool { return id == arg }); !k.Isolated() && len(mates) > 0 {
			printf(s.out, "`%s` shares the %s tier's host: killing it kills %s too (isolation = \"process\" gives a plugin its own)\n", arg, k.Tier, strings.Join(mates, ", "))
		}
		return k, nil
	}
	return protocol.HostKey{}, exitf(ExitUsage, "no enabled plugin `%s` in this session; /plugins lists them", arg)
}

// kill sends SIGKILL to a host's runtime and waits (bounded) until the supervisor has a new
// incarnation ready with the host's owners replayed, then says what changed.
func (s *replSession) kill(ctx context.Context, k protocol.HostKey) error {
	before := s.m.HostAt(k)
	owners := hostOwners(s.m.Status(), k)
	if err := s.m.KillHost(k); err != nil {
		return err
	}
	what := "the " + string(k.Tier) + " tier's runtime"
	if k.Isolated() {
		what = "the runtime of " + k.Describe()
	}
	printf(s.out, "killed %s (pid %d, host generation %d) with SIGKILL\n", what, before.RuntimePID, before.Generation)
	deadline := time.Now().Add(s.settle)
	for {
		now := s.m.HostAt(k)
		back := now.Generation != before.Generation && now.State == supervisor.StateReady && hostOwners(s.m.Status(), k) >= owners
		if back {
			printf(s.out, "the supervisor restarted it: pid %d, host generation %d, crashes %d\n", now.RuntimePID, now.Generation, now.Crashes)
			return nil
		}
		if now.State == supervisor.StateFailed {
			return exitf(ExitUnavailable, "%s is failed after %s (its crash budget is spent); /host retry starts it again", k.Describe(), plural(now.Crashes, "crash"))
		}
		if time.Now().After(deadline) {
			if now.Generation != before.Generation && now.State == supervisor.StateReady {
				return exitf(ExitUnavailable, "%s restarted (pid %d, host generation %d) but only %d of %d plugins are active again; `cwx plugin show ID` says why", k.Describe(), now.RuntimePID, now.Generation, hostOwners(s.m.Status(), k), owners)
			}
			return exitf(ExitUnavailable, "%s is %s %s after the kill; /host status shows more", k.Describe(), now.State, s.settle)
		}
		if err := sleepCtx(ctx, livePoll); err != nil {
			return err
		}
	}
}

func hostOwners(st []core.TierStatus, k protocol.HostKey) int {
	for _, s := range st {
		if s.Tier == k.Tier && s.Group == k.Group {
			return s.Owners
		}
	}
	return 0
}

// hostLabel names a host in the table: its tier, or "plugin:<id>" for a plugin's own.
func hostLabel(s core.TierStatus) string {
	return protocol.HostKey{Tier: s.Tier, Group: s.Group}.String()
}

// hostSubject names a host in the lines below the table: "plugin tier" for a tier's shared
// host, "plugin `id`'s host" for a plugin's own.
func hostSubject(s core.TierStatus) string {
	if s.Group == "" {
		return string(s.Tier) + " tier"
	}
	return "plugin `" + s.Group + "`'s host"
}

// writeHostStatus prints one line per host, then each host's failure, blame and sandbox.
func writeHostStatus(w io.Writer, st []HostEntry) {
	tw := newTable(w)
	printf(tw, "HOST\tSTATE\tRUNTIME\tPID\tGENERATION\tCRASHES\tOWNERS\tPSS\tUPTIME\tPLUGINS\n")
	for _, s := range st {
		rt, pid, up, pss := "-", "-", "-", "-"
		if s.Runtime != "" {
			rt = strings.TrimSpace(s.Runtime + " " + strings.TrimPrefix(s.RuntimeVersion, "v"))
		}
		if s.RuntimePID > 0 {
			pid = fmt.Sprint(s.RuntimePID)
			up = (time.Duration(s.UptimeMS) * time.Millisecond).String()
		}
		if s.PSSMiB > 0 {
			pss = fmt.Sprintf("%.1f MiB", s.PSSMiB)
		}
		plugins := "-"
		if len(s.Plugins) > 0 {
			plugins = strings.Join(s.Plugins, ", ")
		}
		printf(tw, "%s\t%s\t%s\t%s\t%d\t%d\t%d\t%s\t%s\t%s\n", hostLabel(s.TierStatus), s.State, rt, pid, s.Generation, s.Crashes, s.Owners, pss, up, plugins)
	}
	_ = tw.Flush()
	for _, s := range st {
		if s.LastFailure != "" {
			printf(w, "%s, last failure: %s\n", hostSubject(s.TierStatus), oneLine(s.LastFailure))
		}
		if s.LastBlame != "" {
			printf(w, "%s, last blame: %s\n", hostSubject(s.TierStatus), oneLine(s.LastBlame))
		}
	}
	for _, s := range st {
		if s.Sandbox != "" {
			printf(w, "%s: %s\n", hostSubject(s.TierStatus), s.Sandbox)
		}
	}
}

// splitWord splits off the first space-separated word; rest keeps its inner spacing.
func splitWord(s string) (word, rest string) {
	s = strings.TrimLeft(s, " \t")
	i := strings.IndexAny(s, " \t")
	if i < 0 {
		return s, ""
	}
	return s[:i], strings.TrimSpace(s[i+1:])
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
