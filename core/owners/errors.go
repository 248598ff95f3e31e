package owners

import (
	"errors"
	"fmt"
	"strings"

	"github.com/cwx-dev/cwx/core/errdefs"
	"github.com/cwx-dev/cwx/core/registry"
)

// The kinds this package's errors match (errdefs; core re-exports them).
var (
	ErrNotAvailable    = errdefs.ErrNotAvailable
	ErrHostExited      = errdefs.ErrHostExited
	ErrCancelled       = errdefs.ErrCancelled
	ErrInvalidInput    = errdefs.ErrInvalidInput
	ErrExecutionFailed = errdefs.ErrExecutionFailed
)

// Refinements of ErrNotAvailable.
var (
	// ErrUnknownTool: no tool has the name, live or claimed: no native, and no plugin
	// registered or claims it (the error is a *NotLiveError with Plugin ""). It is the
	// registry's own (registry.ErrUnknownTool), which the registry's look-ups return too.
	ErrUnknownTool = registry.ErrUnknownTool
	// ErrNoShim: the program the layer would start as the extension-host shim does not
	// become the shim: its main does not hand `<program> nodeshim` to nodeshim.Main first.
	ErrNoShim = errdefs.New(ErrNotAvailable, "the program does not run the extension-host shim")
	// ErrOwnerEnded: the owner ended (revoked, faulted, failed, its host gone, the layer
	// closed) before a request was sent; the host saw nothing.
	ErrOwnerEnded = errdefs.New(ErrNotAvailable, "its owner is no longer live")
)

// NotLiveError: no live tool or command has the name (none registered it, or its plugin is
// not active). It is a case of ErrNotAvailable.
type NotLiveError struct {
	Kind string // "tool" or "command"
	Name string
	// Plugin is who the name belongs to: the plugin the claim table gives it to, or an
	// installed plugin, not desired now, whose record claims it; "" when none does. State
	// says why it is not serving the name (one of the Absent* words, "" when only the
	// spelling differs) and Why says it as a clause ("whose activation failed: <reason>").
	Plugin string
	State  string
	Why    string
	// Failed says that plugin's own code failed: its activation failed or it faulted (the
	// CLI's exit status 6, a plugin error), rather than it being unavailable.
	Failed bool
	// Near are the known names (live, claimed or native) the name nearly is: the same name
	// folded (another case, `-` for `_`), or a small typo away; closest first.
	Near []string
}

func (e *NotLiveError) Error() string {
	msg := fmt.Sprintf("%s: no live extension %s named %q", ErrNotAvailable, e.Kind, e.Name)
	if e.Plugin != "" && e.Why != "" {
		msg += fmt.Sprintf(": it belongs to plugin `%s`, %s", e.Plugin, e.Why)
	}
	if s := e.Suggestion(); s != "" {
		msg += "; " + s
	}
	return msg
}

// Suggestion is "did you mean `a` or `b`?" for the near misses, or "".
func (e *NotLiveError) Suggestion() string {
	if len(e.Near) == 0 {
		return ""
	}
	q := make([]string, len(e.Near))
	for i, n := range e.Near {
		q[i] = "`" + n + "`"
	}
	last := q[len(q)-1]
	if len(q) > 1 {
		return "did you mean " + strings.Join(q[:len(q)-1], ", ") + " or " + last + "?"
	}
	return "did you mean " + last + "?"
}

// Unwrap makes errors.Is(err, ErrNotAvailable) true.
func (e *NotLiveError) Unwrap() error { return ErrNotAvailable }

// Is makes errors.Is(err, ErrUnknownTool) true for a tool no plugin claims.
func (e *NotLiveError) Is(target error) bool {
	return target == ErrUnknownTool && e.Kind == "tool" && e.Plugin == ""
}

// EndCause is why an owner's calls were cut short: revocation (a case of ErrCancelled), a
// fault or the host's exit (cases of ErrNotAvailable). It is the cause of the owner's
// context (Owner.Context), so a call cut short by it can say why.
type EndCause struct {
	Kind error  // ErrCancelled, ErrNotAvailable or ErrHostExited
	Msg  string // what ended the owner
	Err  error  // the cause Msg describes (a host exit's *supervisor.FailureError), kept reachable
}

func (e *EndCause) Error() string { return e.Kind.Error() + ": " + e.Msg }

func (e *EndCause) Unwrap() []error {
	if e.Err == nil {
		return []error{e.Kind}
	}
	return []error{e.Kind, e.Err}
}

var (
	causeRevoked = &EndCause{Kind: ErrCancelled, Msg: "extension was revoked"}
	causeClosed  = &EndCause{Kind: ErrNotAvailable, Msg: "the manager was closed"}
)

func causeFaulted(reason string) error {
	return &EndCause{Kind: ErrNotAvailable, Msg: "extension faulted: " + reason}
}

func causeHostExited(err error) error {
	return &EndCause{Kind: ErrHostExited, Msg: err.Error(), Err: err}
}

func causeActivationFailed(reason string) error {
	return &EndCause{Kind: ErrNotAvailable, Msg: "activation failed: " + reason}
}

var (
	errHostRestarted    = errors.New("the host restarted")
	errHostExitedUnsaid = errors.New("the host exited")
	errClosed           = errors.New("the extension manager is closed")
)

// PluginError is one enabled, trusted plugin that is not active after Reconcile: its
// activation failed (a syntax error, a bad export, a refused registration, a refused config
// table), it faulted, or its staged bytes no longer match its receipt. Reconcile joins one
// per such plugin into its error; errors.Is matches Kind (ErrExecutionFailed for the
// plugin's own code, ErrInvalidInput for a refused config table, ErrRefused for bytes that
// changed).
type PluginError struct {
	Plugin string
	State  string // failed, faulted, or "staged copy changed" (AbsentChanged)
	Reason string // one line, the plugin's text: strip escapes before printing
	Kind   error
}

func (e *PluginError) Error() string {
	return fmt.Sprintf("plugin %s %s: %s", e.Plugin, e.State, e.Reason)
}

// Unwrap returns the errdefs kind.
func (e *PluginError) Unwrap() error { return e.Kind }

// PluginErrors splits an error returned by Reconcile or Reload into the per-plugin failures
// it joins and the rest (a tier that could not start, config.toml that does not load, a
// cancelled context), nil when there is no other error.
func PluginErrors(err error) (failed []*PluginError, rest error) {
	if err == nil {
		return nil, nil
	}
	var others []error
	var walk func(error)
	walk = func(e error) {
		if pe, ok := e.(*PluginError); ok {
			failed = append(failed, pe)
			return
		}
		if j, ok := e.(interface{ Unwrap() []error }); ok {
			for _, c := range j.Unwrap() {
				walk(c)
			}
			return
		}
		others = append(others, e)
	}
	walk(err)
	return failed, errors.Join(others...)
}
