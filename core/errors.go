package core

import (
	"fmt"
	"strings"

	"github.com/cwx-dev/cwx/core/errdefs"
	"github.com/cwx-dev/cwx/core/owners"
)

// Errors of the call path, matched with errors.Is. They are the errdefs kinds (one
// definition each, re-exported here), so an error wrapped anywhere below the Manager
// matches too, and a cause (a protocol violation, the runtime's exit) stays reachable.
var (
	// ErrInvalidInput: the input does not match the tool's schema (the host saw nothing).
	// The error is a *registry.InputError listing at most registry.MaxViolations violations.
	ErrInvalidInput = errdefs.ErrInvalidInput
	// ErrDenied: approval was refused (the host saw nothing).
	ErrDenied = errdefs.ErrDenied
	// ErrNotAvailable: no live tool or command by that name, its plugin is not active, its
	// host is down, busy or unresponsive. ErrHostExited and ErrBusy are cases of it.
	ErrNotAvailable = errdefs.ErrNotAvailable
	// ErrHostExited: the host ended while the call was in flight (a case of ErrNotAvailable).
	// The error wraps why: ErrViolation when the host broke the protocol, a
	// *shared.ExitError when the runtime exited.
	ErrHostExited = errdefs.ErrHostExited
	// ErrBusy: every request slot of the host is taken (a case of ErrNotAvailable).
	ErrBusy = errdefs.ErrBusy
	// ErrCancelled: the caller cancelled, or the extension was revoked mid-call; `$/cancel`
	// was sent to the host.
	ErrCancelled = errdefs.ErrCancelled
	// ErrTimeout: the call's deadline passed (ToolCallDeadline, CommandRunDeadline).
	ErrTimeout = errdefs.ErrTimeout
	// ErrExecutionFailed: the plugin's code failed; the error is an *ExecutionError carrying
	// the plugin's message.
	ErrExecutionFailed = errdefs.ErrExecutionFailed
	// ErrViolation: the host broke the protocol; its incarnation was ended. A call cut short
	// by it matches ErrHostExited too.
	ErrViolation = errdefs.ErrViolation
)

// Errors of the Manager's own, refinements of the kinds above.
var (
	// ErrUnknownTool: no tool has the name, live or claimed: no native, and no plugin
	// registered or claims it (a case of ErrNotAvailable; the error is a *NotLiveError with
	// Plugin ""). A tool some plugin claims but that is not live now is ErrNotAvailable
	// without ErrUnknownTool, and the *NotLiveError names the plugin.
	ErrUnknownTool = owners.ErrUnknownTool
	// ErrNoShim: the program Open would start as the extension-host shim (Options.ShimPath,
	// or this executable) does not become the shim: its main does not hand
	// `<program> nodeshim` to nodeshim.Main first (a case of ErrNotAvailable; see
	// examples/embed).
	ErrNoShim = owners.ErrNoShim
)

// ExecutionError is a failure reported by the plugin's own code (a thrown error, a refused
// command result). Message is the plugin's text, not escaped: strip it before printing.
type ExecutionError struct {
	Name    string // the tool or command
	Message string
}

func (e *ExecutionError) Error() string {
	return fmt.Sprintf("%s: %s: %s", e.Name, ErrExecutionFailed, e.Message)
}

// Is makes errors.Is(err, ErrExecutionFailed) true.
func (e *ExecutionError) Is(target error) bool { return target == ErrExecutionFailed }

// HooksDownError is the denial of a call while an enabled, trusted plugin that holds a
// pre-execute hook is not live (restarting, failed, out of its tier's crash budget, its
// activation pending): its hooks cannot be asked, so nothing they would have judged runs
// (fail closed). It matches ErrDenied.
type HooksDownError struct {
	Tool    string
	Holders []DownHolder // by plugin id
}

// Error names every holder, its state and the next command.
func (e *HooksDownError) Error() string { return e.text(true) }

// Brief is Error without the next commands, for a session that was told them already.
func (e *HooksDownError) Brief() string { return e.text(false) }

func (e *HooksDownError) text(next bool) string {
	var b strings.Builder
	fmt.Fprintf(&b, "tool %q: %s: ", e.Tool, ErrDenied)
	for i, h := range e.Holders {
		if i > 0 {
			b.WriteString("; ")
		}
		fmt.Fprintf(&b, "plugin `%s` holds a pre-execute hook and is not live (%s)", h.PluginID, h.State)
		if next {
			fmt.Fprintf(&b, ": %s", h.Next)
		}
	}
	b.WriteString("; every call its hooks would judge is denied until it is live again")
	return b.String()
}

// Unwrap makes errors.Is(err, ErrDenied) true.
func (e *HooksDownError) Unwrap() error { return ErrDenied }
