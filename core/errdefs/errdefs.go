package errdefs

import (
	"errors"
	"fmt"

	"github.com/cwx-dev/cwx/shared/frame"
)

// The kinds. Each is defined here once; the packages that return them re-export these
// values under their own names for compatibility (rpc.ErrBusy is ErrBusy).
var (
	// ErrNotAvailable: the tool, command or host cannot take the call now (no live name,
	// an owner no longer current, a host down, busy, unresponsive or stopped). ErrBusy and
	// ErrHostExited are cases of it.
	ErrNotAvailable = errors.New("extension host not available")
	// ErrBusy: every request slot of the host is taken, or its outbound queue is full.
	ErrBusy = New(ErrNotAvailable, "extension host is busy")
	// ErrHostExited: the host incarnation ended while the call was queued or in flight.
	// The error wraps why: a protocol violation, the runtime's exit, a broken stream.
	ErrHostExited = New(ErrNotAvailable, "extension host exited")
	// ErrTimeout: the call's deadline passed; `$/cancel` was sent.
	ErrTimeout = errors.New("timed out")
	// ErrCancelled: the caller cancelled, or the extension was revoked mid-call; `$/cancel`
	// was sent. The error wraps the context's cause.
	ErrCancelled = errors.New("cancelled")
	// ErrInvalidInput: a call's input does not match the tool's schema; the host saw nothing.
	ErrInvalidInput = errors.New("invalid input")
	// ErrDenied: approval was refused; the host saw nothing.
	ErrDenied = errors.New("denied")
	// ErrExecutionFailed: the plugin's own code failed (a thrown error, an error result).
	ErrExecutionFailed = errors.New("extension failed")
	// ErrViolation: a message broke the protocol. On a live channel the incarnation ends.
	ErrViolation = errors.New("protocol violation")
	// ErrNotAllowed: the method is unknown, travels the other way, mismatches request and
	// notification, or is not allowed on the tier.
	ErrNotAllowed = errors.New("method not allowed")
	// ErrTooLarge: a message exceeds the frame limit (frame.MaxPayload). It is the framing package's
	// sentinel itself (shared code cannot import the core), so an oversized frame read by
	// the shim and an oversized message refused by the core are one kind.
	ErrTooLarge = frame.ErrTooLarge
	// ErrRefused: something the core checks before admitting it was not admitted: a
	// registration from a host, a plugin package at install.
	ErrRefused = errors.New("refused")
	// ErrCorrupt: a file cwx keeps (the plugin state) does not parse. It is reported with
	// its path and never reset.
	ErrCorrupt = errors.New("corrupt")
)

// caseError prints its own text and matches (errors.Is, errors.As) everything it wraps.
type caseError struct {
	msg  string
	errs []error
}

func (e *caseError) Error() string   { return e.msg }
func (e *caseError) Unwrap() []error { return e.errs }

// New returns an error with its own message that is a case of kind: errors.Is(New(k, m), k).
// Use it for a named refinement of a kind (ErrBusy is New(ErrNotAvailable, ...)).
func New(kind error, msg string) error {
	return &caseError{msg: msg, errs: []error{kind}}
}

// Newf formats a message that is a case of kind. A %w verb in format keeps that cause
// reachable with errors.Is and errors.As; the kind's own text is not repeated.
func Newf(kind error, format string, args ...any) error {
	err := fmt.Errorf(format, args...)
	return &caseError{msg: err.Error(), errs: []error{kind, err}}
}

// WithText returns an error that prints text and wraps causes, for the places that must
// keep a message byte for byte while handing its causes on (an exit report rendered by
// the supervisor, say). text should say what the causes say.
func WithText(text string, causes ...error) error {
	e := &caseError{msg: text}
	for _, c := range causes {
		if c != nil {
			e.errs = append(e.errs, c)
		}
	}
	return e
}
