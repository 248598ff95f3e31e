package cli

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"github.com/cwx-dev/cwx/core"
)

// CommandListItem is one element of the --json output of `cwx command list`.
type CommandListItem struct {
	Name         string `json:"name"`
	Plugin       string `json:"plugin"`
	Origin       string `json:"origin"` // "extension:<plugin>"
	Description  string `json:"description"`
	ArgumentHint string `json:"argument_hint,omitempty"`
	// Source is "live" or "cached", as for `cwx tool list`.
	Source string `json:"source"`
	// Dev says its plugin runs from a `cwx plugin dev` session, as for `cwx tool list`.
	Dev bool `json:"dev,omitempty"`
}

// CommandRunOutput is the --json output of a `cwx command run` that reached the plugin.
type CommandRunOutput struct {
	Command string `json:"command"`
	Plugin  string `json:"plugin"`
	// Kind is success, error (exit status 6) or submit.
	Kind string `json:"kind"`
	// Text is shown to the person (escapes stripped, at most core.MaxCommandText); may be empty.
	Text string `json:"text,omitempty"`
	// Prompt is, for submit, what an agent would send as the user's next message.
	Prompt string `json:"prompt,omitempty"`
}

func init() {
	register(func() *cobra.Command {
		cmd := &cobra.Command{
			Use:   "command",
			Short: "List and run the slash commands that enabled plugins register",
			Long: "Each command starts the extension hosts the enabled, trusted plugins need, waits only\n" +
				"for the plugin that owns the command it asks for, and shuts the hosts down when done.",
			Args: cobra.NoArgs,
		}
		cmd.AddCommand(commandListCmd(), commandRunCmd())
		return cmd
	})
}

func commandListCmd() *cobra.Command {
	return failingListCmd("Activate the enabled plugins and list their live commands",
		func(m liveCore) []CommandListItem { return commandItems(m.Commands(), devPlugins(m.Plugins())) }, writeCommandList)
}

func commandItems(cmds []core.CommandInfo, dev func(id string) bool) []CommandListItem {
	items := make([]CommandListItem, 0, len(cmds))
	for _, c := range cmds {
		items = append(items, CommandListItem{Name: c.Name, Plugin: c.PluginID, Origin: c.Origin, Description: c.Description, ArgumentHint: c.ArgumentHint,
			Source: sourceOf(c.Cached), Dev: dev(c.PluginID)})
	}
	sort.Slice(items, func(i, j int) bool { return items[i].Name < items[j].Name })
	return items
}

// writeCommandTable prints the table alone (the repl's listing).
func writeCommandTable(w io.Writer, items []CommandListItem) { writeCommandList(w, items, nil) }

// writeCommandList prints the table, then the plugins that are not active.
func writeCommandList(w io.Writer, items []CommandListItem, failures []PluginFailure) {
	defer writeFailures(w, failures)
	switch {
	case len(items) == 0 && len(failures) == 0:
		printf(w, "no live commands (enable and trust a plugin: cwx plugin list)\n")
		return
	case len(items) == 0:
		printf(w, "no live commands\n")
		return
	}
	tw := newTable(w)
	printf(tw, "COMMAND\tPLUGIN\tSOURCE\tDESCRIPTION\n")
	for _, it := range items {
		usage := "/" + it.Name
		if it.ArgumentHint != "" {
			usage += " " + oneLine(stripEscapes(it.ArgumentHint))
		}
		src := it.Source
		if it.Dev {
			src += ", dev"
		}
		printf(tw, "%s\t%s\t%s\t%s\n", usage, oneLine(it.Plugin), src, cutCell(oneLine(stripEscapes(it.Description)), 72))
	}
	_ = tw.Flush()
}

func commandRunCmd() *cobra.Command {
	var asJSON bool
	var workspace, session string
	cmd := &cobra.Command{
		Use:   "run NAME [ARGS...]",
		Short: "Run a plugin's slash command with the rest of the line as its input",
		Long: "ARGS are joined with spaces into the command's raw input, as if typed after /NAME.\n" +
			"A submit result prints the prompt an agent would send. Exit status: 5 not available,\n" +
			"6 the command failed or answered an error, 7 timeout (30 s) or cancelled.",
		Args: minArgs(1),
		RunE: func(cmd *cobra.Command, args []string) (err error) {
			out := cmd.OutOrStdout()
			if asJSON {
				defer func() {
					if ee, ok := err.(*ExitError); err != nil && (!ok || ee.Err != nil) {
						err = jsonFailure(out, err)
					}
				}()
			}
			name := strings.TrimPrefix(args[0], "/")
			if err := checkSession(session); err != nil {
				return err
			}
			ws, err := workspaceDir(workspace)
			if err != nil {
				return err
			}
			return runOneShot(cmd, "", ws, liveCommand, name, func(ctx context.Context, m liveCore) error {
				res, err := m.RunCommand(ctx, name, rawInput(args[1:]), core.CallOptions{Workspace: ws, SessionID: session,
					Asker: newTerminalAsker(cmd.InOrStdin(), cmd.ErrOrStderr())})
				if err != nil {
					return callErr(err)
				}
				return printCommandResult(out, name, commandPlugin(m, name), res, asJSON)
			})
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print a JSON object (the result, or the error)")
	cmd.Flags().StringVar(&workspace, "workspace", "", "the workspace directory the command is told about")
	sessionFlag(cmd.Flags(), &session)
	cmd.Flags().SetInterspersed(false) // flags after NAME belong to the command's input
	return cmd
}

// rawInput is the text after the command name, as a person would have typed it.
func rawInput(args []string) string {
	if len(args) == 0 {
		return ""
	}
	return " " + strings.Join(args, " ")
}

func commandPlugin(m liveCore, name string) string {
	for _, c := range m.Commands() {
		if c.Name == name {
			return c.PluginID
		}
	}
	return ""
}

func printCommandResult(w io.Writer, name, plugin string, res core.CommandResult, asJSON bool) error {
	kind := string(res.Kind)
	var failed error
	if kind == "error" {
		failed = &ExitError{Code: ExitPlugin}
	}
	if asJSON {
		if err := writeJSON(w, CommandRunOutput{Command: name, Plugin: plugin, Kind: kind, Text: stripEscapes(res.Text), Prompt: stripEscapes(res.Prompt)}); err != nil {
			return err
		}
		return failed
	}
	switch kind {
	case "error":
		if err := writePluginText(w, res.Text); err != nil {
			return err
		}
		if strings.HasPrefix(res.Text, handlerThrew) {
			return &ExitError{Code: ExitPlugin, Err: fmt.Errorf("/%s failed: its handler threw", name)}
		}
		return &ExitError{Code: ExitPlugin, Err: fmt.Errorf("/%s answered an error", name)}
	case "submit":
		if res.Text != "" {
			if err := writePluginText(w, res.Text); err != nil {
				return err
			}
		}
		printf(w, "/%s asks to send this as your next message:\n", name)
		return writePluginText(w, indent(res.Prompt))
	}
	return writePluginText(w, res.Text)
}

// handlerThrew starts the text of a command whose handler threw instead of answering (the JS
// host says so, apart from a deliberate { kind: 'error' } answer).
const handlerThrew = "handler threw: "

// indent prefixes every line of s with two spaces.
func indent(s string) string {
	return "  " + strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n  ")
}

// minArgs requires at least n positional arguments.
func minArgs(n int) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) < n {
			return exitf(ExitUsage, "%s needs at least %d argument(s); see `%s --help`", cmd.CommandPath(), n, cmd.CommandPath())
		}
		return nil
	}
}
