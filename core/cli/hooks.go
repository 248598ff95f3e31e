package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/cwx-dev/cwx/core"
	"github.com/cwx-dev/cwx/core/cmdhooks"
	"github.com/cwx-dev/cwx/core/config"
)

func init() {
	register(func() *cobra.Command {
		cmd := &cobra.Command{
			Use:   "hooks",
			Short: "Show and try the command hooks of config.toml and its Claude Code hooks file",
			Long: "Command hooks are shell commands cwx runs before a tool call (PreToolUse), after it\n" +
				"(PostToolUse) and when a prompt is submitted (UserPromptSubmit), in Claude Code's\n" +
				"format: [[hooks.<event>]] tables in config.toml, or hooks_file naming a Claude Code\n" +
				"settings.json. Exit 2 blocks with stderr as the reason; a hook's allow never approves.",
			Args: cobra.NoArgs,
		}
		cmd.AddCommand(newHooksListCmd(), newHooksTestCmd())
		return cmd
	})
}

// HookJSON is one configured hook in `cwx hooks list --json`.
type HookJSON struct {
	ID       string `json:"id"`
	Event    string `json:"event"`
	Matcher  string `json:"matcher"`
	Command  string `json:"command"`
	TimeoutS int    `json:"timeout_s"`
	Source   string `json:"source"`
	// Plugin is the installed Claude Code plugin the hook comes from ("" for a configured one).
	Plugin string `json:"plugin,omitempty"`
}

// HooksListJSON is `cwx hooks list --json`.
type HooksListJSON struct {
	Hooks []HookJSON `json:"hooks"`
	Notes []string   `json:"notes"`
	// Sources are where the hooks were read, in the order they were merged.
	Sources []cmdhooks.Source `json:"sources"`
}

func newHooksListCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List the configured command hooks, in the order they run",
		Args:  exactArgs(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			set, err := loadHooks()
			if err != nil {
				return err
			}
			out := HooksListJSON{Hooks: []HookJSON{}, Notes: append([]string{}, set.Notes...), Sources: append([]cmdhooks.Source{}, set.Sources...)}
			for _, h := range set.Hooks {
				out.Hooks = append(out.Hooks, HookJSON{ID: h.ID, Event: h.Event, Matcher: h.Matcher, Command: h.Command, TimeoutS: h.TimeoutS, Source: h.Source, Plugin: h.Plugin})
			}
			return writeReport(cmd.OutOrStdout(), asJSON, out, writeHooksTable)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print a JSON object")
	return cmd
}

func loadHooks() (*cmdhooks.Set, error) {
	home, err := config.Home()
	if err != nil {
		return nil, &ExitError{Code: ExitInternal, Err: err}
	}
	cfg, err := config.LoadHome(home)
	if err != nil {
		return nil, &ExitError{Code: ExitInvalid, Err: err}
	}
	ph, notes, err := claudePluginHooks()
	if err != nil {
		return nil, err
	}
	set, err := cmdhooks.Load(cfg.Hooks, ph...)
	if err != nil {
		return nil, &ExitError{Code: ExitInvalid, Err: err}
	}
	set.Notes = append(set.Notes, notes...)
	return set, nil
}

// claudePluginHooks are the hooks of the installed Claude Code plugins that run (enabled,
// trusted, bytes as trusted), as the core loads them; notes say which plugins do not run.
func claudePluginHooks() ([]cmdhooks.PluginHooks, []string, error) {
	s, _, err := openPlugins()
	if err != nil {
		return nil, nil, err
	}
	ps, blocked, err := s.ClaudeCode()
	if err != nil {
		return nil, nil, pluginErr(err)
	}
	var out []cmdhooks.PluginHooks
	for _, p := range ps {
		if p.Plugin.HasHooks {
			out = append(out, cmdhooks.PluginHooks{ID: p.ID, Root: p.Root, Entries: p.Plugin.Hooks, Notes: p.Plugin.HookNotes})
		}
	}
	var notes []string
	for _, b := range blocked {
		notes = append(notes, fmt.Sprintf("plugin %s: its hooks do not run: %s", b.ID, oneLine(advise(b.Err))))
	}
	return out, notes, nil
}

func writeHooksTable(w io.Writer, l HooksListJSON) {
	if len(l.Hooks) == 0 {
		printf(w, "no command hooks (add [[hooks.PreToolUse]] tables or hooks_file to config.toml)\n")
	} else {
		tw := newTable(w)
		printf(tw, "ID\tMATCHER\tTIMEOUT\tSOURCE\tCOMMAND\n")
		for _, h := range l.Hooks {
			m := oneLine(h.Matcher)
			if m == "" {
				m = "*"
			}
			printf(tw, "%s\t%s\t%ds\t%s\t%s\n", h.ID, m, h.TimeoutS, h.Source, oneLineCommand(h.Command))
		}
		_ = tw.Flush()
	}
	for _, s := range l.Sources {
		root := ""
		if s.PluginRoot != "" {
			root = ", CLAUDE_PLUGIN_ROOT " + s.PluginRoot
		}
		kind := s.Kind
		if s.Plugin != "" {
			kind = "Claude Code plugin " + s.Plugin
		}
		printf(w, "source: %s (%s, %d hooks%s)\n", s.Path, kind, s.Hooks, root)
	}
	for _, n := range l.Notes {
		printf(w, "note: %s\n", n)
	}
}

// oneLineCommand is a hook's command on one line of at most 80 characters, cut between
// characters.
func oneLineCommand(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > 80 {
		s = string(r[:77]) + "..."
	}
	return s
}

// HookDecisionJSON is what one hook decided, in `cwx hooks test --json`.
type HookDecisionJSON struct {
	Hook         string          `json:"hook"`
	Command      string          `json:"command"`
	Said         string          `json:"said"`
	Decision     string          `json:"decision"` // pass, block or ask
	Reason       string          `json:"reason,omitempty"`
	Context      string          `json:"context,omitempty"`
	UpdatedInput json.RawMessage `json:"updated_input,omitempty"`
	Error        string          `json:"error,omitempty"`
}

// HooksTestJSON is `cwx hooks test --json`: every matching hook's decision and the outcome
// the core would act on.
type HooksTestJSON struct {
	Event     string             `json:"event"`
	Decisions []HookDecisionJSON `json:"decisions"`
	Outcome   string             `json:"outcome"`
}

// hookTester is the part of core.Manager `cwx hooks test` needs.
type hookTester interface {
	TestHooks(ctx context.Context, event string, input json.RawMessage, o core.CallOptions) ([]cmdhooks.Decision, error)
}

func newHooksTestCmd() *cobra.Command {
	var input, workspace string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "test EVENT --input JSON",
		Short: "Run the hooks of EVENT on a Claude Code event, as the core would, and print what they decide",
		Long: "EVENT is PreToolUse, PostToolUse or UserPromptSubmit. --input is the event in Claude Code's\n" +
			"fields: {\"tool_name\": \"Bash\", \"tool_input\": {\"command\": \"rm -rf build\"}} (cwx names such\n" +
			"as shell work too), with tool_response for PostToolUse, or {\"prompt\": \"...\"}. The hooks run in\n" +
			"the builtin hooks module, in --workspace (default the current directory); nothing else runs.",
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) (err error) {
			event := args[0]
			if !slices.Contains(config.HookEvents, event) {
				return exitf(ExitUsage, "%q is not an event cwx runs hooks for; use %s", event, strings.Join(config.HookEvents, ", "))
			}
			if !json.Valid([]byte(input)) || !strings.HasPrefix(strings.TrimSpace(input), "{") {
				return exitf(ExitUsage, "--input must be a JSON object, such as {\"tool_name\": \"Bash\", \"tool_input\": {\"command\": \"ls\"}}")
			}
			if workspace == "" {
				workspace = "."
			}
			ws, err := workspaceDir(workspace)
			if err != nil {
				return err
			}
			if _, err := loadHooks(); err != nil {
				return err
			}
			ctx, cancel := signal.NotifyContext(cmd.Context(), os.Interrupt)
			defer cancel()
			m, err := openForCommand(ctx, cmd.ErrOrStderr(), "")
			if err != nil {
				return err
			}
			defer func() { err = firstErr(err, closeCore(m)) }()
			if err := reconcileAll(ctx, m); err != nil {
				return err
			}
			t, ok := m.(hookTester)
			if !ok {
				return exitf(ExitInternal, "this core cannot run command hooks")
			}
			ds, err := t.TestHooks(ctx, event, json.RawMessage(input), core.CallOptions{Workspace: ws})
			if err != nil {
				return callErr(err)
			}
			return writeReport(cmd.OutOrStdout(), asJSON, hooksTestReport(event, ds), writeHooksTest)
		},
	}
	cmd.Flags().StringVar(&input, "input", "{}", "the event as a JSON object in Claude Code's fields")
	cmd.Flags().StringVar(&workspace, "workspace", "", "the workspace the hooks run in and see as cwd (default the current directory)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print a JSON object")
	return cmd
}

func hooksTestReport(event string, ds []cmdhooks.Decision) HooksTestJSON {
	r := HooksTestJSON{Event: event, Decisions: []HookDecisionJSON{}}
	for _, d := range ds {
		r.Decisions = append(r.Decisions, HookDecisionJSON{Hook: d.Hook.ID, Command: d.Hook.Command, Said: d.Said, Decision: d.Kind.String(),
			Reason: d.Reason, Context: d.Context, UpdatedInput: d.Input, Error: d.Failed})
	}
	r.Outcome = outcomeOf(event, ds)
	return r
}

// outcomeOf says in one sentence what the core would do with the decisions.
func outcomeOf(event string, ds []cmdhooks.Decision) string {
	if len(ds) == 0 {
		return "no hook matches: the core goes on as without hooks"
	}
	var blocked, asked, revised bool
	for _, d := range ds {
		blocked = blocked || d.Kind == cmdhooks.Block
		asked = asked || d.Kind == cmdhooks.Ask
		revised = revised || d.Input != nil
	}
	switch {
	case event == config.EventPostToolUse && blocked:
		return "the call already ran: the block's reason goes back to the caller as context"
	case event == config.EventPostToolUse:
		return "the call already ran: any context goes back to the caller"
	case event == config.EventUserPromptSubmit && blocked:
		return "the prompt is blocked"
	case event == config.EventUserPromptSubmit:
		return "the prompt goes on, with any context the hooks added"
	case blocked:
		return "the call is denied before approval is asked"
	case asked:
		return "an approval card is forced for the call"
	case revised:
		return "the call's input is replaced, checked against the tool's schema again, then approval decides as usual"
	}
	return "the call goes to approval as usual (a hook's allow never approves it)"
}

func writeHooksTest(w io.Writer, r HooksTestJSON) {
	for _, d := range r.Decisions {
		line := fmt.Sprintf("%s `%s`: %s -> %s", d.Hook, oneLineCommand(d.Command), d.Said, d.Decision)
		if d.Reason != "" {
			line += ": " + d.Reason
		}
		printf(w, "%s\n", line)
		if d.Context != "" {
			printf(w, "  context: %s\n", d.Context)
		}
		if d.UpdatedInput != nil {
			printf(w, "  updated input: %s\n", d.UpdatedInput)
		}
		if d.Error != "" {
			printf(w, "  error (non-blocking): %s\n", d.Error)
		}
	}
	printf(w, "%s: %s\n", r.Event, r.Outcome)
}
