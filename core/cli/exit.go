package cli

import (
	"errors"
	"fmt"
)

// Exit codes shared by every command (core/cli doc.go, “CLI conventions”).
const (
	ExitOK          = 0
	ExitInternal    = 1
	ExitUsage       = 2
	ExitInvalid     = 3
	ExitDenied      = 4
	ExitUnavailable = 5
	ExitPlugin      = 6
	ExitTimeout     = 7
)

// ExitError carries the exit status a command wants together with the error to print.
// A nil Err with a non-zero Code exits quietly (the command already printed its verdict).
type ExitError struct {
	Code int
	Err  error
}

func (e *ExitError) Error() string {
	if e.Err == nil {
		return fmt.Sprintf("exit status %d", e.Code)
	}
	return e.Err.Error()
}

func (e *ExitError) Unwrap() error { return e.Err }

// exitf builds an ExitError with a formatted message.
func exitf(code int, format string, args ...any) error {
	return &ExitError{Code: code, Err: fmt.Errorf(format, args...)}
}

// exitCode maps an error returned by a command to its exit status.
func exitCode(err error) int {
	if err == nil {
		return ExitOK
	}
	var ee *ExitError
	if errors.As(err, &ee) {
		return ee.Code
	}
	return ExitInternal
}
