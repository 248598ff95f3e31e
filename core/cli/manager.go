package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/spf13/cobra"

	"github.com/cwx-dev/cwx/core"
	"github.com/cwx-dev/cwx/core/config"
	"github.com/cwx-dev/cwx/core/errdefs"
	"github.com/cwx-dev/cwx/core/gate"
	"github.com/cwx-dev/cwx/core/plugins"
	"github.com/cwx-dev/cwx/core/protocol"
	jsruntime "github.com/cwx-dev/cwx/core/runtime"
)

// liveCore is what `cwx tool`, `cwx command` and `cwx repl` need from a core.Manager.
type liveCore interface {
	Reconcile(ctx context.Context) error
	Tools() []core.ToolInfo
	Commands() []core.CommandInfo
	PromptSections() []core.PromptSection
	CallTool(ctx context.Context, name string, input json.RawMessage, o core.CallOptions) (core.ToolResult, error)
	RunCommand(ctx context.Context, name, rawInput string, o core.CallOptions) (core.CommandResult, error)
	Status() []core.TierStatus
	BuiltinModules() []core.BuiltinModuleInfo
	HostAt(k protocol.HostKey) core.HostInfo
	KillHost(k protocol.HostKey) error
	Retry(t protocol.Tier)
	Plugins() *plugins.Store
	// Changes delivers a value after each change of the live catalog (core.Manager.Changes).
	Changes(ctx context.Context) <-chan core.Change
	Close(ctx context.Context) error
}

// openCore opens the Manager of $CWX_HOME; tests replace it with a fake.
var openCore = func(ctx context.Context, o core.Options) (liveCore, error) {
	m, err := core.Open(ctx, o)
	if err != nil {
		return nil, err
	}
	return m, nil
}

// Bounds of the one-shot commands and the repl.
const (
	// liveWait bounds how long a command waits for the owner of what it asks for; the core's
	// own activation bound (core.ActivateDeadline) ends it earlier when activation fails.
	liveWait = 20 * time.Second
	// livePoll is how often the repl and `cwx plugin show` look at tier and owner states
	// while waiting (a one-shot call waiting for its tool follows the catalog's changes).
	livePoll = 10 * time.Millisecond
	// closeWait bounds the shutdown of the tiers a command started (the core's own bound
	// is supervisor.DefaultKillAfter to SIGKILL).
	closeWait = 5 * time.Second
)

// coreLogger is what the Manager logs to: stderr, at the level --log-level or CWX_LOG names
// (trace, debug, info, warn, error, off; default error), and the plugins' log files.
func coreLogger(stderr io.Writer) hclog.Logger {
	l := hclog.NewInterceptLogger(&hclog.LoggerOptions{Name: "cwx", Level: stderrLevel(), Output: inertWriter{stderr}})
	if home, err := config.Home(); err == nil {
		l.RegisterSink(&fileSink{home: home, now: time.Now}) // plugin lines, kept whatever the level
	}
	return l
}

// openForCommand opens the Manager for one command; the caller closes it with closeCore.
// Its skills are those of the working directory and the home (cliSkills).
func openForCommand(ctx context.Context, stderr io.Writer, approval string) (liveCore, error) {
	return openWith(ctx, stderr, approval, false, "")
}

// openLazy opens the Manager of a one-shot listing or call: lazy, so that the plugin
// catalog stands in for the plugins the command does not need (ARCHITECTURE.md, “Catalog”).
// workspace names the skills root of the command's workspace ("" the working directory).
func openLazy(ctx context.Context, stderr io.Writer, approval, workspace string) (liveCore, error) {
	return openWith(ctx, stderr, approval, true, workspace)
}

func openWith(ctx context.Context, stderr io.Writer, approval string, lazy bool, workspace string) (liveCore, error) {
	if approval != "" {
		if _, err := gate.ParsePosture(approval); err != nil {
			return nil, &ExitError{Code: ExitUsage, Err: fmt.Errorf("--approve: %w", err)}
		}
	}
	m, err := openCore(ctx, core.Options{Logger: coreLogger(stderr), Approval: approval, Lazy: lazy, Skills: cliSkills(workspace)})
	if err != nil {
		return nil, callErr(err)
	}
	return m, nil
}

// closeCore shuts down what m started, within closeWait.
func closeCore(m liveCore) error {
	ctx, cancel := context.WithTimeout(context.Background(), closeWait)
	defer cancel()
	if err := m.Close(ctx); err != nil {
		return &ExitError{Code: ExitInternal, Err: err}
	}
	return nil
}

// liveListCmd is `cwx prompt show`: activate every enabled plugin and wait for all of them,
// then print the live items as a table or a JSON array. It stays eager: the sections of a
// plugin the catalog stands in for are not live.
func liveListCmd[T any](short string, items func(liveCore) []T, table func(io.Writer, []T)) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "list",
		Short: short,
		Args:  exactArgs(0),
		RunE: func(cmd *cobra.Command, _ []string) (err error) {
			m, err := openForCommand(cmd.Context(), cmd.ErrOrStderr(), "")
			if err != nil {
				return err
			}
			defer func() { err = firstErr(err, closeCore(m)) }()
			stopProgress := startProgress(cmd.ErrOrStderr(), "starting the enabled plugins")
			err = reconcileAll(cmd.Context(), m)
			stopProgress()
			if err != nil {
				return err
			}
			return writeReport(cmd.OutOrStdout(), asJSON, items(m), table)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print a JSON array")
	return cmd
}

// runOneShot is the frame of `cwx tool call` and `cwx command run`: open the Manager, wait
// only until name is live as kind, run call, and shut down what was started. Ctrl-C
// cancels (exit 7).
func runOneShot(cmd *cobra.Command, approval, workspace string, kind liveKind, name string, call func(context.Context, liveCore) error) (err error) {
	ctx, cancel := signal.NotifyContext(cmd.Context(), os.Interrupt)
	defer cancel()
	m, err := openLazy(ctx, cmd.ErrOrStderr(), approval, workspace)
	if err != nil {
		return err
	}
	defer func() { err = firstErr(err, closeCore(m)) }()
	stopProgress := startProgress(cmd.ErrOrStderr(), fmt.Sprintf("starting the plugin of %s %s", kind, name))
	stop, err := startAndWait(ctx, m, kind, name)
	stopProgress()
	if err != nil {
		return err
	}
	defer stop()
	return call(ctx, progressCore{m, cmd.ErrOrStderr()})
}

// advertiser is a core that can reconcile for a listing (core.Manager.Advertise).
type advertiser interface {
	Advertise(ctx context.Context) error
}

// advertising returns m with Reconcile replaced by Advertise, when m has it.
func advertising(m liveCore) liveCore {
	if a, ok := m.(advertiser); ok {
		return advertisingCore{m, a}
	}
	return m
}

type advertisingCore struct {
	liveCore
	a advertiser
}

func (c advertisingCore) Reconcile(ctx context.Context) error { return c.a.Advertise(ctx) }

// liveKind says what waitLive waits for.
type liveKind int

const (
	liveTool liveKind = iota + 1
	liveCommand
)

func (k liveKind) String() string {
	if k == liveCommand {
		return "command"
	}
	return "tool"
}

// hasLive reports whether name is live as kind.
func hasLive(m liveCore, kind liveKind, name string) bool {
	if kind == liveCommand {
		for _, c := range m.Commands() {
			if c.Name == name {
				return true
			}
		}
		return false
	}
	for _, t := range m.Tools() {
		if t.Name == name {
			return true
		}
	}
	return false
}

// isNative reports whether name is one of the core's native tools.
func isNative(m liveCore, name string) bool {
	for _, t := range m.Tools() {
		if t.Name == name {
			return t.Origin == core.OriginNative
		}
	}
	return false
}

// startAndWait reconciles m in the background and returns as soon as name is live as kind
// (the other plugins keep activating), or when reconcile ended without it. A native tool
// waits for the whole reconcile instead: every plugin's hooks must be live before it runs. The returned
// stop function cancels what is still activating and joins the reconcile; call it before
// closing m.
func startAndWait(ctx context.Context, m liveCore, kind liveKind, name string) (stop func(), err error) {
	if kind == liveTool && (isNative(m, name) || strings.HasPrefix(name, core.MCPToolPrefix)) {
		// The core runs it (a native, or an MCP server's tool: no plugin may take the prefix),
		// but only after every enabled plugin is activated, so that their pre-execute hooks are
		// live when it is gated (ARCHITECTURE.md, “Approval”).
		return func() {}, reconcileAll(ctx, m)
	}
	rctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- m.Reconcile(rctx) }()
	joined := false
	var rerr error
	stop = func() {
		cancel()
		if !joined {
			rerr = <-done
			joined = true
		}
	}
	if err := waitLive(ctx, m, kind, name, done, &joined, &rerr); err != nil {
		stop()
		return func() {}, err
	}
	return stop, nil
}

// waitLive waits until name is live, reconcile ends, ctx ends or liveWait passes. It looks
// at the catalog again only when the core reports a change (Changes), subscribed before the
// first look so no change is missed.
func waitLive(ctx context.Context, m liveCore, kind liveKind, name string, done <-chan error, joined *bool, rerr *error) error {
	wctx, stopChanges := context.WithCancel(ctx)
	defer stopChanges()
	changes := m.Changes(wctx)
	limit := time.NewTimer(liveWait)
	defer limit.Stop()
	for {
		if hasLive(m, kind, name) {
			return nil
		}
		select {
		case err := <-done:
			*joined, *rerr = true, err
			if hasLive(m, kind, name) {
				return nil
			}
			if _, rest := core.PluginErrors(err); rest != nil {
				return callErr(rest)
			}
			return notLive(m, kind, name)
		case _, ok := <-changes:
			if !ok { // the core closed: reconcile's end says why
				changes = nil
			}
		case <-limit.C:
			return exitf(ExitUnavailable, "no live %s %q after %s: plugins are still activating (see `cwx plugin list`)", kind, name, liveWait)
		case <-ctx.Done():
			return callErr(ctx.Err())
		}
	}
}

// notLive is the error of a name that is not live: the core's *core.NotLiveError, worded
// by notLiveAnswer, when the core can say (a fake may not).
func notLive(m liveCore, kind liveKind, name string) error {
	if w, ok := m.(interface{ NotLive(kind, name string) error }); ok {
		if e, ok := notLiveErr(w.NotLive(kind.String(), name)); ok {
			return e
		}
	}
	msg, code := notLiveAnswer(&core.NotLiveError{Kind: kind.String(), Name: name})
	return &ExitError{Code: code, Err: errors.New(msg)}
}

// reconcileAll activates every desired plugin and waits for all of them.
func reconcileAll(ctx context.Context, m liveCore) error {
	// a plugin's own failure is its listing's to show (`cwx tool list`), not every command's
	if _, err := core.PluginErrors(m.Reconcile(ctx)); err != nil {
		return callErr(err)
	}
	return nil
}

// callErr maps an error of the core to its exit status (core/cli doc.go, “CLI conventions”).
// The message is printed with terminal escapes removed: it may quote a plugin (its error text,
// the names in its schema).
func callErr(err error) error {
	var ee *ExitError
	if err == nil {
		return nil
	}
	if errors.As(err, &ee) {
		return err
	}
	if e, ok := notLiveErr(err); ok {
		return e
	}
	e := exitErrOf(err)
	e.Err = cleanError{e.Err}
	return e
}

// cleanError prints an error with terminal escapes removed and still matches it.
type cleanError struct{ err error }

func (c cleanError) Error() string { return stripEscapes(advise(c.err)) }
func (c cleanError) Unwrap() error { return c.err }

func exitErrOf(err error) *ExitError {
	var noRuntime *jsruntime.NoRuntimeError
	switch {
	case errors.Is(err, core.ErrInvalidInput), errors.Is(err, errdefs.ErrCorrupt):
		return &ExitError{Code: ExitInvalid, Err: err}
	case errors.Is(err, core.ErrDenied):
		return &ExitError{Code: ExitDenied, Err: err}
	case errors.Is(err, core.ErrNotAvailable), errors.As(err, &noRuntime), errors.Is(err, jsruntime.ErrNoRuntime):
		return &ExitError{Code: ExitUnavailable, Err: err}
	case errors.Is(err, core.ErrExecutionFailed):
		return &ExitError{Code: ExitPlugin, Err: err}
	case errors.Is(err, core.ErrTimeout), errors.Is(err, core.ErrCancelled),
		errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return &ExitError{Code: ExitTimeout, Err: err}
	case errors.Is(err, config.ErrInvalid), errors.Is(err, gate.ErrBadPosture):
		return &ExitError{Code: ExitInvalid, Err: fmt.Errorf("%w (run `cwx config check`)", err)}
	case errors.Is(err, os.ErrPermission):
		return &ExitError{Code: ExitUsage, Err: err}
	}
	return &ExitError{Code: ExitInternal, Err: err}
}

// errorKind names an exit status for the --json error object.
func errorKind(code int) string {
	switch code {
	case ExitUsage:
		return "usage"
	case ExitInvalid:
		return "invalid_input"
	case ExitDenied:
		return "denied"
	case ExitUnavailable:
		return "not_available"
	case ExitPlugin:
		return "execution_failed"
	case ExitTimeout:
		return "timeout_or_cancelled"
	}
	return "internal"
}

// CallFailure is the --json output of `cwx tool call` and `cwx command run` when the call
// fails: the exit status, its kind and the message.
type CallFailure struct {
	Error CallFailureDetail `json:"error"`
}

// CallFailureDetail describes one failure.
type CallFailureDetail struct {
	Kind     string `json:"kind"` // usage, invalid_input, denied, not_available, execution_failed, timeout_or_cancelled, internal
	ExitCode int    `json:"exit_code"`
	Message  string `json:"message"` // escapes stripped
}

// jsonFailure prints err as a CallFailure on w and returns a quiet ExitError with its code.
func jsonFailure(w io.Writer, err error) error {
	code := exitCode(err)
	if werr := writeJSON(w, CallFailure{Error: CallFailureDetail{Kind: errorKind(code), ExitCode: code, Message: stripEscapes(advise(err))}}); werr != nil {
		return err
	}
	return &ExitError{Code: code}
}

// terminalPrompter asks on stdin/stderr when both are terminals, and fails closed
// otherwise (gate.ErrNoTerminal says how to approve instead). The card's title and the
// choices' letters are bold where colour is on; the progress line on out is paused while
// the card waits.
func terminalPrompter(in io.Reader, out io.Writer) core.Approver {
	return &gate.TerminalPrompter{In: in, Out: out, IsTerminal: isTerminal(in) && isTerminal(out), Color: colorOn(out),
		Pause: func() func() { return pauseProgress(out) }}
}
