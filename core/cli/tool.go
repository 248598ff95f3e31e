package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"github.com/cwx-dev/cwx/core"
	"github.com/cwx-dev/cwx/core/cmdhooks"
	"github.com/cwx-dev/cwx/core/plugins"
)

// ToolListItem is one element of the --json output of `cwx tool list`.
type ToolListItem struct {
	Name        string          `json:"name"`
	Plugin      string          `json:"plugin"`
	Origin      string          `json:"origin"` // "extension:<plugin>" or "native"
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"input_schema"`
	// Source is "live" (a live owner registered it) or "cached" (the plugin's catalog entry
	// answered: the plugin is not activated in this process yet).
	Source string `json:"source"`
	// Dev says its plugin runs from a `cwx plugin dev` session (a dev receipt): its code is
	// whatever that folder holds now, reviewed by no one.
	Dev bool `json:"dev,omitempty"`
}

// ToolCallOutput is the --json output of a `cwx tool call` that reached the plugin.
type ToolCallOutput struct {
	Tool   string `json:"tool"`
	Plugin string `json:"plugin"`
	// IsError is true when the plugin answered with an error result (exit status 6).
	IsError bool `json:"is_error"`
	// Content is the result as content blocks ({"type": "text", "text": ...}), as the
	// plugin's host rendered them; the text is the plugin's, JSON-escaped but otherwise raw.
	Content []core.ContentBlock `json:"content"`
	// Structured is the JSON value the tool returned, when it returned plain JSON.
	Structured json.RawMessage `json:"structured,omitempty"`
	// CoreCalls are the receipts of what the tool asked the core to run (core/call).
	CoreCalls []core.CoreCallReceipt `json:"core_calls,omitempty"`
	// HookContext is what the PostToolUse command hooks added (README, “Command hooks”).
	HookContext []string `json:"hook_context,omitempty"`
	// HookMessages are the hooks' systemMessages, for the person (README, “Command hooks”).
	HookMessages []string `json:"hook_messages,omitempty"`
	// SessionSection is the session's prompt section: the context its SessionStart command
	// hooks added (README, “Command hooks”).
	SessionSection *core.PromptSection `json:"session_section,omitempty"`
}

func init() {
	register(func() *cobra.Command {
		cmd := &cobra.Command{
			Use:   "tool",
			Short: "List and call the tools that enabled plugins register",
			Long: "Each command starts the extension hosts the enabled, trusted plugins need, waits only\n" +
				"for the plugin that owns the tool it asks for, and shuts the hosts down when it is done.",
			Args: cobra.NoArgs,
		}
		cmd.AddCommand(toolListCmd(), toolCallCmd())
		return cmd
	})
}

func toolListCmd() *cobra.Command {
	return failingListCmd("Activate the enabled plugins and list the native tools and their live tools",
		func(m liveCore) []ToolListItem { return markDev(m.Plugins(), toolItems(m.Tools())) }, writeToolList)
}

// markDev marks the items whose plugin runs from a dev session.
func markDev(s *plugins.Store, items []ToolListItem) []ToolListItem {
	dev := devPlugins(s)
	for i := range items {
		items[i].Dev = dev(items[i].Plugin)
	}
	return items
}

// devPlugins answers whether a plugin runs from a `cwx plugin dev` session (its status is
// plugins.StatusDev), reading each plugin's record once.
func devPlugins(s *plugins.Store) func(id string) bool {
	dev := map[string]bool{}
	return func(id string) bool {
		if id == "" || s == nil {
			return false
		}
		if v, seen := dev[id]; seen {
			return v
		}
		r, err := s.Get(id)
		dev[id] = err == nil && s.Status(r) == plugins.StatusDev
		return dev[id]
	}
}

func toolItems(tools []core.ToolInfo) []ToolListItem {
	items := make([]ToolListItem, 0, len(tools))
	for _, t := range tools {
		schema := t.InputSchema
		if len(schema) == 0 {
			schema = json.RawMessage(`{}`)
		}
		items = append(items, ToolListItem{Name: t.Name, Plugin: t.PluginID, Origin: t.Origin, Description: t.Description, InputSchema: schema,
			Source: sourceOf(t.Cached)})
	}
	sort.Slice(items, func(i, j int) bool { return items[i].Name < items[j].Name })
	return items
}

// writeToolTable prints the table alone (the repl's listing).
func writeToolTable(w io.Writer, items []ToolListItem) { writeToolList(w, items, nil) }

// writeToolList prints the table, then the plugins that are not active.
func writeToolList(w io.Writer, items []ToolListItem, failures []PluginFailure) {
	switch {
	case len(items) == 0 && len(failures) == 0:
		printf(w, "no live tools (enable and trust a plugin: cwx plugin list)\n")
	case len(items) == 0:
		printf(w, "no live tools\n")
	default:
		tw := newTable(w)
		printf(tw, "TOOL\tORIGIN\tSOURCE\tDESCRIPTION\n")
		for _, it := range items {
			src := it.Source
			if it.Dev {
				src += ", dev"
			}
			printf(tw, "%s\t%s\t%s\t%s\n", it.Name, oneLine(it.Origin), src, cutCell(oneLine(stripEscapes(it.Description)), 72))
		}
		_ = tw.Flush()
	}
	writeFailures(w, failures)
}

// sourceOf names where a listed entry comes from: its plugin's catalog entry or a live owner.
func sourceOf(cached bool) string {
	if cached {
		return "cached"
	}
	return "live"
}

// cutCell shortens a table cell to n characters.
func cutCell(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// toolCallFlags are the flags of `cwx tool call`.
type toolCallFlags struct {
	input, inputFile, workspace, approve, output, session string
	asJSON                                                bool
}

func toolCallCmd() *cobra.Command {
	var f toolCallFlags
	cmd := &cobra.Command{
		Use:   "call NAME [--input JSON | --input-file FILE]",
		Short: "Call a tool (an extension tool always needs approval: asked on the terminal unless --approve says otherwise)",
		Long: "Validates the input against the tool's schema, asks for approval (ask: on the terminal;\n" +
			"auto: approve; deny: refuse; default from [extension_host] approval, else ask), then\n" +
			"calls the tool with a 120 s deadline. The native read tools (read_file, list_dir,\n" +
			"file_search, grep_files) need no approval; shell is asked on every call, even under\n" +
			"auto. Native tools are confined to --workspace (default the current directory).\n" +
			"Exit status: 3 invalid input, 4 denied, 5 not available, 6 the tool failed, 7 timeout\n" +
			"or cancelled.",
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runToolCall(cmd, args[0], f)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.input, "input", "", "the tool's input as a JSON object (default {})")
	fl.StringVar(&f.inputFile, "input-file", "", "read the input from FILE (- for stdin)")
	fl.StringVar(&f.workspace, "workspace", "", "the call's workspace: native tools are confined to it, plugins are told it (default the current directory)")
	fl.StringVar(&f.approve, "approve", "", "approval posture for this call: ask, auto or deny")
	fl.StringVar(&f.output, "output", "", "save the result's text to FILE instead of printing it")
	fl.BoolVar(&f.asJSON, "json", false, "print a JSON object (the result, or the error)")
	sessionFlag(fl, &f.session)
	return cmd
}

func runToolCall(cmd *cobra.Command, name string, f toolCallFlags) (err error) {
	out := cmd.OutOrStdout()
	if f.asJSON {
		defer func() {
			if err != nil && exitCode(err) != ExitOK {
				if ee, ok := err.(*ExitError); !ok || ee.Err != nil {
					err = jsonFailure(out, err)
				}
			}
		}()
	}
	if err := checkSession(f.session); err != nil {
		return err
	}
	input, err := readToolInput(cmd.InOrStdin(), f.input, f.inputFile)
	if err != nil {
		return err
	}
	if f.workspace == "" {
		f.workspace = "." // natives reach no file without a workspace
	}
	ws, err := workspaceDir(f.workspace)
	if err != nil {
		return err
	}
	return runOneShot(cmd, f.approve, ws, liveTool, name, func(ctx context.Context, m liveCore) (err error) {
		// a one-shot call is a session of its own: SessionStart before, SessionEnd after
		opts := core.CallOptions{Workspace: ws, SessionID: f.session}
		hs := startHookSession(ctx, m, opts, cmd.ErrOrStderr())
		defer func() { hs.end(ctx, cmdhooks.ReasonOther) }()
		if err := hs.Stopped(); err != nil {
			return err
		}
		opts.Approver = hs.Approver(terminalPrompter(cmd.InOrStdin(), cmd.ErrOrStderr()))
		opts.Asker = hs.Asker(newTerminalAsker(cmd.InOrStdin(), cmd.ErrOrStderr()))
		// an MCP server's progress, on stderr
		opts.Progress = progressPrinter(cmd.ErrOrStderr())
		plugin := pluginOf(m, name) // the owner the call goes to, named before it runs
		res, err := m.CallTool(ctx, name, input, opts)
		if err != nil {
			return callErr(err)
		}
		if !f.asJSON {
			printHookLines(cmd.ErrOrStderr(), res)
		}
		return printToolResult(out, name, plugin, res, hs.Section(), f)
	})
}

// printHookLines shows what the command hooks said after a call: their context for the
// model (but for a hook that answered suppressOutput), and their systemMessages for the
// person, a message's lines kept (indented).
func printHookLines(w io.Writer, res core.ToolResult) {
	for _, c := range res.HookContextShown {
		printf(w, "hook context: %s\n", c)
	}
	for _, m := range res.HookMessages {
		printf(w, "hook message: %s\n", strings.ReplaceAll(m, "\n", "\n  "))
	}
}

// pluginOf names the plugin that owns a live tool: one look at the catalog, made before the
// call, so the result names the owner the call went to even when the call changes the catalog
// (a tool that withdraws itself, a host that restarts under it).
func pluginOf(m liveCore, tool string) string {
	for _, t := range m.Tools() {
		if t.Name == tool {
			return t.PluginID
		}
	}
	return ""
}

func printToolResult(w io.Writer, name, plugin string, res core.ToolResult, section *core.PromptSection, f toolCallFlags) error {
	var failed error
	if res.IsError {
		failed = &ExitError{Code: ExitPlugin}
	}
	if f.asJSON {
		o := ToolCallOutput{Tool: name, Plugin: plugin, IsError: res.IsError, Content: res.Content, Structured: res.Structured, CoreCalls: res.CoreCalls,
			HookContext: res.HookContext, HookMessages: res.HookMessages, SessionSection: section}
		if o.Content == nil {
			o.Content = []core.ContentBlock{}
		}
		if err := writeJSON(w, o); err != nil {
			return err
		}
		return failed
	}
	text := resultText(res)
	if f.output != "" {
		if err := writeOutputFile(f.output, []byte(text)); err != nil {
			return err
		}
		printf(w, "saved %d bytes to %s\n", len(text), f.output)
		return failed
	}
	if err := writePluginText(w, text); err != nil {
		return err
	}
	if res.IsError {
		return &ExitError{Code: ExitPlugin, Err: fmt.Errorf("tool %s reported an error", name)}
	}
	return nil
}

// resultText joins the text blocks of a result.
func resultText(res core.ToolResult) string { return res.Text() }

// readToolInput reads the call's input from --input or --input-file (default {}).
func readToolInput(stdin io.Reader, input, file string) (json.RawMessage, error) {
	var data []byte
	switch {
	case input != "" && file != "":
		return nil, exitf(ExitUsage, "give the input with --input or --input-file, not both")
	case input != "":
		data = []byte(input)
	case file == "-":
		b, err := io.ReadAll(io.LimitReader(stdin, maxInputBytes+1))
		if err != nil {
			return nil, exitf(ExitUsage, "read the input from stdin: %w", err)
		}
		data = b
	case file != "":
		b, err := readLimited(file)
		if err != nil {
			return nil, err
		}
		data = b
	default:
		data = []byte(`{}`)
	}
	if len(data) > maxInputBytes {
		return nil, exitf(ExitUsage, "the input is over %d bytes", maxInputBytes)
	}
	if !json.Valid(data) {
		return nil, exitf(ExitUsage, "the input is not valid JSON (give a JSON object, e.g. --input '{\"text\":\"hi\"}')")
	}
	return json.RawMessage(data), nil
}

// maxInputBytes bounds a tool input read by the CLI, below the frame limit protocol.MaxFrame.
const maxInputBytes = 16 << 20

func readLimited(path string) ([]byte, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, exitf(ExitUsage, "--input-file: %w", err)
	}
	defer fh.Close()
	b, err := io.ReadAll(io.LimitReader(fh, maxInputBytes+1))
	if err != nil {
		return nil, exitf(ExitUsage, "--input-file: %w", err)
	}
	return b, nil
}

// workspaceDir makes --workspace absolute and checks it is a directory.
func workspaceDir(dir string) (string, error) {
	if dir == "" {
		return "", nil
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", exitf(ExitUsage, "--workspace: %w", err)
	}
	st, err := os.Stat(abs)
	if err != nil {
		return "", exitf(ExitUsage, "--workspace: %w", err)
	}
	if !st.IsDir() {
		return "", exitf(ExitUsage, "--workspace: %s is not a directory", abs)
	}
	return abs, nil
}

// firstErr returns the first non-nil error.
func firstErr(errs ...error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}
