package rpc

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/cwx-dev/cwx/core/errdefs"
	"github.com/cwx-dev/cwx/core/protocol"
)

// Errors returned by Peer, matched with errors.Is. They are the errdefs kinds.
var (
	// ErrNotAvailable: the host cannot take the request now. ErrBusy and ErrHostExited are
	// cases of it.
	ErrNotAvailable = errdefs.ErrNotAvailable
	// ErrBusy: the outbound queue is full or every request slot is taken. Retry later.
	ErrBusy = errdefs.ErrBusy
	// ErrHostExited: the incarnation ended; the error wraps the reason.
	ErrHostExited = errdefs.ErrHostExited
	// ErrTimeout: the call's deadline passed; `$/cancel` was sent.
	ErrTimeout = errdefs.ErrTimeout
	// ErrCancelled: the caller's context was cancelled; `$/cancel` was sent. The error
	// wraps the context's cause.
	ErrCancelled = errdefs.ErrCancelled
	// ErrViolation: the host broke the protocol; the incarnation ended. It wraps the
	// core/protocol refusal when there is one.
	ErrViolation = errdefs.ErrViolation
	// ErrNotAllowed: the method may not be sent to this host (unknown, wrong direction,
	// request/notification mismatch, or not allowed on the host's tier). Nothing was sent.
	ErrNotAllowed = errdefs.ErrNotAllowed
	// ErrTooLarge: the encoded message exceeds protocol.MaxFrame. Nothing was sent.
	ErrTooLarge = errdefs.ErrTooLarge
)

// RemoteError is the host's error answer to a Call. errors.Is matches ErrCancelled for
// code -32800 and ErrNotAvailable for code -32001.
type RemoteError struct {
	Method  string // the method the call was for
	Code    int
	Message string
	Data    json.RawMessage
}

func (e *RemoteError) Error() string {
	name := protocol.ErrorCodeNames[e.Code]
	if name == "" {
		name = "error"
	}
	return fmt.Sprintf("host answered %s with %s (%d): %s", e.Method, name, e.Code, e.Message)
}

// Is maps the host's cancellation and not-available codes onto the peer's sentinels.
func (e *RemoteError) Is(target error) bool {
	switch target {
	case ErrCancelled:
		return e.Code == protocol.CodeCancelled
	case ErrNotAvailable:
		return e.Code == protocol.CodeNotAvailable
	}
	return false
}

// hostExited wraps the end reason as a case of ErrHostExited.
func hostExited(reason error) error {
	if errors.Is(reason, ErrHostExited) {
		return reason
	}
	return fmt.Errorf("%w: %w", ErrHostExited, reason)
}

// errClosed is the reason used when Close is given none.
var errClosed = errors.New("peer closed")
